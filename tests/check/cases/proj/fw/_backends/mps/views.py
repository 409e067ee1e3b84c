"""A view stands for its tensor in a callee's device and dtype tests, never in its shape,
stride or contiguity tests (a transposed contiguous tensor is not contiguous)."""
import numpy as np

from ..common.convert import from_numpy, to_numpy
from . import kernels


def copy_view(v):
    if v.is_contiguous():
        return kernels.launch("copy", v)
    return from_numpy(np.ascontiguousarray(to_numpy(v)), v.dtype, v.device)  # E: device-readback


def transposed_copy(a):
    if a.is_contiguous():
        return copy_view(a.transpose(0, 1))  # E: device-indirect-fallback
    return kernels.launch("copy", a)


def half_copy(a):
    if a.dtype == "float16":
        return kernels.launch("copy", a)
    return cast_copy(a.transpose(0, 1))


def cast_copy(v):
    if v.dtype != "float16":
        return kernels.launch("cast", v)
    return from_numpy(to_numpy(v).astype(np.float16), v.dtype, v.device)  # E: device-readback
