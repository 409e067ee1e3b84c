"""device-indirect-fallback: a call of a backend function that falls back (its root is its own
finding); a caller that rules the host path out is clean."""
import numpy as np

from ..._host import from_numpy, to_numpy
from . import kernels


def exp(a, exact=False):
    if exact:
        return from_numpy(np.exp(to_numpy(a)), a.device)  # E: device-readback
    return kernels.exp(a)


def softplus(a):
    return exp(a, exact=True) + 1.0  # E: device-indirect-fallback


def softplus_fast(a):
    return exp(a) + 1.0
