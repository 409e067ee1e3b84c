from __future__ import annotations

import torch

from device_types import MPS, Tensor, assert_device
from proj.helpers import positions


def add_positions(x: Tensor[MPS], n: int) -> Tensor[MPS]:
    return x + positions(n)  # mistake: device-unknown-operand; pyright: none; advice: of unknown device


def checked(x: Tensor[MPS], n: int) -> Tensor[MPS]:
    return x + assert_device(positions(n), MPS)


def composite(x: Tensor[MPS], y: Tensor[MPS]) -> Tensor[MPS]:
    return torch.add(torch.mul(x, 2.0), torch.bmm(x, y) * 0.5)
