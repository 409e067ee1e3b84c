"""Pattern 1: a constant argument (a literal, a default, a flag, dim=None) picks the callee's branch."""
import ctypes

import numpy as np

from ..common.host import from_numpy, to_numpy


def _reduce(a, dim, op):
    if op in ("argmax", "argmin"):
        raw = (ctypes.c_char * a.nbytes).from_address(a.data_ptr())  # E: device-readback
        return from_numpy(np.frombuffer(raw, np.uint32).astype(np.int64), "int64", a.device)
    return a.device.reduce_kernel(a, dim, op)


def mean_(a, dim):
    return _reduce(a, dim, "mean")


def argmax(a, dim):
    return _reduce(a, dim, "argmax")  # E: device-indirect-fallback


def reduce_any(a, dim, op):
    return _reduce(a, dim, op)  # E: device-indirect-fallback


def _sum(a, dim=None, exact=False):
    if dim is None:
        return a.device.sum_all_kernel(a)
    if exact:
        return from_numpy(to_numpy(a).sum(axis=dim), a.dtype, a.device)  # E: device-readback
    return a.device.sum_dim_kernel(a, dim)


def sum_all(a):
    return _sum(a)


def sum_dim(a, dim):
    return _sum(a, dim)


def sum_exact(a, dim):
    return _sum(a, dim, exact=True)  # E: device-indirect-fallback
