"""Pattern 3: after an early-return device guard the rest handles a host value (user data);
pattern 4: metadata, and device tensors collected in a loop, are not host-built data."""
import numpy as np

from ..common.host import to_numpy


def _to_index_tensor(key, device):
    if key.device.type == "npu":
        return key
    arr = key.numpy().astype(np.int64)  # a CPU tensor the user passed: staged, not read back
    return device.tensor(arr, device=device)


def getitem(a, key):
    return a.device.index_kernel(a, _to_index_tensor(key, a.device))


def _broadcast_shape(a, b):
    s = list(a.shape)
    t = [1] * (len(s) - len(b.shape)) + list(b.shape)
    return [max(x, y) for x, y in zip(s, t)]


def _broadcast_to(x, shape):
    host = to_numpy(x)  # E: device-readback
    return x.device.tensor(np.broadcast_to(host, shape) + 0, device=x.device)


def where(cond, a, b):
    shape = _broadcast_shape(a, b)
    keys = []
    for t in (cond, a, b):
        keys.append(_broadcast_to(t, shape))  # E: device-indirect-fallback
    return a.device.where_kernel(*keys)


def where_same_shape(cond, a, b):
    outs = []
    for t in (cond, a, b):
        outs.append(t.device.contiguous_kernel(t))
    return a.device.where_kernel(*outs, shape=[s for s in a.shape])
