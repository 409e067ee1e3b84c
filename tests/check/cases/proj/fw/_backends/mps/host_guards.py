"""Tests that a value is on the host, in other frameworks' spellings: only what they hold to be
host data reaches the CPU backend. Code after a ``return`` never runs."""
import numpy as np

from . import _native  # noqa: F401 (a compiled module: not in this project)
from ..common.convert import from_numpy, to_numpy
from ..cpu import ops as cpu_ops
from . import kernels


def sort_if_numpy(x, dim=-1):
    if isinstance(x, np.ndarray):
        return cpu_ops.sort(x, dim=dim)
    return kernels.launch("sort", x, dim)


def sort_unless_cuda_array(x, dim=-1):
    if not _native.is_cuda_array(x):
        return cpu_ops.sort(x, dim=dim)
    return kernels.launch("sort", x, dim)


def sort_on_named_cpu(x, dim=-1):
    if x.device_name() == "cpu":
        return cpu_ops.sort(x, dim=dim)
    return kernels.launch("sort", x, dim)


def sort_on_module_cpu(x, dim=-1):
    if x.device == _native.cpu:
        return cpu_ops.sort(x, dim=dim)
    return kernels.launch("sort", x, dim)


def sort_if_cuda_array(x, dim=-1):
    """The host branch is the other one: a CUDA array reaches the CPU backend here."""
    if _native.is_cuda_array(x):
        return cpu_ops.sort(x, dim=dim)  # E: device-cpu-backend
    return kernels.launch("sort", x, dim)


def silu(x):
    return kernels.launch("silu", x)
    host = to_numpy(x)
    return from_numpy(host / (1.0 + np.exp(-host)), x.dtype, x.device)


def upload_array(arr, manager):
    """The framework's upload, named as one: its body (a manager's method) does not show it."""
    return manager.tensor(arr)


def sort_synced(x):
    host = x.sync_local().data()  # E: device-readback
    return upload_array(np.sort(host), x.manager)


def eye(n, manager):
    return upload_array(np.eye(n), manager)  # E: device-numpy
