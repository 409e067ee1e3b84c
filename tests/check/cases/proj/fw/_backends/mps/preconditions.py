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


def contract(equation, *operands):
    """A parameter rebound under a test (``operands = operands[0]`` for a list passed whole)
    keeps the caller's value on the other path: a test after it is over neither, and the
    callee's condition is not printed over ``operands[0]``."""
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = operands[0]
    if len(operands) == 2 and kernels.supported(operands[0].dtype):
        return diag_fallback(operands[0], operands[1])  # E: device-indirect-fallback
    return kernels.launch("einsum", equation, *operands)
