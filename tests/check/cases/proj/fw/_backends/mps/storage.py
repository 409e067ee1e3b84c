"""A tensor's memory through its storage, and sizes read back for torch ops.

- The storage's host buffer (``t._storage.data``, ``t.untyped_storage().buffer()``) is a host
  view of the tensor, as ``t._numpy_view()`` is: reading it is a readback, and writing through
  it writes into the tensor (candle's mps ``diag``, 1-D branch).
- A helper that returns nothing and copies its caller's array into its caller's tensor is a
  write-back primitive (an upload, as ``from_numpy``): no finding of its own.
- A size, dim or split section of a torch op is metadata whatever it holds: counts read back
  for ``torch.split`` are a host sync, not host data the op computes with (torchmetrics'
  group statistics)."""
import numpy as np
import torch

from . import kernels
from ..common.convert import from_numpy


def diag(a, diagonal=0):
    if a.dim() == 1:
        n = a.shape[0] + abs(diagonal)
        out = kernels.launch("zeros", (n, n), a.dtype, device=a.device)
        dst = out._storage.data.reshape(n, n)  # E: device-readback
        src = a._storage.data
        for i in range(a.shape[0]):
            dst[i, i + diagonal] = src[i]
        return out
    return kernels.launch("diag", a, diagonal)


def logcumsumexp(a):
    raw = np.frombuffer(a.untyped_storage().buffer(), dtype=np.float32)  # E: device-readback
    return from_numpy(np.logaddexp.accumulate(raw), a.dtype, a.device)


def _write_back(t, arr):
    t._storage.data[:] = arr


def sgd_step(param, grad, lr):
    p = np.asarray(param._storage.data)  # E: device-readback
    _write_back(param, p - lr * np.asarray(grad._storage.data))
    return param


def storage_nbytes(a):
    return kernels.launch("empty", (a._storage.nbytes(),), a.dtype, device=a.device)


def group_sums(x, groups):
    sizes = kernels.launch("bincount", groups).cpu().tolist()
    return [kernels.launch("sum", part) for part in torch.split(x, sizes, dim=0)]


def group_sums_host(x, groups):
    sizes = kernels.launch("bincount", groups).cpu().tolist()
    parts = x.cpu().split(sizes)  # E: device-cpu-call
    return [part.sum().to(x.device) for part in parts]
