"""device-unknown-operand (opt-in; enabled for this module only in the case configuration): a
tensor of unknown device mixed into device math. Elsewhere in the case package the code is
off, and none of its messages appears."""

from __future__ import annotations

from typing import Any

import torch

from device_types import MPS, Tensor, assert_device
from pkg.helpers import positions, positions_unannotated


def mixes(x: Tensor[MPS], n: int) -> Tensor[MPS]:
    a = x + positions(n)  # E: "+" mixes a tensor on mps with the result of "positions()" of unknown device (Tensor[Any]) inside the mps backend (pkg._backends.mps); type it Tensor[MPS] where it is made, or check it with assert_device; run device-types explain device-unknown-operand  [device-unknown-operand]
    b = x * positions_unannotated(n)  # E: "*" mixes a tensor on mps with the result of "positions_unannotated()" of unknown device (Any) inside the mps backend (pkg._backends.mps); type it Tensor[MPS] where it is made, or check it with assert_device; run device-types explain device-unknown-operand  [device-unknown-operand]
    c = torch.cat([x, positions(n)])  # E: "cat()" mixes a tensor on mps with the result of "positions()" of unknown device (Tensor[Any]) inside the mps backend (pkg._backends.mps); type it Tensor[MPS] where it is made, or check it with assert_device; run device-types explain device-unknown-operand  [device-unknown-operand]
    p = positions(n)
    q = positions_unannotated(n)
    d = x.add(p)  # E: ".add()" mixes a tensor on mps with "p" of unknown device (Tensor[Any]) inside the mps backend (pkg._backends.mps); type it Tensor[MPS] where it is made, or check it with assert_device; run device-types explain device-unknown-operand  [device-unknown-operand]
    e = x - q  # E: "-" mixes a tensor on mps with "q" of unknown device (Any) inside the mps backend (pkg._backends.mps); type it Tensor[MPS] where it is made, or check it with assert_device; run device-types explain device-unknown-operand  [device-unknown-operand]
    return a + b + c + d + e  # b, e: the unknown reported where it entered


def silent(x: Tensor[MPS], t: torch.Tensor, n: int, scale: float, config: Any) -> Tensor[MPS]:
    t + positions(n)  # no operand known to be on mps: bare torch code stays gradual
    x * scale + x.shape[0] + x * config.scale  # numbers, and an explicit Any
    return x + assert_device(positions(n), MPS)  # checked at run time: Tensor[MPS]
