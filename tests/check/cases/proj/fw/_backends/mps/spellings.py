"""Round trips spelled as users write them beyond calls of named helpers: a lambda, a method of
an instance the op makes, ``torch.device(type="cpu")``, and a host loop indexing a device
tensor with addresses read back. Each has an on-device twin."""
import torch

from ..common.staging import Launcher, Staging
from . import kernels


def through_lambda(a):
    to_host = lambda t: t.cpu()  # noqa: E731  # E: device-cpu-call
    return kernels.relu(to_host(a)).to(a.device)


def through_lambda_on_device(a):
    prepare = lambda t: t.contiguous()  # noqa: E731
    return kernels.relu(prepare(a))


def lambda_called_in_place(a):
    return kernels.relu((lambda t: t.to("cpu"))(a)).to(a.device)  # E: device-cpu-target


def through_instance(a):
    s = Staging(a.device)
    return s.push(s.pull(a).exp())  # E: device-readback


def through_instance_on_device(a):
    s = Launcher(a.device)
    return kernels.relu(s.pull(a))


def device_type_keyword(a):
    return torch.tanh(a.to(torch.device(type="cpu"))).to(a.device)  # E: device-cpu-target


def device_type_keyword_other(a):
    return torch.tanh(a.to(torch.device(type="mps")))


def gather_by_host_loop(a, index):
    rows = []
    for i in index.cpu().tolist():  # E: device-cpu-call
        rows.append(a[i])
    return kernels.launch("stack", rows)


def gather_by_counter_loop(a, n):
    """The same loop over a counter: the host computes no address from tensor data."""
    rows = []
    for i in range(n):
        rows.append(a[i])
    return kernels.launch("stack", rows)


def pick_one_row(a, index):
    """One element chosen by a scalar read back: a host sync (opt-in code), the row is the device's."""
    return kernels.relu(a[int(index.item())])


def gather_by_host_comprehension(a, index):
    rows = [a[i] for i in index.cpu().tolist()]  # E: device-cpu-call
    return kernels.launch("stack", rows)


def gather_by_counter_comprehension(a, n):
    return kernels.launch("stack", [a[i] for i in range(n)])


def through_getattr(a):
    return getattr(a, "cpu")().exp().to(a.device)  # E: device-cpu-call


def through_a_made_instance(a):
    return Staging(a.device).pull(a).exp().to(a.device)  # E: device-readback


def as_tensor_on_the_cpu(a):
    return torch.as_tensor(a, device="cpu").cumprod(0).to(a.device)  # E: device-cpu-target


def legacy_cpu_type(a):
    return a.type(torch.FloatTensor).exp().to(a.device)  # E: device-cpu-target


def legacy_dtype_only(a):
    return a.type(torch.float16)


def elements_computed_and_uploaded(a):
    return a.new_tensor([v * 2 for v in a.tolist()])  # E: device-readback


def sizes_read_back(a, coords):
    """Sizes read back one by one and collected: a list of sizes (a host sync)."""
    sizes = [int(h.item()) for h in coords]
    return [kernels.launch("zeros", s) for s in sizes]

