"""Helpers shared by the backends: readback and upload primitives (never findings)."""
import numpy as np

from ..._tensor import Tensor


def to_numpy(t):
    return t._numpy_view()


def from_numpy(arr, dtype, device):
    return Tensor(upload_storage(arr, device=device), arr.shape, arr.strides, device=device)


def upload_storage(arr, device):
    return device.allocate_from(np.ascontiguousarray(arr))
