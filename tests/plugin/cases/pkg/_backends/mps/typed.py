"""Policy violations that need device-typed tensors (the overlay): Tensor[CPU] in
signatures, CPU tensors from helpers, mixed and foreign devices."""

from __future__ import annotations

import torch

from device_types import CPU, CUDA, MPS, Tensor


def host_helper() -> Tensor[CPU]:  # E: "host_helper" takes or returns Tensor[CPU] inside the mps backend (pkg._backends.mps); take and return Tensor[MPS] instead; run device-types explain device-cpu-signature  [device-cpu-signature]
    return torch.ones(2)


def takes_host(x: Tensor[CPU]) -> None: ...  # E: "takes_host" takes or returns Tensor[CPU] inside the mps backend (pkg._backends.mps); take and return Tensor[MPS] instead; run device-types explain device-cpu-signature  [device-cpu-signature]


def foreign(y: Tensor[CUDA]) -> None: ...  # E: the signature of "foreign" names a tensor that is on cuda, not mps, inside the mps backend (pkg._backends.mps); keep it on mps; run device-types explain device-wrong-device  [device-wrong-device]


def ops(x: Tensor[MPS], y: Tensor[CUDA], z: Tensor) -> Tensor[MPS]:  # E: the signature of "ops" names a tensor that is on cuda, not mps, inside the mps backend (pkg._backends.mps); keep it on mps; run device-types explain device-wrong-device  [device-wrong-device]
    a = z + host_helper()  # E: "+" consumes a CPU tensor (a Tensor[CPU]) inside the mps backend (pkg._backends.mps); create it on mps (device=x.device); run device-types explain device-cpu-operand  [device-cpu-operand]
    t = torch.arange(3)
    b = z * t  # E: "*" consumes a CPU tensor (a Tensor[CPU]) inside the mps backend (pkg._backends.mps); create it on mps (device=x.device); run device-types explain device-cpu-operand  [device-cpu-operand]
    torch.add(z, y)  # E: an operand of "add()" is on cuda, not mps, inside the mps backend (pkg._backends.mps); keep it on mps; run device-types explain device-wrong-device  [device-wrong-device]
    torch.add(x, y)  # E: "add()" mixes tensors on mps and cuda inside the mps backend (pkg._backends.mps); keep every operand on mps; run device-types explain device-mixed-devices  [device-mixed-devices]
    y.sum()  # E: an operand of ".sum()" is on cuda, not mps, inside the mps backend (pkg._backends.mps); keep it on mps; run device-types explain device-wrong-device  [device-wrong-device]
    x.to(host_helper().device)  # E: ".to()" targets the CPU inside the mps backend (pkg._backends.mps); keep it on mps and use an on-device composite of working ops; run device-types explain device-cpu-target  [device-cpu-target]
    return x.to("cuda")  # E: the result of ".to()" is on cuda, not mps, inside the mps backend (pkg._backends.mps); keep it on mps; run device-types explain device-wrong-device  [device-wrong-device]
