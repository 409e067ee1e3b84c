"""Policy violations in an MPS backend written against bare torch.Tensor (no device in
the annotations): what the code itself shows is reported. A submodule of the configured
prefix pkg._backends.mps."""

from typing import Final, Literal

import numpy as np
import torch
from torch import nn

HOST: Final = "cpu"
HOST_LIT: Literal["cpu"] = "cpu"


def transfers(x: torch.Tensor, p: nn.Parameter) -> None:
    x.cpu()  # E: ".cpu()" moves the tensor to the host inside the mps backend (pkg._backends.mps); keep it on mps and use an on-device composite of working ops; run device-types explain device-cpu-call  [device-cpu-call]
    p.cpu()  # E: ".cpu()" moves the tensor to the host inside the mps backend (pkg._backends.mps); keep it on mps and use an on-device composite of working ops; run device-types explain device-cpu-call  [device-cpu-call]
    x.pin_memory()  # E: ".pin_memory()" moves the tensor to the host inside the mps backend (pkg._backends.mps); keep it on mps and use an on-device composite of working ops; run device-types explain device-cpu-call  [device-cpu-call]
    host = x.cpu
    host()  # E: ".cpu()" moves the tensor to the host inside the mps backend (pkg._backends.mps); keep it on mps and use an on-device composite of working ops; run device-types explain device-cpu-call  [device-cpu-call]
    torch.Tensor.cpu(x)  # E: ".cpu()" moves the tensor to the host inside the mps backend (pkg._backends.mps); keep it on mps and use an on-device composite of working ops; run device-types explain device-cpu-call  [device-cpu-call]
    x.numpy()  # E: ".numpy()" copies tensor data to the host inside the mps backend (pkg._backends.mps); keep it on mps and use an on-device composite of working ops; run device-types explain device-readback  [device-readback]
    x.tolist()  # E: ".tolist()" copies tensor data to the host inside the mps backend (pkg._backends.mps); keep it on mps and use an on-device composite of working ops; run device-types explain device-readback  [device-readback]
    p.numpy()  # E: ".numpy()" copies tensor data to the host inside the mps backend (pkg._backends.mps); keep it on mps and use an on-device composite of working ops; run device-types explain device-readback  [device-readback]
    x.to("cpu")  # E: ".to()" targets the CPU inside the mps backend (pkg._backends.mps); keep it on mps and use an on-device composite of working ops; run device-types explain device-cpu-target  [device-cpu-target]
    x.to(device="cpu")  # E: ".to()" targets the CPU inside the mps backend (pkg._backends.mps); keep it on mps and use an on-device composite of working ops; run device-types explain device-cpu-target  [device-cpu-target]
    x.to(torch.device("cpu"))  # E: ".to()" targets the CPU inside the mps backend (pkg._backends.mps); keep it on mps and use an on-device composite of working ops; run device-types explain device-cpu-target  [device-cpu-target]
    x.to(HOST)  # E: ".to()" targets the CPU inside the mps backend (pkg._backends.mps); keep it on mps and use an on-device composite of working ops; run device-types explain device-cpu-target  [device-cpu-target]
    x.to(HOST_LIT)  # E: ".to()" targets the CPU inside the mps backend (pkg._backends.mps); keep it on mps and use an on-device composite of working ops; run device-types explain device-cpu-target  [device-cpu-target]
    x.to("cpu", torch.float16)  # E: ".to()" targets the CPU inside the mps backend (pkg._backends.mps); keep it on mps and use an on-device composite of working ops; run device-types explain device-cpu-target  [device-cpu-target]
    torch.zeros(3, device="cpu")  # E: "zeros()" targets the CPU inside the mps backend (pkg._backends.mps); keep it on mps and use an on-device composite of working ops; run device-types explain device-cpu-target  [device-cpu-target]
    torch.empty(3).copy_(x)  # E: ".copy_()" into a CPU tensor targets the CPU inside the mps backend (pkg._backends.mps); keep it on mps and use an on-device composite of working ops; run device-types explain device-cpu-target  [device-cpu-target]
    x.to("cuda")  # E: the result of ".to()" is on cuda, not mps, inside the mps backend (pkg._backends.mps); keep it on mps; run device-types explain device-wrong-device  [device-wrong-device]
    x.to("cuda:1")  # E: the result of ".to()" is on cuda, not mps, inside the mps backend (pkg._backends.mps); keep it on mps; run device-types explain device-wrong-device  [device-wrong-device]
    x.cuda()  # E: the result of ".cuda()" is on cuda, not mps, inside the mps backend (pkg._backends.mps); keep it on mps; run device-types explain device-wrong-device  [device-wrong-device]
    x.item()  # E: ".item()" waits for the device and copies a scalar to the host inside the mps backend (pkg._backends.mps); keep the value as a 0-d tensor on the device; run device-types explain device-host-sync  [device-host-sync]


