"""Round trips spelled through a name or a buffer: the device in a ``**`` dict, a bound method
kept in a local, a ``functools.partial`` of a transfer, a CPU tensor's device as the target, an
upload named like one called on a tensor, numpy given the op's tensor, a copy into a CPU
tensor, and element copies a host loop drives from an index read back. Each has an on-device
twin."""
import functools

import numpy as np
import torch

from . import kernels


def device_in_unpacked_dict(a):
    where = {"device": "cpu"}
    return kernels.relu(a.to(**where)).to(a.device)  # E: device-cpu-target


def device_in_unpacked_dict_on_device(a):
    where = {"device": a.device}
    return kernels.relu(a.to(**where))


def bound_method_kept(a):
    pull = a.cpu
    return torch.erfinv(pull()).to(a.device)  # E: device-cpu-call


def bound_method_kept_on_device(a):
    prepare = a.contiguous
    return torch.erfinv(prepare())


def cpu_tensor_as_target(a):
    reference = torch.empty(0)
    return torch.cummax(a.to(reference.device), 0).values.to(a.device)  # E: device-cpu-target


def device_tensor_as_target(a):
    reference = torch.empty(0, device=a.device)
    return torch.cummax(a.to(reference.device), 0).values


def upload_method_on_a_tensor(a):
    return a.from_numpy(np.exp(a.numpy()))  # E: device-readback


def upload_method_of_user_data(a, values):
    return a.from_numpy(np.asarray(values, dtype=np.float32))


def gather_by_element_copies(a, index):
    idx = index.numpy()  # E: device-readback
    out = a.new_empty(index.shape)
    for pos in np.ndindex(*idx.shape):
        out[pos].copy_(a[int(idx[pos])])
    return out


def copy_by_counter_loop(a, n):
    """The same element copies at counters: no address read back."""
    out = a.new_empty((n,))
    for pos in range(n):
        out[pos].copy_(a[pos])
    return out


def numpy_of_the_tensor(a):
    return torch.from_numpy(np.exp(np.asarray(a))).to(a.device)  # E: device-readback


def numpy_of_user_data(data, like):
    """``data`` is never used as a tensor here: the user's values, staged."""
    return torch.from_numpy(np.asarray(data, dtype=np.float32)).to(like.device)


def copied_into_a_cpu_tensor(a):
    host = torch.empty_like(a, device="cpu")
    host.copy_(a)  # E: device-readback
    return torch.erfinv(host).to(a.device)


def copied_into_a_device_tensor(a):
    out = torch.empty_like(a)
    out.copy_(a)
    return torch.erfinv(out)


def partial_of_the_transfer(a):
    to_host = functools.partial(torch.Tensor.to, device="cpu")
    return torch.erfinv(to_host(a)).to(a.device)  # E: device-cpu-target


def partial_of_a_dtype(a):
    to_half = functools.partial(torch.Tensor.to, dtype=torch.float16)
    return torch.erfinv(to_half(a))
