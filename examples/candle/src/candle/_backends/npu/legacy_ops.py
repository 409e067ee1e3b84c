"""NPU ops as real backends are written: untyped, the framework's own helpers, native
kernels first and host paths after them. mypy checks no unannotated body (and this module
is excluded from the strict run); `device-types check` reads it as it is."""

import numpy as np

from . import host


def _soc_fallback(op):
    return op in ("cumsum", "sort")


def cumsum(a, dim):
    if not _soc_fallback("cumsum"):
        return host.launch("aclnnCumsum", a, dim)
    values = host.to_numpy(a)
    return host.from_numpy(np.cumsum(values, axis=dim), a.dtype, a.device)


def logcumsumexp(a, dim):
    return host.launch("aclnnLog", cumsum(host.launch("aclnnExp", a), dim))


def randn(shape, dtype, device):
    return host.from_numpy(np.random.default_rng().standard_normal(shape), dtype, device)


def index_select(a, dim, index):
    if int(host.launch("aclnnMax", index).item()) >= a.shape[dim]:
        raise IndexError("index out of range")
    return host.launch("aclnnIndexSelect", a, dim, index)


def softplus(a):
    """An on-device composite of working kernels (Rule 2): clean."""
    return host.launch("aclnnLog1p", host.launch("aclnnExp", a))


def full(shape, value, dtype, device):
    """Creation from the user's data, with numpy for the metadata only: clean."""
    numel = int(np.prod(shape))
    return host.launch("aclnnFill", numel, np.dtype(dtype).itemsize, value, device)
