"""Host staging of the user's data for an upload: ``numpy_to_ptr`` goes from numpy, not to it,
so the pointer it gives is no readback."""
import ctypes

import numpy as np

from . import acl, runtime


def stage_host_array(arr, device_ptr):
    host_ptr = acl.util.numpy_to_ptr(arr)
    acl.rt.memcpy(device_ptr, arr.nbytes, host_ptr, arr.nbytes, 1)
    return device_ptr



def _read_count(t):
    """A readback primitive of one scalar, through the runtime's D2H wrapper into a ctypes value."""
    buf = ctypes.c_int64()
    runtime.memcpy_d2h(ctypes.addressof(buf), 8, t.data_ptr())
    return int(buf.value)


def nonzero_sized(a):
    """The count read back sizes the output: a host sync here (opt-in), none in ``_read_count``."""
    return acl.nonzero(a, _read_count(acl.count_nonzero(a)))


def zeros_staged(shape, device):
    """Zeros made on the host and copied into a tensor allocated on the device: the result is
    built on the host."""
    host = np.zeros(shape, dtype=np.float32)  # E: device-numpy
    out = runtime.alloc(shape, device)
    acl.rt.memcpy(out.data_ptr, host.nbytes, host.ctypes.data, host.nbytes, 1)
    return out


def ones_on_device(shape, device):
    out = runtime.alloc(shape, device)
    acl.fill(out, 1.0)
    return out
