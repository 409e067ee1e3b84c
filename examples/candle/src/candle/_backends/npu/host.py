"""The framework's host helpers: a readback and an upload primitive (never findings
themselves; the ops that compute with their data are) and the kernel launcher."""

import numpy as np


def to_numpy(t):
    return t._numpy_view()


def from_numpy(arr, dtype, device):
    return device.allocate(np.ascontiguousarray(arr), dtype, device=device)


def launch(kernel, *args):
    return (kernel, args)
