"""The policy through torch.linalg, torch.fft, torch.special and the Python-level torch
functions in a typed backend: their results carry the device, so a host round-trip on
them and a CPU operand into them are reported."""

from __future__ import annotations

import torch

from device_types import MPS, Tensor


def norms_on_host(x: Tensor[MPS]) -> None:
    torch.linalg.vector_norm(x).cpu()  # E: ".cpu()" moves the tensor to the host inside the mps backend (pkg._backends.mps); keep it on mps and use an on-device composite of working ops; run device-types explain device-cpu-call  [device-cpu-call]
    torch.fft.rfft(x).numpy()  # E: ".numpy()" copies tensor data to the host inside the mps backend (pkg._backends.mps); keep it on mps and use an on-device composite of working ops; run device-types explain device-readback  [device-readback]
    torch.special.erf(x).tolist()  # E: ".tolist()" copies tensor data to the host inside the mps backend (pkg._backends.mps); keep it on mps and use an on-device composite of working ops; run device-types explain device-readback  [device-readback]
    torch.einsum("ij,jk->ik", x, x).cpu()  # E: ".cpu()" moves the tensor to the host inside the mps backend (pkg._backends.mps); keep it on mps and use an on-device composite of working ops; run device-types explain device-cpu-call  [device-cpu-call]
    torch.linalg.eigh(x).eigenvalues.cpu()  # E: ".cpu()" moves the tensor to the host inside the mps backend (pkg._backends.mps); keep it on mps and use an on-device composite of working ops; run device-types explain device-cpu-call  [device-cpu-call]
    torch.split(x, 1)[0].cpu()  # E: ".cpu()" moves the tensor to the host inside the mps backend (pkg._backends.mps); keep it on mps and use an on-device composite of working ops; run device-types explain device-cpu-call  [device-cpu-call]


def host_operands(x: Tensor[MPS]) -> None:
    torch.linalg.solve(x, torch.ones(2, 2))  # E: "solve()" consumes a CPU tensor (created by "ones()" without device=) inside the mps backend (pkg._backends.mps); create it on mps (device=x.device); run device-types explain device-cpu-operand  [device-cpu-operand]
    torch.special.xlogy(x, torch.arange(2))  # E: "xlogy()" consumes a CPU tensor (created by "arange()" without device=) inside the mps backend (pkg._backends.mps); create it on mps (device=x.device); run device-types explain device-cpu-operand  [device-cpu-operand]
    torch.einsum("ij,jk->ik", x, torch.eye(2))  # E: "einsum()" consumes a CPU tensor (created by "eye()" without device=) inside the mps backend (pkg._backends.mps); create it on mps (device=x.device); run device-types explain device-cpu-operand  [device-cpu-operand]
    torch.cdist(x, torch.zeros(2, 2))  # E: "cdist()" consumes a CPU tensor (created by "zeros()" without device=) inside the mps backend (pkg._backends.mps); create it on mps (device=x.device); run device-types explain device-cpu-operand  [device-cpu-operand]
