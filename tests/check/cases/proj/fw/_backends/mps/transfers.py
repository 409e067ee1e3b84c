"""Copies we cannot see into, read by what they are given: into host memory (``np.empty``) from
the op's tensors is a read to the host; from host data beside the op's tensors, an upload; a
wrapper of one leaves the direction to its callers. A function that narrows its argument to a
class (``isinstance``) calls that class's methods; a device's attributes name the device."""
import numpy as np

from . import _native  # noqa: F401 (a compiled module: not in this project)
from ..common.convert import from_numpy


def enqueue_copy(queue, dest, src):
    return _native.enqueue_copy(queue, dest, src)


class Buffer:
    def __init__(self, handle, shape, dtype):
        self.handle, self.shape, self.dtype = handle, shape, dtype

    def fetch_host(self):
        out = np.empty(self.shape, self.dtype)
        _native.copy_to_host(self.handle, out)
        return out


def download(a):
    """A read primitive: the copy into host memory, returned as it is."""
    host = np.empty(a.shape, a.dtype)
    enqueue_copy(a.queue, host, a.data)
    return host


def pull(x):
    return x.fetch_host() if isinstance(x, Buffer) else x


def put(arr, device):
    return _native.buffer_from(arr, device.platform, device.id)


def sort_(a):
    host = np.empty(a.shape, a.dtype)
    enqueue_copy(a.queue, host, a.data)  # E: device-readback
    host.sort(axis=-1)
    enqueue_copy(a.queue, a.data, host)
    return a


def copy_(dst, src):
    """Device to device: no host memory in it."""
    enqueue_copy(dst.queue, dst.data, src.data)
    return dst


def exp_on_host(a):
    return from_numpy(np.exp(download(a)), a.dtype, a.device)  # E: device-readback


def log_on_host(a):
    return from_numpy(np.log(pull(a)), a.dtype, a.device)  # E: device-readback


def eye_like(n, like):
    return put(np.eye(n), like.device())  # E: device-numpy


def cumsum_read_with_queue(a):
    return from_numpy(np.cumsum(a.get(queue=a.queue)), a.dtype, a.device)  # E: device-readback


def index_fill_(a, index, value):
    view = a._host_view()  # E: device-readback
    view[index] = value
    return a
