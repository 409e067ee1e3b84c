from __future__ import annotations

import torch

from device_types import MPS, Tensor


def normalize(x: Tensor[MPS]) -> Tensor[MPS]:
    if x.abs().max().item() > 1.0:  # mistake: device-host-sync; pyright: none
        return x / x.abs().max()
    return x


def any_nan(x: Tensor[MPS]) -> Tensor[MPS]:
    if x.isnan().any():  # mistake: device-host-sync; pyright: none
        return torch.nan_to_num(x)
    return x


def count(x: Tensor[MPS]) -> int:
    return int(x.sum())  # mistake: device-host-sync; pyright: none


def positive(x: Tensor[MPS]) -> Tensor[MPS]:
    return x[x > 0]  # mistake: device-host-sync; pyright: none


def distinct(x: Tensor[MPS]) -> Tensor[MPS]:
    return torch.unique(x)  # mistake: device-host-sync; pyright: none
