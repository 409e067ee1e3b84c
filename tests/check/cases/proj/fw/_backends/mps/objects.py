"""Round trips through the framework's objects: its CPU device object named through a module
(``_device.cpu``, an alias ``HOST`` of it), an op dispatched by a method of an object a call
returns (``backend_for(d).sort(x)``: ``x`` is its data), CuPy's ``x.get()`` with no argument, a
generator computing with the elements read back, a host-to-host copy into an ``np.empty``
buffer, and a nested def that uses its enclosing function's import. Each has a twin that is
no fallback."""
import ctypes

import numpy as np

from ... import _device
from . import kernels
from .kernels import backend_for


def sort_on_framework_cpu(a):
    host = a.to(_device.cpu)  # E: device-cpu-target
    return kernels.launch("sort", host).to(a.device)


def sort_on_alias(a):
    host = a.to(_device.HOST)  # E: device-cpu-target
    return kernels.launch("sort", host).to(a.device)


def sort_on_own_device(a):
    return kernels.launch("sort", a.to(a.device))


def dispatched_on_host_copy(a):
    host = a.cpu()  # E: device-cpu-call
    return backend_for(host.device).sort(host, 0).to(a.device)


def dispatched_on_device(a):
    return backend_for(a.device).sort(a, 0)


def unique_of_get(x):
    host = x.data.get()  # E: device-readback
    return kernels.upload(np.unique(host))


def lookup_with_get(x, table):
    return kernels.launch("gather", x, table.get("index"))


def dot_of_elements(a, b):
    total = sum(p * q for p, q in zip(a.tolist(), b.tolist()))  # E: device-readback
    return kernels.full((1,), total)


def count_of_sizes(a, sizes):
    longest = max(int(s) for s in sizes.tolist())
    return kernels.launch("pad", a, longest)


def lengths_of(a, lengths):
    """The nested readback primitive uses its enclosing function's import: no finding of its
    own; the op hands the lengths read back to a kernel (as candle's ctc_loss does)."""
    import numpy as host_np

    def read_lengths(t, nbytes):
        pinned = kernels.malloc_host(nbytes)
        kernels.memcpy_d2h(pinned, t.data_ptr(), nbytes)
        data = host_np.empty(nbytes, dtype=host_np.uint8)
        ctypes.memmove(data.ctypes.data, pinned, nbytes)
        return host_np.frombuffer(data.tobytes(), dtype=host_np.int64).tolist()

    return kernels.launch("ctc", a, read_lengths(lengths, 64))  # E: device-readback


def _on_host(t):
    """A predicate helper: whether its tensor is on the CPU."""
    return t.device.type == "cpu"


def sign_on_host_tensor(a):
    """Under the helper's CPU test, ``a`` is host memory: no device data is read."""
    if _on_host(a):
        return kernels.upload(np.sign(a.numpy()))
    return kernels.launch("sign", a)


def sign_off_host_tensor(a):
    if not _on_host(a):
        return kernels.upload(np.sign(a.numpy()))  # E: device-readback
    return kernels.launch("sign", a)
