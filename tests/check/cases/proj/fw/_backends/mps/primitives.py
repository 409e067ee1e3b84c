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


def argmax_all(a):
    """The index read back, converted and written into the output's mapped memory: the result is
    made on the host (a fallback)."""
    out = kernels.launch("alloc", 4)
    kernels.launch("argmax", a, out)
    idx = struct.unpack("I", bytes((ctypes.c_char * 4).from_address(buffer_address(out))))[0]  # E: device-readback
    result = kernels.launch("alloc", 8)
    struct.pack_into("q", (ctypes.c_char * 8).from_address(buffer_address(result)), 0, int(idx))
    return Storage(result, 8)


def fill_with(a, value):
    """The user's scalar packed into a device buffer's mapped memory: an operand staged, no finding."""
    buf = kernels.launch("alloc", 8)
    struct.pack_into("d", (ctypes.c_char * 8).from_address(buffer_address(buf)), 0, value)
    return kernels.launch("fill", a, buf)
