"""One diagnostic per mistake: where the plugin reports a device mix, mypy's own error for
the same call (the device TypeVar unsolved, an argument or operand incompatible only by
its device) does not also appear; another mistake in the same call keeps mypy's error."""

from __future__ import annotations

import torch

from device_types import CUDA, MPS, Tensor


def helper_on_cuda() -> Tensor[CUDA]:  # E: the signature of "helper_on_cuda" names a tensor that is on cuda, not mps, inside the mps backend (pkg._backends.mps); keep it on mps; run device-types explain device-wrong-device  [device-wrong-device]
    raise NotImplementedError


def mixes(x: Tensor[MPS]) -> None:
    y = x.to("cuda")  # E: the result of ".to()" is on cuda, not mps, inside the mps backend (pkg._backends.mps); keep it on mps; run device-types explain device-wrong-device  [device-wrong-device]
    torch.bmm(x, y)  # E: "bmm()" mixes tensors on mps and cuda inside the mps backend (pkg._backends.mps); keep every operand on mps; run device-types explain device-mixed-devices  [device-mixed-devices]
    torch.bmm(x, x.to("cuda"))  # E: "bmm()" mixes tensors on mps and cuda inside the mps backend (pkg._backends.mps); keep every operand on mps; run device-types explain device-mixed-devices  [device-mixed-devices]  # E: the result of ".to()" is on cuda, not mps, inside the mps backend (pkg._backends.mps); keep it on mps; run device-types explain device-wrong-device  [device-wrong-device]
    torch.add(x, helper_on_cuda())  # E: "add()" mixes tensors on mps and cuda inside the mps backend (pkg._backends.mps); keep every operand on mps; run device-types explain device-mixed-devices  [device-mixed-devices]
    torch.cat([x, y])  # E: "cat()" mixes tensors on mps and cuda inside the mps backend (pkg._backends.mps); keep every operand on mps; run device-types explain device-mixed-devices  [device-mixed-devices]
    torch.where(x > 0, x, y)  # E: "where()" mixes tensors on mps and cuda inside the mps backend (pkg._backends.mps); keep every operand on mps; run device-types explain device-mixed-devices  [device-mixed-devices]
    x.add(y)  # E: ".add()" mixes tensors on mps and cuda inside the mps backend (pkg._backends.mps); keep every operand on mps; run device-types explain device-mixed-devices  [device-mixed-devices]
    x + y  # E: "+" mixes tensors on mps and cuda inside the mps backend (pkg._backends.mps); keep every operand on mps; run device-types explain device-mixed-devices  [device-mixed-devices]
    torch.matmul(x, y).sum()  # E: "matmul()" mixes tensors on mps and cuda inside the mps backend (pkg._backends.mps); keep every operand on mps; run device-types explain device-mixed-devices  [device-mixed-devices]


def mixes_and_more(x: Tensor[MPS], y: Tensor[CUDA], n: int) -> None:  # E: the signature of "mixes_and_more" names a tensor that is on cuda, not mps, inside the mps backend (pkg._backends.mps); keep it on mps; run device-types explain device-wrong-device  [device-wrong-device]
    x.add(y, alpha="two")  # E: ".add()" mixes tensors on mps and cuda inside the mps backend (pkg._backends.mps); keep every operand on mps; run device-types explain device-mixed-devices  [device-mixed-devices]  # E: Argument "alpha" to "add" of "TensorBase" has incompatible type "str"; expected "int | float | bool | complex | None"  [arg-type]
