"""Readback and upload primitives shared by the backends (never findings of their own)."""
import numpy as np

from ...tensor import Tensor


def to_numpy(t):
    return t._numpy_view()


def from_numpy(arr, dtype, device):
    return Tensor(upload_storage(arr, device=device), arr.shape, dtype, device=device)


def upload_storage(arr, device):
    return device.allocate_from(np.ascontiguousarray(arr))
