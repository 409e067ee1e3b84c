"""Helpers outside every backend, as backends import them from elsewhere in a package."""

from __future__ import annotations

import torch

from device_types import CUDA, Tensor


def on_cuda() -> Tensor[CUDA]:
    raise NotImplementedError


def positions(n: int) -> torch.Tensor:
    return torch.arange(n)  # a CPU tensor, typed as bare torch.Tensor (Tensor[Any])


def positions_unannotated(n: int):  # type: ignore[no-untyped-def]
    return torch.arange(n)  # no return type: Any
