"""The backend's own ops, called by other ops of the backend."""
from . import kernels


def relu(a):
    return kernels.relu(a)


def exp(a):
    return kernels.exp(a)


def log(a):
    return kernels.launch("log", a)


def gelu(a):
    out = kernels.empty(a.shape, dtype=a.dtype, device=a.device)
    kernels.launch("gelu", a, out)
    return out
