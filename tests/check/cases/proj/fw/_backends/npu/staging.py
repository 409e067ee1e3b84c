"""Host staging of the user's data for an upload: ``numpy_to_ptr`` goes from numpy, not to it,
so the pointer it gives is no readback."""
from . import acl


def stage_host_array(arr, device_ptr):
    host_ptr = acl.util.numpy_to_ptr(arr)
    acl.rt.memcpy(device_ptr, arr.nbytes, host_ptr, arr.nbytes, 1)
    return device_ptr

