"""A list of views of one tensor passes that tensor to a callee's tests of its elements, built
by a comprehension over a counter or by appending in a loop alike."""
import numpy as np

from ..common.convert import from_numpy, to_numpy
from . import kernels


def on_gpu(t):
    return kernels.supported(t.dtype)


def stack(tensors):
    if all(on_gpu(t) for t in tensors):
        return kernels.launch("stack", tensors)
    return from_numpy(np.stack([to_numpy(t) for t in tensors]), tensors[0].dtype, tensors[0].device)  # E: device-readback


def rows_comprehension(a, n):
    if on_gpu(a):
        return stack([a.select(0, i) for i in range(n)])
    return None


def rows_appended(a, n):
    if on_gpu(a):
        rows = []
        for i in range(n):
            rows.append(a.select(0, i))
        return stack(rows)
    return None


def rows_unguarded(a, n):
    rows = []
    for i in range(n):
        rows.append(a.select(0, i))
    return stack(rows)  # E: device-indirect-fallback


def rows_mixed(a, b, n):
    if on_gpu(a):
        rows = []
        for i in range(n):
            rows.append(a.select(0, i))
        rows.append(b)
        return stack(rows)  # E: device-indirect-fallback
    return None


def rows_rebound(a, n):
    if on_gpu(a):
        rows = []
        for i in range(n):
            t = a.select(0, i)
            t = t.unsqueeze(0)
            rows.append(t)
        return stack(rows)
    return None
