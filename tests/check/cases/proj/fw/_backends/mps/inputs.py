"""numpy computing with what an op is given, as it was given (a parameter, or that parameter
made an array): whether it is a tensor read through ``__array__`` or the user's data, the
result it uploads is built on the host. Staging the user's data as it is, a number computed
from a size, and a helper that hands its numpy result back are not."""
import numpy as np

from ..common.convert import from_numpy
from . import kernels


def isin(elements, test_elements):
    found = np.isin(np.asarray(elements), np.asarray(test_elements))  # E: device-numpy
    return from_numpy(found, "bool", "mps")


def clip(values, low, high):
    return from_numpy(np.clip(values, low, high), "float32", "mps")  # E: device-numpy


def as_tensor(data):
    """The user's data staged as it is."""
    return from_numpy(np.ascontiguousarray(np.asarray(data, dtype=np.float32)), "float32", "mps")


def window_start(a, output_size):
    """A bound computed from sizes: metadata."""
    start = int(np.floor(a.shape[-1] / output_size[0]))
    return kernels.launch("narrow", a, start)


def _probit(p):
    """Host math on what it is given, handed back: its caller's data, not an upload here."""
    p = np.asarray(p, dtype=np.float64)
    return np.sqrt(2.0) * np.abs(p - 0.5)


def tile(a, repeats):
    """A shape numpy computes from sizes and the user's repeats is host memory: its ``.tolist()``
    reads nothing from a device."""
    out_shape = np.multiply(list(a.shape), list(repeats)).tolist()
    return kernels.launch("repeat", a, out_shape)


def flip(a, axis):
    """Axes numpy normalises (an array still, after ``%``) are host memory: their ``.tolist()``
    reads nothing back, nor syncs."""
    axes = np.atleast_1d(np.asarray(axis, dtype=np.int64)) % a.ndim
    return kernels.launch("flip", a, sorted(set(axes.tolist())))


def permute(a, axes):
    """Strides numpy computes from the shape, converted and indexed: host memory still."""
    strides = np.concatenate([np.cumprod(a.shape[::-1])[::-1][1:], [1]]).astype(np.int64)
    return kernels.launch("permute", a, strides[list(axes)].tolist())
