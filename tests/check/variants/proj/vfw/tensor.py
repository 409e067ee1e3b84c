"""The framework's tensor class (torch's API, not torch's class) and its factories."""
import numpy as np


class device:
    def __init__(self, spec):
        self.type, _, index = spec.partition(":")
        self.index = int(index) if index else None


class Tensor:
    def __init__(self, storage, shape, dtype, device=None):
        self._storage = storage
        self.shape = shape
        self.dtype = dtype
        self.device = device

    def _numpy_view(self):
        if self.device.type != "cpu":
            return self.to("cpu")._numpy_view()
        return np.asarray(self._storage).reshape(self.shape)

    def to(self, target=None, dtype=None, device=None):
        from .functional import dispatch
        return dispatch("to", self, target, dtype=dtype, device=device)


def tensor(data, dtype=None, device=None):
    arr = np.asarray(data, dtype=dtype)
    return Tensor(arr, arr.shape, arr.dtype, device=device)
