"""What a host index picks: a callable or an operand (control flow, a host sync at most), the
elements of a gather from an index map of metadata (no finding), and a readback rearranged
(a view of the host data, still a primitive), each beside the form that is a fallback."""
import torch

from . import kernels


def steps_in_drawn_order(x, order, steps):
    """A read-back int only chooses which callable runs: every step is the device's."""
    out = x
    for idx in order.tolist():
        out = steps[idx](out)
    return out


def factor_in_drawn_order(x, factors, order):
    out = x
    for idx in order.tolist():
        out = kernels.mul(out, factors[idx])
    return out


def rows_in_drawn_order(x, order):
    """The same readback collecting rows into the result: the host loop assembles it."""
    rows = []
    for idx in order.tolist():  # E: device-readback
        rows.append(x[idx])
    return kernels.launch("stack", rows)


def pad_by_index_map(img, left):
    """Indices from sizes and the user's padding, uploaded only as the gather's index."""
    cols = [i for i in range(left - 1, -1, -1)] + [i for i in range(img.shape[-1])]
    index = torch.tensor(cols, device=img.device)
    return img[..., index]


def index_map_returned(img, left):
    """The same map returned as the op's result: built on the host."""
    cols = [i for i in range(left - 1, -1, -1)] + [i for i in range(img.shape[-1])]  # E: device-numpy
    return torch.tensor(cols, device=img.device)


def to_image(t):
    """The device-to-host copy is this function's job; a permute only rearranges what it read."""
    return t.cpu().permute(1, 2, 0).numpy()


def to_image_uploaded(t):
    return torch.from_numpy(t.cpu().permute(1, 2, 0).numpy()).to(t.device)  # E: device-cpu-call
