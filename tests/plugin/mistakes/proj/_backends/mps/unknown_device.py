from __future__ import annotations

import torch

from device_types import MPS, Tensor


def typo(x: Tensor[MPS]) -> torch.Tensor:
    return torch.zeros(3, device="gpu")  # mistake: device-unknown-device; pyright: none
