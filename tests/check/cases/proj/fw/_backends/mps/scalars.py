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
