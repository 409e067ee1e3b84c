from __future__ import annotations

import torch

from device_types import MPS, Tensor


def staging(x: Tensor[MPS]) -> None:
    y = torch.empty(x.shape, device="cpu")  # mistake: device-cpu-target; pyright: none
    y.copy_(x)


def to_host(x: Tensor[MPS]) -> Tensor[MPS]:
    return x.to("cpu")  # mistake: device-cpu-target; pyright: reportReturnType


def built_on_host(x: Tensor[MPS]) -> Tensor[MPS]:
    return x + torch.zeros(3, device="cpu")  # mistake: device-cpu-target; pyright: reportOperatorIssue
