"""Runtime bindings: a D2H memcpy primitive, as NPU runtimes have."""
import numpy as np

from . import acl


def memcpy_d2h(host_ptr, nbytes, device_ptr):
    acl.rt.memcpy(host_ptr, nbytes, device_ptr, nbytes, acl.ACL_MEMCPY_DEVICE_TO_HOST)


def copy_to_host(ptr, shape, dtype):
    out = np.empty(shape, dtype=dtype)
    memcpy_d2h(out.ctypes.data, out.nbytes, ptr)
    return out


def alloc(shape, device):
    return acl.rt.malloc(shape, device)
