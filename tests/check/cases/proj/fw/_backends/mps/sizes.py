"""Host data passed to a project helper: one that only sizes with it (a size, a dim, a device)
takes metadata, and the readback that made it is a host sync; one that computes with it
computes on the host."""
import numpy as np
import torch
import torch.nn.functional as F

from . import kernels


def resize(x, size):
    return F.interpolate(x, size=size, mode="bilinear")


def empty_of(size, device):
    return torch.empty(size, device=device)


def scale_by(x, factors):
    return kernels.mul(x, np.asarray(factors) * 2.0)


def resize_to_read_size(x, params):
    out_size = tuple(params[0].tolist())
    return resize(x, out_size)


def buffer_of_read_size(x, counts):
    return empty_of(int(counts.sum().item()), x.device)


def scale_by_read_factors(x, params):
    factors = params.tolist()  # E: device-readback
    return scale_by(x, factors)


def levels_of(x, levels):
    out = [x]
    for _ in range(levels - 1):
        out.append(kernels.launch("pool", out[-1]))
    return out


def pyramid_to_read_depth(x, counts):
    """A depth read back only counts a helper's loop: a host sync."""
    depth = len([c for c in counts.tolist() if c > 0])
    return levels_of(x, depth)


def bound_of(factor, device=None):
    """The user's number made a CPU tensor where it is not a tensor: no readback."""
    if device is None:
        device = torch.device("cpu")
    if not isinstance(factor, torch.Tensor):
        factor = torch.as_tensor(factor, device=device)
    return factor
