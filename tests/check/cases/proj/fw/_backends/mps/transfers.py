"""Copies we cannot see into, read by what they are given: into host memory (``np.empty``) from
the op's tensors is a read to the host; from host data beside the op's tensors, an upload; a
wrapper of one leaves the direction to its callers. A function that narrows its argument to a
class (``isinstance``) calls that class's methods; a device's attributes name the device."""
import numpy as np

from . import _native  # noqa: F401 (a compiled module: not in this project)
from ..common.convert import from_numpy
from ..cpu import ops as cpu_ops
from . import kernels


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


def devices(backend=None):
    return _native.devices(backend)


def to_device(x, device=None):
    """The framework's transfer: to the device named."""
    return _native.transfer(x, device)


def sort_values(a):
    return from_numpy(np.sort(a._npy_value), a.dtype, a.device)  # E: device-readback


def searchsorted(sequence, values):
    cpu = devices(backend="cpu")[0]
    host = to_device(values, device=cpu)  # E: device-cpu-target
    return to_device(np.searchsorted(np.asarray(sequence), host), sequence.device)


def to_accelerator(values, like):
    """Named a device that is not the CPU: no read to the host."""
    return to_device(values, device=like.device)


def sort_host_arrays(a, dim=-1):
    """Only arrays already on the host (JAX's ``x.device().platform``) reach the CPU backend;
    ``dim`` passed beside is no tensor."""
    if a.device().platform == "cpu":
        return cpu_ops.sort(a, dim=dim)
    return kernels.launch("sort", a, dim)


def sort_any_array(a, dim=-1):
    return cpu_ops.sort(a, dim=dim)  # E: device-cpu-backend


def _map(queue, buf, shape, dtype):
    """Device memory mapped into the host (a read by its name), given a size beside."""
    raw, event = _native.map_buffer(queue, buf, int(np.prod(shape)))
    return np.frombuffer(raw, dtype).reshape(shape), event


def scale_(a, factor):
    view, event = _map(a.queue, a.data, a.shape, a.dtype)  # E: device-readback
    event.wait()
    view *= factor
    return a


def to_tensor(data, dtype=None, place=None):
    """Paddle's spelling: ``place=`` names the device a tensor is made on."""
    return _native.to_tensor(data, dtype, place)


def segment_sum(x, segment_ids):
    """``np.array(x)`` of a tensor (``x.place``: numpy data has none) reads it back."""
    hx, hs = np.array(x), np.array(segment_ids)  # E: device-readback
    out = np.zeros((int(hs.max()) + 1,) + hx.shape[1:], hx.dtype)
    np.add.at(out, hs, hx)
    return to_tensor(out, place=x.place)


def linspace(start, stop, num, place=None):
    return to_tensor(np.linspace(start, stop, num), place=place)  # E: device-numpy


def to_host_place(x):
    """The framework's copy to ``CPUPlace()``: the read primitive itself."""
    return to_tensor(x, place=CPUPlace())


class CPUPlace:
    pass


def to_numpy_ref(a):
    """The framework's read, named as one: its body (a native call) does not show it."""
    return _native.fetch(a.handle)


def gammaln(a):
    return from_numpy(np.log(to_numpy_ref(a)), a.dtype, a.device)  # E: device-readback


def argsort_host(a):
    """An array constructor of the framework (``mx.array(...)``) makes a device array."""
    return _native.array(np.argsort(np.asarray(a)))  # E: device-numpy
