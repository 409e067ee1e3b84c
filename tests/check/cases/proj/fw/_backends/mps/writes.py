"""numpy functions that write into their first argument (``np.add.at``, ``np.put``,
``np.copyto``) write into the tensor that argument views, on every path."""
import numpy as np

from ..common.convert import to_numpy


def index_put_(a, idx, vals, accumulate=False):
    arr = to_numpy(a)  # E: device-readback
    if accumulate:
        np.add.at(arr, idx, vals)
    else:
        arr[idx] = vals
    return a


def add_at_only(a, idx, vals):
    np.add.at(to_numpy(a), idx, vals)  # E: device-readback
    return a


def add_at_copy(a, idx, vals):
    local = np.zeros(4)
    np.add.at(local, idx, vals)
    return a
