"""Pattern 10: a mode parameter normalised at the top of the body (``if mode == "edge":
mode = "replicate"``): a later test of it still reads what the caller passed, through the
normalisation, so a caller that passes "constant" never takes the host path."""
import numpy as np

from ..common.host import from_numpy


def _pad_symmetric(x, padding):
    padded = np.pad(x.numpy(), padding, mode="symmetric")  # E: device-readback
    return from_numpy(padded, "float32", x.device)


def pad(x, padding, mode):
    if mode == "edge":
        mode = "replicate"
    if mode == "constant":
        return x.device.pad_kernel(x, padding, 0.0)
    elif mode == "replicate":
        return x.device.pad_kernel(x, padding, mode)
    return _pad_symmetric(x, padding)  # E: device-indirect-fallback


def pad_constant(x, padding):
    return pad(x, padding, "constant")


def pad_edge(x, padding):
    return pad(x, padding, "edge")


def pad_symmetric(x, padding):
    return pad(x, padding, "symmetric")  # E: device-indirect-fallback
