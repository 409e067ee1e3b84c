"""Pattern 9: a parameter the function fills in when the caller leaves it out
(``if weight is None: weight = ...``): the test reads what the caller passed, so a caller
that passes the weight never takes the readback."""
import numpy as np

from ..common.host import from_numpy, to_numpy


def weighted(x, weight=None):
    if weight is None:
        weight = from_numpy(np.abs(to_numpy(x)), x.dtype, x.device)  # E: device-readback
    return x.device.mul_kernel(x, weight)


def weighted_by_half(x):
    return weighted(x, 0.5)


def weighted_by_magnitude(x):
    return weighted(x)  # E: device-indirect-fallback
