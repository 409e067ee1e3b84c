"""A function's validations (``if bad: raise`` at its top, ``assert``) hold on every path that
goes on: a condition says what chooses the path, not what every valid call satisfies."""
from ..common.convert import from_numpy, to_numpy
from . import kernels


def take_host(a, index):
    return from_numpy(to_numpy(a)[to_numpy(index)], a.dtype, a.device)  # E: device-readback


def diag_fallback(a, index):
    if a.dim() == 1:
        return kernels.launch("gather", a, index)
    return take_host(a, index)  # E: device-indirect-fallback


def diag(a, index, chip):
    if a.device.type != "mps":
        raise ValueError("diag expects an MPS tensor")
    if a.dim() not in (1, 2):
        raise ValueError("diag expects a 1-D or 2-D tensor")
    assert index.dim() == 1
    if chip == "m1":
        return diag_fallback(a, index)  # E: device-indirect-fallback
    return kernels.launch("diag", a, index)
