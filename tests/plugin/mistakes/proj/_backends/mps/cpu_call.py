from __future__ import annotations

import torch

from device_types import MPS, Tensor


def softplus(x: Tensor[MPS]) -> Tensor[MPS]:
    return torch.nn.functional.softplus(x.cpu())  # mistake: device-cpu-call; pyright: reportReturnType


def returned(x: Tensor[MPS]) -> Tensor[MPS]:
    return x.cpu()  # mistake: device-cpu-call; pyright: reportReturnType


def bare(x: torch.Tensor) -> torch.Tensor:
    return x.cpu()  # mistake: device-cpu-call; pyright: none


def consumed(x: Tensor[MPS]) -> Tensor[MPS]:
    h = x.cpu()  # mistake: device-cpu-call; pyright: reportOperatorIssue
    return x + h


def pinned(x: Tensor[MPS]) -> Tensor[MPS]:
    return x.pin_memory() * 2  # mistake: device-cpu-call; pyright: reportReturnType
