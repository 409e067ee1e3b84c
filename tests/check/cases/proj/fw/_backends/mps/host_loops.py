"""What a host loop builds from data read back: a histogram indexed by the values, indices kept
by a test of them, in a loop or a comprehension's filter; and the same loops over sizes or
counters, or putting device tensors into a list's slots, which compute nothing on the host."""
import torch

from . import kernels
from ..common.staging import Staging


def histogram(a, n):
    counts = [0] * n
    for v in a.tolist():  # E: device-readback
        counts[v] += 1
    return torch.tensor(counts, device=a.device)


def histogram_of_sizes(a, n):
    counts = [0] * n
    for i in range(n):
        counts[i] += a.shape[0]
    return torch.tensor(counts, device=a.device)


def run_starts(a):
    host = a.cpu()  # E: device-cpu-call
    keep = [i for i in range(1, host.numel()) if host[i] != host[i - 1]]
    return kernels.launch("gather", a, torch.tensor(keep, device=a.device))


def run_starts_loop(a):
    host = a.cpu()  # E: device-cpu-call
    keep = []
    for i in range(1, host.numel()):
        if host[i] != host[i - 1]:
            keep.append(i)
    return kernels.launch("gather", a, torch.tensor(keep, device=a.device))


def slots_by_readback(a, rows):
    """Device tensors put into a list's slots at indices read back: where the host puts them,
    not what they hold (a host sync)."""
    out = [None] * a.shape[0]
    for row in rows.tolist():
        out[row] = a[row]
    return out


def cpu_flag_guard(a):
    if a.is_cpu:
        return torch.from_numpy(a.numpy().cumsum(0))
    return kernels.launch("cumsum", a)


def helper_given_computed(a):
    y = a.cpu()  # E: device-cpu-call
    return kernels.launch("finish", y.log())


def staging_made_on_demand(a, staging=None):
    staging = staging or Staging(a.device)
    return staging.push(staging.pull(a).exp())  # E: device-readback
