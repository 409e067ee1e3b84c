"""What a predicate's truth says of its tensor: ``can_use_metal(t)`` returns ``t.dtype in
_METAL_DTYPES and ...``, so a caller that holds it true holds the dtype to that set (however a
module names its members), and a callee's branch that needs another dtype there, or one of the
other kind (``a.dtype.is_floating_point``), is not reached."""
import numpy as np

from ..._dtype import bool_dtype, float16_dtype as half, float32_dtype, int32_dtype
from ..common.convert import from_numpy, to_numpy
from . import kernels

_METAL_DTYPES = frozenset({float32_dtype, half, int32_dtype, bool_dtype})


def can_use_metal(t):
    return t.dtype in _METAL_DTYPES and t.numel() > 0


def exp_metal(a):
    """A test of membership in a module-level set says its members."""
    if a.dtype in _METAL_DTYPES:
        return kernels.exp(a)
    return from_numpy(np.exp(to_numpy(a)), a.dtype, a.device)  # E: device-readback


def clamp_low(a, v):
    if can_use_metal(a) and a.dtype in (float32_dtype, half, int32_dtype):
        return kernels.launch("clamp_min", a, v)
    return from_numpy(np.maximum(to_numpy(a), v), a.dtype, a.device)  # E: device-readback


def normalized(a):
    """Under ``can_use_metal(a)`` the callee's host branch needs ``bool``: not floating point."""
    if can_use_metal(a) and a.dtype.is_floating_point:
        return clamp_low(kernels.launch("norm", a), 1e-12)
    raise TypeError("unsupported")


def normalized_exact(a):
    """Not floating point leaves ``bool``, which the callee sends to the host."""
    if can_use_metal(a) and not a.dtype.is_floating_point:
        return clamp_low(kernels.launch("norm", a), 1)  # E: device-indirect-fallback
    raise TypeError("unsupported")
