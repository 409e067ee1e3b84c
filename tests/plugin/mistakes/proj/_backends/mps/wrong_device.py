from __future__ import annotations

import torch

from device_types import CUDA, MPS, Tensor


def moved(x: Tensor[MPS]) -> Tensor[MPS]:
    return x.to("cuda")  # mistake: device-wrong-device; pyright: reportReturnType


def moved_then_used(x: Tensor[MPS]) -> Tensor[MPS]:
    y = x.to("cuda:1")  # mistake: device-wrong-device; pyright: reportArgumentType
    return torch.bmm(x, y)


def signature(x: Tensor[CUDA]) -> None:  # mistake: device-wrong-device; pyright: none
    pass
