"""Sizes read back for torch ops.

A size, dim or split section of a torch op is metadata whatever it holds: counts read back for
``torch.split`` are a host sync, not host data the op computes with (torchmetrics' group
statistics)."""
import torch

from . import kernels


def group_sums(x, groups):
    sizes = kernels.launch("bincount", groups).cpu().tolist()
    return [kernels.launch("sum", part) for part in torch.split(x, sizes, dim=0)]


def group_sums_host(x, groups):
    sizes = kernels.launch("bincount", groups).cpu().tolist()
    parts = x.cpu().split(sizes)  # E: device-cpu-call
    return [part.sum().to(x.device) for part in parts]
