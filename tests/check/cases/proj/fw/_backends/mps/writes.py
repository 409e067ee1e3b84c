"""numpy functions that write into their first argument (``np.add.at``, ``np.put``,
``np.copyto``) write into the tensor that argument views, on every path."""
import numpy as np

from ..common.convert import from_numpy, to_numpy


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


def fill_rows_by_host_index(a, index, value):
    """The index read back picks the rows the host writes through the view: part of that
    fallback, no separate host sync."""
    arr = to_numpy(a)  # E: device-readback
    for i in to_numpy(index).ravel():
        arr[int(i)] = value
    return a


def scatter_into_a_copy(a, index, src):
    """A private copy is written, then uploaded: the result is computed on the host (not a write
    through a view of ``a``)."""
    arr = to_numpy(a).copy()  # E: device-readback
    np.put_along_axis(arr, to_numpy(index), to_numpy(src), axis=0)
    return from_numpy(arr, a.dtype, a.device)
