"""Runtime bindings: device-to-host and device-to-device copies, and the chip's predicates."""
import numpy as np

from . import acl


def memcpy_d2h(host_ptr, nbytes, device_ptr):
    acl.rt.memcpy(host_ptr, nbytes, device_ptr, nbytes, acl.ACL_MEMCPY_DEVICE_TO_HOST)


def memcpy_d2d(dst, src, nbytes):
    acl.rt.memcpy(dst, nbytes, src, nbytes, acl.ACL_MEMCPY_DEVICE_TO_DEVICE)


def copy_to_host(t):
    out = np.empty(t.shape, dtype=t.dtype)
    memcpy_d2h(out.ctypes.data, out.nbytes, t.data_ptr())
    return out


def use_soc_fallback(op_name):
    return op_name in ("gather", "nonzero")
