"""An MPS backend as real ones look: a native path first, host fallbacks after it.

Each finding line carries ``# E: <code>``; every other line must stay silent."""
import ctypes
import random
import struct

import numpy as np

from ..._tensor import Tensor
from ..common.convert import from_numpy, to_numpy
from ..cpu import ops as cpu_ops
from . import kernels


# --- fallbacks (Rule 1) --------------------------------------------------------------------

def relu(a):
    if kernels.supported(a.dtype):
        return kernels.relu(a)
    return from_numpy(np.maximum(to_numpy(a), 0), a.dtype, a.device)  # E: device-readback


def matmul(a, b):
    if kernels.supported(a.dtype) and len(a.shape) == 2:
        return kernels.matmul(a, b)
    a_np = to_numpy(a)  # E: device-readback
    b_np = to_numpy(b)
    return from_numpy(a_np @ b_np, a.dtype, a.device)


def mm(a, b):
    return matmul(a, b)  # E: device-indirect-fallback


def fill_(a, value):
    arr = to_numpy(a)  # E: device-readback
    arr[...] = value
    return a


def add_(a, b):
    a_np = to_numpy(a)  # E: device-readback
    a_np += to_numpy(b)
    return a


def sort(a, dim=-1):
    host = a.to("cpu").tolist()  # E: device-cpu-target
    return from_numpy(np.array(sorted(host)), a.dtype, a.device)


def topk(a, k):
    values = sort(a)  # E: device-indirect-fallback
    return kernels.slice(values, 0, k)


def randn(shape, dtype, device):
    rng = np.random.default_rng()  # E: device-numpy
    return from_numpy(rng.standard_normal(shape), dtype, device)


def rand_python(n, device):
    return from_numpy(np.array([random.random() for _ in range(n)]), None, device)  # E: device-numpy


def arange(n, device):
    return from_numpy(np.arange(n), None, device)  # E: device-numpy


def argsort_on_cpu_backend(a):
    return cpu_ops.sort(a)  # E: device-cpu-backend


def cumsum(a):
    out = a.cpu().numpy().cumsum()  # E: device-cpu-call
    return from_numpy(out, a.dtype, a.device)


def silenced(a):
    arr = to_numpy(a)  # device-types: ignore[device-readback]
    return from_numpy(arr * 2, a.dtype, a.device)


def helper_cycle_a(a, depth):
    if depth:
        return helper_cycle_b(a, depth - 1)
    return from_numpy(to_numpy(a) + 1, a.dtype, a.device)  # E: device-readback


def helper_cycle_b(a, depth):
    return helper_cycle_a(a, depth)  # E: device-indirect-fallback


# --- not findings ----------------------------------------------------------------------------

def baddbmm(inp, b1, b2, beta, alpha):
    """On-device composite of working ops (Rule 2)."""
    return kernels.add(kernels.mul(inp, beta), kernels.mul(kernels.bmm(b1, b2), alpha))


def softplus(x):
    return kernels.log1p(kernels.exp(x))


def tensor(data, dtype, device):
    """Creating a device tensor from the user's Python data is host staging inherent to the op."""
    return from_numpy(np.array(data, dtype=dtype), dtype, device)


def numpy(a):
    """The D2H op itself."""
    return to_numpy(a).copy()


def tolist(a):
    return to_numpy(a).tolist()


def metadata(a, dim):
    numel = int(np.prod(a.shape))
    itemsize = np.dtype(a.dtype).itemsize
    args = struct.pack("qq", numel, itemsize)
    strides = tuple(np.array(a.stride) // itemsize)
    return kernels.reduce(a, ctypes.c_int64(dim), args, strides)


def host_sync_only(a, index):
    if int(index.max().item()) >= a.shape[0]:
        raise IndexError("index out of range")
    return kernels.index_select(a, index)


def to_numpy_private(t):
    return t._numpy_view()


def running_max(a, n):
    """What one iteration leaves reaches the next: the host copy made at the end of the body
    is uploaded at its start."""
    previous = None
    out = a
    for _ in range(n):
        if previous is not None:
            out = from_numpy(previous, a.dtype, a.device)
        previous = to_numpy(out).cumsum()  # E: device-readback
    return out


def running_max_on_device(a, n):
    """The same loop with the host copy only used for the loop's bound: nothing uploaded."""
    bound = n
    out = a
    for _ in range(bound):
        out = kernels.cummax(out)
        bound = to_numpy(out).shape[0]
    return out


def pad_rows(rows, width):
    """A host array filled row by row, then uploaded: the rows are copied into it, it views
    none of them (the second write is not a write into the first row's tensor)."""
    first = to_numpy(rows[0])  # E: device-readback
    out = np.zeros((len(rows), width), dtype=np.float32)
    for index in range(len(rows)):
        out[index, : first.shape[0]] = first
        out[index, first.shape[0]:] = 0.0
    return from_numpy(out, rows[0].dtype, rows[0].device)


def rescale_in_place(a, scale):
    """A host view of the tensor written through: still a write into the tensor."""
    view = to_numpy(a)  # E: device-readback
    view[:] = view * scale
    return a


def scatter_offsets(a, offsets):
    """Offsets read back, then written element by element into a tensor made on the device."""
    table = kernels.empty(len(a.shape), device=a.device)
    host = offsets.tolist()  # E: device-readback
    for index, value in enumerate(host):
        table[index] = value
    return kernels.index_select(a, table)


def record_shapes(a, sizes):
    """A host value written into a list that came in: no tensor is written."""
    sizes[0] = to_numpy(a).shape
    return kernels.index_select(a, a)


def clear_previous(a, n):
    """The host view one iteration makes is written through by the next."""
    view = None
    for _ in range(n):
        if view is not None:
            view[0] = 0.0
        view = to_numpy(a)  # E: device-readback
    return a


def accumulate_rows(a, rows):
    """What the outer loop carries is read in an inner loop of the next iteration."""
    total = None
    for row in rows:
        for _ in range(2):
            if total is not None:
                a = from_numpy(total, a.dtype, a.device)
        total = to_numpy(row).sum(axis=0)  # E: device-readback
    return a


def offsets_table(a, n):
    """Offsets from sizes alone, written into a tensor made on the device as the kernel's
    operand: metadata staged for it (issue 24), no finding."""
    table = kernels.empty(n, device=a.device)
    table[:] = np.arange(n)
    return kernels.index_select(a, table)


def offsets_result(a, n):
    """The same offsets written into the tensor the op returns: its result built on the host."""
    table = kernels.empty(n, device=a.device)
    table[:] = np.arange(n)  # E: device-numpy
    return table
