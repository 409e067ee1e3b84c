"""Helpers outside the backend, as a package has them."""

from __future__ import annotations

import torch

from device_types import CPU, CUDA, Tensor


def on_cuda() -> Tensor[CUDA]:
    raise NotImplementedError


def host_table() -> Tensor[CPU]:
    return torch.ones(3)


def positions(n: int) -> torch.Tensor:
    return torch.arange(n)  # on the CPU at run time; typed Tensor[Any]