def numpy_on_tensor_data(x: torch.Tensor, a: np.ndarray) -> None:
    np.exp(a)  # E: numpy "exp" computes on host (numpy) data inside the mps backend (pkg._backends.mps); use the torch op on mps tensors instead; run device-types explain device-numpy  [device-numpy]
    np.asarray(x)  # E: numpy "asarray" computes on host (numpy) data inside the mps backend (pkg._backends.mps); use the torch op on mps tensors instead; run device-types explain device-numpy  [device-numpy]
    a.sum()  # E: numpy "sum" computes on host (numpy) data inside the mps backend (pkg._backends.mps); use the torch op on mps tensors instead; run device-types explain device-numpy  [device-numpy]
    torch.from_numpy(a)  # E: "torch.from_numpy()" computes on host (numpy) data inside the mps backend (pkg._backends.mps); use the torch op on mps tensors instead; run device-types explain device-numpy  [device-numpy]
    torch.as_tensor(a)  # E: "torch.as_tensor()" of an ndarray computes on host (numpy) data inside the mps backend (pkg._backends.mps); use the torch op on mps tensors instead; run device-types explain device-numpy  [device-numpy]
    torch.tensor(a)  # E: "torch.tensor()" of an ndarray computes on host (numpy) data inside the mps backend (pkg._backends.mps); use the torch op on mps tensors instead; run device-types explain device-numpy  [device-numpy]


def host_operands(x: torch.Tensor, n: int, w: torch.Tensor = torch.ones(3)) -> torch.Tensor:
    a = x + torch.arange(n)  # E: "+" consumes a CPU tensor (created by "arange()" without device=) inside the mps backend (pkg._backends.mps); create it on mps (device=x.device); run device-types explain device-cpu-operand  [device-cpu-operand]
    b = torch.mul(x, torch.tensor([1.0, 2.0]))  # E: "mul()" consumes a CPU tensor (created by "tensor()" without device=) inside the mps backend (pkg._backends.mps); create it on mps (device=x.device); run device-types explain device-cpu-operand  [device-cpu-operand]
    c = x * w  # E: "*" consumes a CPU tensor (the default of parameter "w" is created on the host) inside the mps backend (pkg._backends.mps); create it on mps (device=x.device); run device-types explain device-cpu-operand  [device-cpu-operand]
    d = torch.cat([x, torch.zeros(2)])  # E: "cat()" consumes a CPU tensor (created by "zeros()" without device=) inside the mps backend (pkg._backends.mps); create it on mps (device=x.device); run device-types explain device-cpu-operand  [device-cpu-operand]
    return a + b + c + d


def silenced(x: torch.Tensor) -> None:
    x.cpu()  # type: ignore[device-cpu-call]
    x.numpy()  # type: ignore[device-readback]


def unknown_device() -> None:
    torch.zeros(3, device="gpu")  # E: unknown device "gpu"; valid device types are cpu, cuda, mps, npu, xpu (optionally with an index, e.g. "cuda:1"); run device-types explain device-unknown-device  [device-unknown-device]


def softplus_on_host(x: torch.Tensor) -> torch.Tensor:
    host = x.cpu().numpy()  # E: ".cpu()" moves the tensor to the host inside the mps backend (pkg._backends.mps); keep it on mps and use an on-device composite of working ops; run device-types explain device-cpu-call  [device-cpu-call]
    return torch.from_numpy(np.log1p(np.exp(host))).to(x.device)  # one mistake: reported at the transfer above
