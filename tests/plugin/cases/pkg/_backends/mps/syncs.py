"""Implicit host syncs (device-host-sync, enabled for pkg._backends.mps in the case
configuration): conversions of a tensor to a Python scalar or bool, and ops whose result
size comes from tensor data. Conditions (``if t:``) are seen by the module pass only (no
mypy hook fires for them): the per-call dispatch (dmypy) does not report them."""

from __future__ import annotations

import torch

from device_types import MPS, Tensor


def conditions(x: Tensor[MPS], t: torch.Tensor) -> int:
    if x.any():  # E: a tensor condition waits for the device and converts it to a Python bool inside the mps backend (pkg._backends.mps); keep the value as a 0-d tensor on the device and select with torch.where; run device-types explain device-host-sync  [device-host-sync]
        return 1
    while t.all() and x.sum() > 0:  # E: a tensor condition waits for the device and converts it to a Python bool inside the mps backend (pkg._backends.mps); keep the value as a 0-d tensor on the device and select with torch.where; run device-types explain device-host-sync  [device-host-sync]
        pass
    assert not x.isnan().any()  # E: a tensor condition waits for the device and converts it to a Python bool inside the mps backend (pkg._backends.mps); keep the value as a 0-d tensor on the device and select with torch.where; run device-types explain device-host-sync  [device-host-sync]
    k = 1 if x.max() else 2  # E: a tensor condition waits for the device and converts it to a Python bool inside the mps backend (pkg._backends.mps); keep the value as a 0-d tensor on the device and select with torch.where; run device-types explain device-host-sync  [device-host-sync]
    return len([v for v in range(3) if x[v]]) + k  # E: a tensor condition waits for the device and converts it to a Python bool inside the mps backend (pkg._backends.mps); keep the value as a 0-d tensor on the device and select with torch.where; run device-types explain device-host-sync  [device-host-sync]


def conversions(x: Tensor[MPS], t: torch.Tensor) -> float:
    a = int(x.sum())  # E: "int()" of a tensor waits for the device and copies a scalar to the host inside the mps backend (pkg._backends.mps); keep the value as a 0-d tensor on the device; run device-types explain device-host-sync  [device-host-sync]
    b = float(t)  # E: "float()" of a tensor waits for the device and copies a scalar to the host inside the mps backend (pkg._backends.mps); keep the value as a 0-d tensor on the device; run device-types explain device-host-sync  [device-host-sync]
    c = bool(x.any())  # E: "bool()" of a tensor waits for the device and converts it to a Python bool inside the mps backend (pkg._backends.mps); keep the value as a 0-d tensor on the device and select with torch.where; run device-types explain device-host-sync  [device-host-sync]
    return a + b + c + int(3.5) + float("1")


def data_dependent_shapes(x: Tensor[MPS], t: torch.Tensor) -> None:
    x[x > 0]  # E: indexing with a boolean mask waits for the device to size the result from tensor data inside the mps backend (pkg._backends.mps); keep shapes static (torch.where, masked_fill, a fixed-size op); run device-types explain device-host-sync  [device-host-sync]
    m = (x > 0) & ~x.isnan()
    t[m]  # E: indexing with a boolean mask waits for the device to size the result from tensor data inside the mps backend (pkg._backends.mps); keep shapes static (torch.where, masked_fill, a fixed-size op); run device-types explain device-host-sync  [device-host-sync]
    x[x.isfinite()]  # E: indexing with a boolean mask waits for the device to size the result from tensor data inside the mps backend (pkg._backends.mps); keep shapes static (torch.where, masked_fill, a fixed-size op); run device-types explain device-host-sync  [device-host-sync]
    x[0]
    x[x.argmax()]
    torch.nonzero(x)  # E: "nonzero()" waits for the device to size the result from tensor data inside the mps backend (pkg._backends.mps); keep shapes static (torch.where, masked_fill, a fixed-size op); run device-types explain device-host-sync  [device-host-sync]
    x.nonzero()  # E: ".nonzero()" waits for the device to size the result from tensor data inside the mps backend (pkg._backends.mps); keep shapes static (torch.where, masked_fill, a fixed-size op); run device-types explain device-host-sync  [device-host-sync]
    x.masked_select(x > 0)  # E: ".masked_select()" waits for the device to size the result from tensor data inside the mps backend (pkg._backends.mps); keep shapes static (torch.where, masked_fill, a fixed-size op); run device-types explain device-host-sync  [device-host-sync]
    torch.masked_select(x, x > 0)  # E: "masked_select()" waits for the device to size the result from tensor data inside the mps backend (pkg._backends.mps); keep shapes static (torch.where, masked_fill, a fixed-size op); run device-types explain device-host-sync  [device-host-sync]
    torch.unique(x)  # E: "unique()" waits for the device to size the result from tensor data inside the mps backend (pkg._backends.mps); keep shapes static (torch.where, masked_fill, a fixed-size op); run device-types explain device-host-sync  [device-host-sync]
    x.unique()  # E: ".unique()" waits for the device to size the result from tensor data inside the mps backend (pkg._backends.mps); keep shapes static (torch.where, masked_fill, a fixed-size op); run device-types explain device-host-sync  [device-host-sync]
    torch.where(x > 0, x, 0.0)
    x.masked_fill(x > 0, 0.0)
