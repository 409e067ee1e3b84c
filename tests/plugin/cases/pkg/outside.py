"""Outside every backend: no policy error; device refinement happens everywhere."""

from __future__ import annotations

import numpy as np
import torch

from device_types import CPU, MPS, Tensor


def host_code(x: torch.Tensor, h: Tensor[CPU]) -> list[float]:
    a = x.cpu().numpy()
    b = np.exp(a)
    c = torch.from_numpy(b) + torch.arange(3)
    return h.tolist() + c.tolist()


def refine(x: Tensor[MPS]) -> None:
    reveal_type(torch.zeros(3, device="cuda:1"))  # N: Revealed type is "torch._tensor.Tensor[device_types._devices.CUDA]"
    reveal_type(torch.zeros(3, device="cuda:99"))  # N: Revealed type is "torch._tensor.Tensor[device_types._devices.CUDA]"
    reveal_type(torch.ones(3, device="npu:0"))  # N: Revealed type is "torch._tensor.Tensor[device_types._devices.NPU]"
    reveal_type(torch.ones(3, device=torch.device("npu", 0)))  # N: Revealed type is "torch._tensor.Tensor[device_types._devices.NPU]"
    reveal_type(torch.device("npu", 0))  # N: Revealed type is "torch._C.device[device_types._devices.NPU]"
    reveal_type(torch.empty(2, device=x.device))  # N: Revealed type is "torch._tensor.Tensor[device_types._devices.MPS]"
    reveal_type(x.to("npu:0"))  # N: Revealed type is "torch._tensor.Tensor[device_types._devices.NPU]"
    reveal_type(x.to(device="xpu:3"))  # N: Revealed type is "torch._tensor.Tensor[device_types._devices.XPU]"
    reveal_type(x.new_zeros(3, device="cuda:2"))  # N: Revealed type is "torch._tensor.Tensor[device_types._devices.CUDA]"
    reveal_type(torch.zeros(3, device=0))  # N: Revealed type is "torch._tensor.Tensor[device_types._devices.CUDA]"
    reveal_type(torch.zeros(3, device="meta"))  # N: Revealed type is "torch._tensor.Tensor[Any]"
    torch.zeros(3, device="gpu")  # E: unknown device "gpu"; valid device types are cpu, cuda, mps, npu, xpu (optionally with an index, e.g. "cuda:1"); see docs/errors.md#device-unknown-device  [device-unknown-device]
    torch.device("tpu")  # E: unknown device "tpu"; valid device types are cpu, cuda, mps, npu, xpu (optionally with an index, e.g. "cuda:1"); see docs/errors.md#device-unknown-device  [device-unknown-device]
    x.to("cuda:x")  # E: unknown device "cuda:x"; valid device types are cpu, cuda, mps, npu, xpu (optionally with an index, e.g. "cuda:1"); see docs/errors.md#device-unknown-device  [device-unknown-device]
