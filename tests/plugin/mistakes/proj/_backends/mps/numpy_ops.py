from __future__ import annotations

import numpy as np
import torch

from device_types import MPS, Tensor


def remainder(a: torch.Tensor, b: torch.Tensor) -> object:
    return np.remainder(a.detach(), b.detach())  # mistake: device-numpy; pyright: none


def host_noise(x: Tensor[MPS]) -> Tensor[MPS]:
    noise = np.random.default_rng(0).standard_normal(3)  # mistake: device-numpy; pyright: none
    return x + torch.from_numpy(noise).to(x.device)


def host_built(x: Tensor[MPS]) -> Tensor[MPS]:
    return x + torch.tensor(np.arange(3), device=x.device)  # mistake: device-numpy; pyright: none
