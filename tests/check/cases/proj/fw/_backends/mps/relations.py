"""What a caller knows about the tensors it passes decides a callee's tests of their relations
and sizes: a branch taken only when shapes differ is not reached when every operand is one
tensor, a copy of it or a tensor made like it; an empty-input branch is not reached under the
caller's own test that its tensor is not empty (``n > 0`` of a size is ``n != 0``)."""
import math

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


def _where(cond, x, y):
    """candle's ``where``: it broadcasts on the host only when the shapes differ; a scalar ``y``
    takes the second arm, where ``cond`` and ``x`` were not rebound by the first."""
    if isinstance(y, torch.Tensor):
        shapes = [cond.shape, x.shape, y.shape]
        if not (shapes[0] == shapes[1] == shapes[2]):
            cond, x, y = _broadcast(cond), _broadcast(x), _broadcast(y)  # E: device-indirect-fallback
    elif tuple(cond.shape) != tuple(x.shape):
        cond = _broadcast(cond)
    return kernels.launch("where", cond, x, y)


def _broadcast(t):
    return from_numpy(np.ascontiguousarray(to_numpy(t)), t.dtype, t.device)  # E: device-readback


def nansum(a):
    """The mask is an element-wise op of ``a`` (``isnan``, then ``logical_not``): ``a``'s shape,
    so the host broadcast is not reached."""
    keep = torch.logical_not(torch.isnan(a))
    return kernels.launch("sum", _where(keep, a, 0.0))


def masked_by_other(a, b):
    return kernels.launch("sum", _where(b > 0, a, 0.0))  # E: device-indirect-fallback


def _scale_eligible(a, factor):
    if kernels.supported(a.dtype):
        return kernels.launch("mul", a, factor)
    return from_numpy(to_numpy(a) * factor, a.dtype, a.device)  # E: device-readback


def elu_like(a):
    """Results of device ops on ``a`` (a kernel call, an operator with a number, a conditional
    copy) are on ``a``'s device with its dtype: the callee's dtype guard holds for them."""
    if not kernels.supported(a.dtype):
        raise TypeError("unsupported dtype")
    a_c = a.contiguous() if not a.is_contiguous() else a
    part = kernels.launch("exp", a_c) - 1.0
    return _scale_eligible(part, 2.0)


def _stack(tensors):
    if tensors and all(kernels.supported(t.dtype) for t in tensors):
        return kernels.launch("stack", tensors)
    return from_numpy(np.stack([to_numpy(t) for t in tensors]), tensors[0].dtype, tensors[0].device)  # E: device-readback


def diagonal(a, n):
    """A list a loop fills on every pass, after the early return for ``n == 0``, is not empty:
    the callee's branch for no tensors is not reached."""
    if not kernels.supported(a.dtype):
        raise TypeError("unsupported dtype")
    if n == 0:
        return a.new_empty((0,))
    rows = []
    for i in range(n):
        rows.append(a.select(0, i))
    return _stack(rows)


def diagonal_maybe_empty(a, n):
    """``rows`` is empty for ``n == 0``, and the callee's branch for no tensors is taken then:
    but its comprehension reads nothing back from an empty list, so no fallback is reached."""
    if not kernels.supported(a.dtype):
        raise TypeError("unsupported dtype")
    rows = []
    for i in range(n):
        rows.append(a.select(0, i))
    return _stack(rows)


def _sum_along(a, dim):
    if a.shape[dim] == 0:
        return from_numpy(np.zeros(a.shape[:dim]), a.dtype, a.device)  # E: device-numpy
    return kernels.launch("sum", a, dim)


def mean_along(a, dim):
    """The caller rules out an empty ``dim`` first (a size indexed by the parameter it passes on):
    the callee's empty branch is not reached."""
    if a.shape[dim] == 0:
        raise ValueError("mean over an empty dimension")
    return kernels.launch("div", _sum_along(a, dim), a.shape[dim])


def total_along(a, dim):
    return _sum_along(a, dim)  # E: device-indirect-fallback


def sinc_like(a):
    """An element-wise op of tensors that all have ``a``'s shape (``math.pi`` and ``float(...)``
    are numbers) has ``a``'s shape."""
    if not kernels.supported(a.dtype):
        raise TypeError("unsupported dtype")
    pi_a = kernels.mul(a, math.pi)
    value = kernels.add(kernels.exp(pi_a), pi_a)
    return _blend(a != 0, value, kernels.mul(a, float(2)))


def sinc_like_other(a, b):
    """``b`` may have any shape: an element-wise op with it is broadcast."""
    if not kernels.supported(a.dtype):
        raise TypeError("unsupported dtype")
    value = kernels.add(kernels.exp(a), b)
    return _blend(a != 0, value, a)  # E: device-indirect-fallback


def renorm_like(a, maxnorm):
    """``n`` is made here once, of a shape of its own: a mask of it and an element-wise op of it
    and numbers have that shape."""
    if not kernels.supported(a.dtype):
        raise TypeError("unsupported dtype")
    n = kernels.launch("norm", a)
    ratio = kernels.mul(kernels.exp(n), float(maxnorm))
    return _blend(n > float(maxnorm), ratio, n)


def renorm_two_norms(a, b):
    """Two values made here, each of a shape of its own: they may differ."""
    if not kernels.supported(a.dtype):
        raise TypeError("unsupported dtype")
    n = kernels.launch("norm", a)
    m = kernels.launch("norm", b)
    return _blend(n > 0, n, m)  # E: device-indirect-fallback


def count_like(a, floating):
    """``ones`` is bound once in each arm of the ``if``, each time with ``a``'s shape."""
    if not kernels.supported(a.dtype):
        raise TypeError("unsupported dtype")
    if floating:
        ones = kernels.add(kernels.mul(a, 0.0), 1.0)
    else:
        ones = kernels.launch("wrap", kernels.launch("alloc", a.numel()), tuple(a.shape), a.device)
    return _blend(a != 0, ones, a)


def count_like_other(a, b, floating):
    """In one arm ``ones`` has ``b``'s shape."""
    if not kernels.supported(a.dtype):
        raise TypeError("unsupported dtype")
    if floating:
        ones = kernels.add(kernels.mul(a, 0.0), 1.0)
    else:
        ones = kernels.add(kernels.mul(b, 0.0), 1.0)
    return _blend(a != 0, ones, a)  # E: device-indirect-fallback
