"""Outside every backend: no policy error; device refinement happens everywhere."""

from __future__ import annotations

import numpy as np
import torch

from device_types import CPU, CUDA, MPS, Tensor


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
    torch.zeros(3, device="gpu")  # E: unknown device "gpu"; valid device types are cpu, cuda, mps, npu, xpu (optionally with an index, e.g. "cuda:1"); run device-types explain device-unknown-device  [device-unknown-device]
    torch.device("tpu")  # E: unknown device "tpu"; valid device types are cpu, cuda, mps, npu, xpu (optionally with an index, e.g. "cuda:1"); run device-types explain device-unknown-device  [device-unknown-device]
    x.to("cuda:x")  # E: unknown device "cuda:x"; valid device types are cpu, cuda, mps, npu, xpu (optionally with an index, e.g. "cuda:1"); run device-types explain device-unknown-device  [device-unknown-device]
    # every device type torch parses is valid (no error):
    torch.zeros(3, device="hpu")
    torch.empty(2, device="privateuseone:0")
    x.to("xla:1")
    torch.device("mtia")


def named_device_but_not_a_device_spec() -> None:
    """``device: str`` (or ``str | torch.device``) is a registry key here, not torch's device-spec alias."""
    from torch._dynamo.device_interface import DeviceInterface, register_interface_for_device
    from torch._inductor.codegen.common import get_scheduling_for_device

    register_interface_for_device("tpu", DeviceInterface)
    get_scheduling_for_device("tpu")


def declared_type_does_not_pick_the_device(x: Tensor[MPS]) -> None:
    # the overlay alone lets mypy solve the factory from the declared type (tests/typecheck's
    # factories.py pins that gap); the plugin reads the device from ``x.device`` everywhere
    w: Tensor[CUDA] = torch.ones(3, device=x.device)  # E: Incompatible types in assignment (expression has type "Tensor[MPS]", variable has type "Tensor[CUDA]")  [assignment]
