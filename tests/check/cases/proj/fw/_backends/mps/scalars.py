"""Scalars read back: one staged as a kernel's operand, or a count sizing the output, is a host
sync; scalars reduced by a host loop are the result computed on the host."""
import torch


def sum_by_host_loop(a):
    total = 0.0
    for i in range(a.shape[0]):
        total += a[i].item()  # E: device-readback
    return torch.full((1,), total, device=a.device)


def count_sizes_output(a, sizes):
    """The same loop summing sizes for ``torch.empty``: a size, not data (a host sync)."""
    count = 0
    for i in range(sizes.shape[0]):
        count += int(sizes[i].item())
    return torch.empty(count, device=a.device)


def max_as_fill_value(a):
    """One scalar read back and staged as the fill value: a host sync."""
    return torch.full(a.shape, a.max().item(), device=a.device)


def _invalid_range(raises, low, high):
    if raises:
        raise ValueError(f"values out of range: [{low}, {high}]")
    return False


def check_range(x, raises=True):
    """Read back only to validate; the helper given the values returns a literal: a host sync."""
    low, high = torch.stack(torch.aminmax(x)).tolist()
    if not (0.0 <= low and high <= 1.0):
        return _invalid_range(raises, low, high)
    return True


def taps_as_scalars(hist, weight):
    """The elements of a 1-D readback, each a kernel's scalar operand: a host sync."""
    taps = weight.tolist()
    out = torch.mul(hist, taps[0])
    for value in taps[1:]:
        out.add_(hist, alpha=value)
    return out


def per_class_values(scores):
    """Computed on the device, handed out as the API's Python floats: a host sync."""
    ap = scores.mean(dim=1)
    return ap.mean(), {c: float(v) for c, v in enumerate(ap.tolist())}


def matrices_from_readback(xs, device):
    """The same elements written one by one into device tensors by a host loop: the data itself
    goes through the host."""
    out = []
    for x in xs.tolist():  # E: device-readback
        m = torch.eye(3, device=device)
        m[0, 2] = x
        out.append(m)
    return torch.stack(out)
