"""Readback primitives of a scalar: a helper that only returns its argument's value as a Python
scalar (``.item()``, a raw read of its buffer decoded with ``struct``) is no finding of its own;
the op that stages the scalar as a kernel operand is the host sync (opt-in). Memory mapped into
a storage the helper returns decides nothing: no finding."""
import ctypes
import struct

import numpy as np

from ._metal import Storage, buffer_address
from . import kernels


def _item_of(t):
    return t.item()


def scale_by_item(a, s):
    return kernels.launch("mul_scalar", a, _item_of(s))


def _read_float(t):
    ptr = buffer_address(t)
    raw = bytes((ctypes.c_char * 4).from_address(ptr))
    return struct.unpack("f", raw)[0]


def scale_by_raw_read(a, s):
    return kernels.launch("mul_scalar", a, _read_float(s))


def _wrap_buffer(buf, nbytes):
    ptr = buffer_address(buf)
    view = np.frombuffer((ctypes.c_uint8 * nbytes).from_address(ptr), dtype=np.uint8)
    return Storage(buf, nbytes, data=view)
