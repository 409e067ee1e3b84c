"""One diagnostic per mistake: where the plugin reports a device mix, mypy's own error for
the same call (the device TypeVar unsolved, an argument or operand incompatible only by
its device, ``warn_return_any`` on its Any result) does not also appear; another mistake in
the same call keeps mypy's error. A transfer or readback the plugin reports is the mistake:
ops and numpy on its result add nothing, in the expression or through a local variable."""

from __future__ import annotations

import numpy as np
import torch

from device_types import CUDA, MPS, Tensor
from pkg.helpers import on_cuda


def helper_on_cuda() -> Tensor[CUDA]:  # E: the signature of "helper_on_cuda" names a tensor that is on cuda, not mps, inside the mps backend (pkg._backends.mps); keep it on mps; run device-types explain device-wrong-device  [device-wrong-device]
    raise NotImplementedError


def mixes(x: Tensor[MPS]) -> None:
    y = on_cuda()
    torch.bmm(x, y)  # E: "bmm()" mixes tensors on mps and cuda inside the mps backend (pkg._backends.mps); keep every operand on mps; run device-types explain device-mixed-devices  [device-mixed-devices]
    torch.add(x, helper_on_cuda())  # E: "add()" mixes tensors on mps and cuda inside the mps backend (pkg._backends.mps); keep every operand on mps; run device-types explain device-mixed-devices  [device-mixed-devices]
    torch.cat([x, y])  # E: "cat()" mixes tensors on mps and cuda inside the mps backend (pkg._backends.mps); keep every operand on mps; run device-types explain device-mixed-devices  [device-mixed-devices]
    torch.where(x > 0, x, y)  # E: "where()" mixes tensors on mps and cuda inside the mps backend (pkg._backends.mps); keep every operand on mps; run device-types explain device-mixed-devices  [device-mixed-devices]
    x.add(y)  # E: ".add()" mixes tensors on mps and cuda inside the mps backend (pkg._backends.mps); keep every operand on mps; run device-types explain device-mixed-devices  [device-mixed-devices]
    x + y  # E: "+" mixes tensors on mps and cuda inside the mps backend (pkg._backends.mps); keep every operand on mps; run device-types explain device-mixed-devices  [device-mixed-devices]
    torch.matmul(x, y).sum()  # E: "matmul()" mixes tensors on mps and cuda inside the mps backend (pkg._backends.mps); keep every operand on mps; run device-types explain device-mixed-devices  [device-mixed-devices]


def moved_once(x: Tensor[MPS]) -> Tensor[MPS]:
    y = x.to("cuda")  # E: the result of ".to()" is on cuda, not mps, inside the mps backend (pkg._backends.mps); keep it on mps; run device-types explain device-wrong-device  [device-wrong-device]
    torch.bmm(x, y)  # the consequence of the line above: no second diagnostic
    torch.bmm(x, x.to("cuda"))  # E: the result of ".to()" is on cuda, not mps, inside the mps backend (pkg._backends.mps); keep it on mps; run device-types explain device-wrong-device  [device-wrong-device]
    x + y
    return torch.nn.functional.softplus(x.cpu())  # E: ".cpu()" moves the tensor to the host inside the mps backend (pkg._backends.mps); keep it on mps and use an on-device composite of working ops; run device-types explain device-cpu-call  [device-cpu-call]


def positions_on_host(x: Tensor[MPS], n: int) -> Tensor[MPS]:
    return x + torch.arange(n)  # E: "+" consumes a CPU tensor (created by "arange()" without device=) inside the mps backend (pkg._backends.mps); create it on mps (device=x.device); run device-types explain device-cpu-operand  [device-cpu-operand]


def compare_on_host(x: Tensor[MPS]) -> bool:
    return bool((x.numpy() > 0).any())  # E: ".numpy()" copies tensor data to the host inside the mps backend (pkg._backends.mps); keep it on mps and use an on-device composite of working ops; run device-types explain device-readback  [device-readback]


def round_trip(x: torch.Tensor) -> torch.Tensor:
    host = x.cpu().numpy()  # E: ".cpu()" moves the tensor to the host inside the mps backend (pkg._backends.mps); keep it on mps and use an on-device composite of working ops; run device-types explain device-cpu-call  [device-cpu-call]
    return torch.from_numpy(np.log1p(np.exp(host)) > 0.5).to(x.device)


def two_mistakes(x: Tensor[MPS]) -> None:
    np.zeros(3) + x.numpy()  # E: numpy "zeros" computes on host (numpy) data inside the mps backend (pkg._backends.mps); use the torch op on mps tensors instead; run device-types explain device-numpy  [device-numpy]  # E: ".numpy()" copies tensor data to the host inside the mps backend (pkg._backends.mps); keep it on mps and use an on-device composite of working ops; run device-types explain device-readback  [device-readback]


def mixes_and_more(x: Tensor[MPS], y: Tensor[CUDA], n: int) -> None:  # E: the signature of "mixes_and_more" names a tensor that is on cuda, not mps, inside the mps backend (pkg._backends.mps); keep it on mps; run device-types explain device-wrong-device  [device-wrong-device]
    x.add(y, alpha="two")  # E: ".add()" mixes tensors on mps and cuda inside the mps backend (pkg._backends.mps); keep every operand on mps; run device-types explain device-mixed-devices  [device-mixed-devices]  # E: Argument "alpha" to "add" of "TensorBase" has incompatible type "str"; expected "int | float | bool | complex | None"  [arg-type]
