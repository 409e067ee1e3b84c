"""Readback/upload primitives and framework predicates (never findings themselves)."""
import numpy as np


def to_numpy(t):
    return t._numpy_view()


def from_numpy(arr, dtype, device):
    return device.upload(np.ascontiguousarray(arr), dtype)


def can_use_gpu(t):
    return t.dtype in ("float32", "float16") and t.numel() > 0


def use_soc_fallback(op_name):
    return op_name in ("gather",)
