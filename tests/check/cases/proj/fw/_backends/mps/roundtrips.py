"""Round trips through the host spelled as issue 24 lists them, and their on-device twins.

The model, not the spelling: any op on data read back to the host (the framework's own op,
torch's, an unknown helper, a method, an operator) computes on the host, and that data
reaching the device again, in any way, is a fallback at its readback."""
import numpy as np
import torch
import torch.nn.functional as F

from . import kernels

CPU = "cpu"
HOST = torch.device("cpu")
int64 = "int64"


def relu(a):
    return kernels.launch("relu", a)


def exp(a):
    return kernels.launch("exp", a)


def log(a):
    return kernels.launch("log", a)


def mul(a, b):
    return kernels.launch("mul", a, b)


def empty_like(a):
    return kernels.launch("empty_like", a)


def own_op(a):
    return relu(a.cpu()).to(a.device)  # E: device-cpu-call


def softmax_keyword(a, dim):
    return F.softmax(a.to(device="cpu"), dim).to(a.device)  # E: device-cpu-target


def softmax_constant(a, dim):
    return F.softmax(a.to(CPU), dim).to(a.device)  # E: device-cpu-target


def device_constant(a):
    return relu(a.to(HOST)).to(a.device)  # E: device-cpu-target


def chained(a, dev):
    h = a.cpu()  # E: device-cpu-call
    out = log(exp(h) + 1.0)
    return out.to(dev)


def unknown_helper(a):
    return undefined_helper(a.cpu()).to(a.device)  # E: device-cpu-call


def copied_into(a):
    out = empty_like(a)
    out.copy_(mul(a.cpu(), a.cpu()))  # E: device-cpu-call
    return out


def out_argument(a):
    out = empty_like(a)
    mul(a.cpu(), 2.0, out=out)  # E: device-cpu-call
    return out


def nested(a):
    def on_host(x):
        return relu(x.cpu()).to(x.device)  # E: device-cpu-call
    return on_host(a)  # E: device-indirect-fallback


def one_dtype(a):
    if a.dtype == int64:
        return relu(a.cpu()).to(a.device)  # E: device-cpu-call
    return relu(a)


def on_the_cpu_already(a):
    """The host path runs only for a tensor already on the CPU (the guard through a constant)."""
    if a.device.type == CPU:
        return relu(a.cpu())
    return relu(a)


def composite(a):
    return mul(relu(a), exp(a))


def broadcast_shape(a, b):
    """A shape built in a loop is metadata, as the same shape built in a comprehension is."""
    out_shape = []
    for dims in zip(a.shape, b.shape):
        out_shape.append(max(dims))
    return kernels.launch("where", np.empty(out_shape), a, b)


def where(cond, x, y):
    if isinstance(y, torch.Tensor):
        return kernels.launch("where", cond, x, y)
    return torch.from_numpy(np.where(cond.numpy(), x.numpy(), y)).to(x.device)  # E: device-readback


def heaviside(a, values):
    """``where``'s host branch needs a non-tensor ``y``; the literal 1.0 decides it: taken."""
    return where(a, values, 1.0)  # E: device-indirect-fallback


def exp_unbound(a):
    return torch.Tensor.cpu(a).exp().to(a.device)  # E: device-cpu-call


def take_copy(a, index):
    """A private copy (``.to("cpu")``) edited on the host and uploaded: computed there, and no
    write into the tensor through a view."""
    idx = index.to("cpu").numpy().astype("int64", copy=True)  # E: device-cpu-target
    idx[idx < 0] += a.shape[0]
    return kernels.launch("gather", a, torch.as_tensor(idx, device=a.device))


def check_index(a, index):
    """The same copy only validates the index: a host sync, no fallback."""
    idx = index.to("cpu").numpy().copy()
    idx[idx < 0] += a.shape[0]
    if (idx >= a.shape[0]).any():
        raise IndexError("index out of range")
    return kernels.launch("gather", a, index)
