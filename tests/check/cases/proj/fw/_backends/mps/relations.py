"""What a caller knows about the tensors it passes decides a callee's tests of their relations
and sizes: a branch taken only when shapes differ is not reached when every operand is one
tensor, a copy of it or a tensor made like it; an empty-input branch is not reached under the
caller's own test that its tensor is not empty (``n > 0`` of a size is ``n != 0``)."""
import numpy as np
import torch

from ..common.convert import from_numpy, to_numpy
from . import kernels


def _blend(cond, x, y):
    if x.shape != y.shape or cond.shape != x.shape:
        return from_numpy(np.where(to_numpy(cond), to_numpy(x), to_numpy(y)), x.dtype, x.device)  # E: device-readback
    return kernels.launch("where", cond, x, y)


def relu_by_blend(a):
    """Every operand has ``a``'s shape: the host broadcast is not reached."""
    zeros = torch.zeros_like(a)
    return _blend(a.contiguous(), a, zeros)


def blend_two(a, b):
    return _blend(a, a, b)  # E: device-indirect-fallback


def _sum_rows(a):
    if a.numel() == 0:
        return from_numpy(np.zeros(a.shape[:-1]), a.dtype, a.device)  # E: device-numpy
    return kernels.launch("sum_rows", a)


def mean_rows(a):
    """The caller returns early for an empty tensor: the empty branch is not reached."""
    if a.numel() <= 0:
        raise ValueError("mean of an empty tensor")
    return kernels.launch("div", _sum_rows(a), a.shape[-1])


def total_rows(a):
    return _sum_rows(a)  # E: device-indirect-fallback
