"""What review used to catch by grep, and what it missed: each policy error once."""

from __future__ import annotations

import numpy as np
import torch

from candle.models import shared_weights
from device_types import CPU, MPS, Tensor


def to_host(x: torch.Tensor) -> torch.Tensor:
    return x.cpu()


def nonzero_indices(mask: torch.Tensor) -> list[int]:
    return [i for i, v in enumerate(mask.tolist()) if v]


def staging_buffer(x: torch.Tensor) -> torch.Tensor:
    return torch.empty(x.shape, device="cpu")


def remainder_via_numpy(a: torch.Tensor, b: torch.Tensor) -> np.ndarray:
    return np.remainder(a.detach(), b.detach())


def lengths(x: Tensor[MPS]) -> Tensor[CPU]:
    raise NotImplementedError


def add_positions(x: torch.Tensor) -> torch.Tensor:
    return x + torch.arange(x.shape[-1])


def borrow_a_gpu(x: Tensor[MPS]) -> None:
    y = x.to("cuda")
    torch.bmm(x, y)


def normalize(x: Tensor[MPS]) -> Tensor[MPS]:
    if x.abs().max().item() > 1.0:
        return x / x.abs().max()
    return x


def typo(x: Tensor[MPS]) -> torch.Tensor:
    return torch.zeros(3, device="gpu")


def weights_from_elsewhere(x: Tensor[MPS]) -> Tensor[MPS]:
    return torch.bmm(x, shared_weights())
