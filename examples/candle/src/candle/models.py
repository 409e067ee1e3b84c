"""Outside the backends the policy does not apply: host code may use the host."""

from __future__ import annotations

import numpy as np
import torch

from device_types import CUDA, Tensor


def to_host(t: torch.Tensor) -> np.ndarray:
    return t.detach().cpu().numpy()


def summary(t: torch.Tensor) -> list[float]:
    values: list[float] = t.flatten().tolist()
    return values


def shared_weights() -> Tensor[CUDA]:
    """Weights another part of the program keeps on a CUDA device."""
    return torch.ones(3, 3, 3, device="cuda")
