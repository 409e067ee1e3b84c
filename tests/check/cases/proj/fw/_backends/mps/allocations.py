"""What a caller makes for a callee, read through the helpers that make it: a tensor allocated
given another's shape, dtype and device is like it (and contiguous unless given its strides),
in the helper that allocates it and in every caller of that helper; an operand that is a
Python number (a parameter defaulting to one, ``math.pi``) is not the tensor an op's result is
made on."""
import math

import numpy as np

from ..common.convert import from_numpy, to_numpy
from . import kernels


def can_use_gpu(t):
    return kernels.supported(t.dtype) and t.numel() > 0


def _alloc(numel, dtype):
    return kernels.launch("alloc", numel, dtype)


def _wrap(buf, shape, stride, dtype, device):
    return kernels.launch("wrap", buf, shape, stride, dtype, device)


def _empty_like(t):
    shape = tuple(t.shape)
    buf = _alloc(t.numel(), t.dtype)
    return _wrap(buf, shape, kernels.launch("strides", shape), t.dtype, t.device)


def _empty_strided_like(t):
    buf = _alloc(t.numel(), t.dtype)
    return _wrap(buf, t.shape, t.stride(), t.dtype, t.device)


def fill_(a, value):
    if can_use_gpu(a) and a.is_contiguous() and a.dtype == "float32":
        return kernels.launch("fill", a, value)
    arr = to_numpy(a)  # E: device-readback
    arr[...] = value
    return a


def ones_like(a):
    """``_empty_like(a)`` is a fresh contiguous tensor of ``a``'s dtype on ``a``'s device: the
    callee's guard holds for it."""
    if can_use_gpu(a) and a.dtype == "float32":
        out = _empty_like(a)
        return fill_(out, 1.0)
    raise TypeError("unsupported")


def ones_like_imported_here(a):
    """The helper imported inside the function is the same helper."""
    from .allocations import _empty_like as fresh
    if can_use_gpu(a) and a.dtype == "float32":
        return fill_(fresh(a), 1.0)
    raise TypeError("unsupported")


def ones_like_strided(a):
    """Given ``a``'s strides, the new tensor is contiguous only where ``a`` is."""
    if can_use_gpu(a) and a.dtype == "float32":
        return fill_(_empty_strided_like(a), 1.0)  # E: device-indirect-fallback
    raise TypeError("unsupported")


def _copy_(a, src):
    if can_use_gpu(a) and can_use_gpu(src):
        return kernels.launch("copy", a, src)
    np.copyto(to_numpy(a), to_numpy(src))  # E: device-readback
    return a


def cauchy_(a, median=0.0, sigma=1.0):
    """``median`` and ``sigma`` default to numbers, ``math.pi`` is one: the result is made on
    ``a``'s device with its dtype."""
    if can_use_gpu(a):
        result = kernels.add(median, kernels.mul(sigma, kernels.mul(math.pi, a)))
        return _copy_(a, result)
    raise TypeError("unsupported")


def shifted_(a, median):
    """``median`` may be a tensor anywhere: the callee's host branch stays reached."""
    if can_use_gpu(a):
        return _copy_(a, kernels.add(median, a))  # E: device-indirect-fallback
    raise TypeError("unsupported")


def _stack(tensors):
    if tensors and all(can_use_gpu(t) for t in tensors):
        return kernels.launch("stack", tensors)
    return from_numpy(np.stack([to_numpy(t) for t in tensors]), "float32", None)  # E: device-readback


def diagonal(a):
    """Views of ``a`` pass the callee's guard; with none (``a.shape[0] == 0``) its comprehension
    reads nothing back."""
    if can_use_gpu(a):
        return _stack([a.select(0, i) for i in range(a.shape[0])])
    raise TypeError("unsupported")


def stack_any(tensors):
    """Tensors of any dtype reach the callee's host branch."""
    return _stack(list(tensors))  # E: device-indirect-fallback


def batched(a):
    """Each pass binds ``ai`` to a view of ``a``: the list holds results of device ops on views
    of ``a``, which pass the callee's guard."""
    if can_use_gpu(a):
        slices = []
        for i in range(a.shape[0]):
            ai = a.select(0, i)
            slices.append(kernels.relu(ai))
        return _stack(slices)
    raise TypeError("unsupported")


def batched_others(a, others):
    """Each pass binds ``oi`` to one of ``others``, of any dtype."""
    if can_use_gpu(a):
        slices = []
        for i in range(a.shape[0]):
            oi = others[i]
            slices.append(kernels.relu(oi))
        return _stack(slices)  # E: device-indirect-fallback
    raise TypeError("unsupported")


def scaled_copy_(a, p=0.5):
    """``p`` defaults to a number, but the body tests whether it is a tensor: it may be one."""
    if can_use_gpu(a) and hasattr(p, "shape"):
        return _copy_(a, kernels.add(p, a))  # E: device-indirect-fallback
    raise TypeError("unsupported")
