"""CUDA kernels: device-generic helpers keep the caller's device."""

from __future__ import annotations

from typing import TypeVar

import torch

from device_types import CUDA, Device, Tensor

D = TypeVar("D", bound=Device)


def scaled_add(a: Tensor[D], b: Tensor[D], alpha: float) -> Tensor[D]:
    return a + b * alpha


def fused_bias_relu(x: Tensor[CUDA], bias: Tensor[CUDA]) -> Tensor[CUDA]:
    return torch.relu(scaled_add(x, bias, 1.0))


def arange_on(x: Tensor[CUDA], n: int) -> Tensor[CUDA]:
    return torch.arange(n, device=x.device) + x[:n]
