from __future__ import annotations

import torch

from device_types import MPS, Tensor


def normalize(x: Tensor[MPS]) -> Tensor[MPS]:
    if x.abs().max().item() > 1.0:  # mistake: device-host-sync; pyright: none
        return x / x.abs().max()
    return x


def any_nan(x: Tensor[MPS]) -> Tensor[MPS]:
    if x.isnan().any():  # mistake: device-host-sync; pyright: none; advice: select with torch.where
        return torch.nan_to_num(x)
    return x


def count(x: Tensor[MPS]) -> int:
    return int(x.sum())  # mistake: device-host-sync; pyright: none; advice: keep the value as a 0-d tensor on the device


def positive(x: Tensor[MPS]) -> Tensor[MPS]:
    return x[x > 0]  # mistake: device-host-sync; pyright: none; advice: keep shapes static


def distinct(x: Tensor[MPS]) -> Tensor[MPS]:
    return torch.unique(x)  # mistake: device-host-sync; pyright: none; advice: keep shapes static


def mean_value(x: Tensor[MPS]) -> float:
    return float(x.mean())  # mistake: device-host-sync; pyright: none; advice: keep the value as a 0-d tensor on the device


def all_positive(x: Tensor[MPS]) -> bool:
    return bool((x > 0).all())  # mistake: device-host-sync; pyright: none; advice: "bool()" of a tensor waits for the device and converts it to a Python bool inside the mps backend (proj._backends.mps); keep the value as a 0-d tensor on the device and select with torch.where


def where_nonzero(x: Tensor[MPS]) -> Tensor[MPS]:
    return torch.nonzero(x)  # mistake: device-host-sync; pyright: none; advice: keep shapes static


def nonzero_method(x: Tensor[MPS]) -> Tensor[MPS]:
    return x.nonzero()  # mistake: device-host-sync; pyright: none; advice: keep shapes static


def selected(x: Tensor[MPS]) -> Tensor[MPS]:
    return torch.masked_select(x, x > 0)  # mistake: device-host-sync; pyright: none; advice: keep shapes static
