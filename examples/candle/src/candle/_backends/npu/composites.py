"""NPU kernels, migrated from bare torch.Tensor: the policy holds there too."""

from __future__ import annotations

import torch

from device_types import NPU, Tensor

#: ACLNN's fused kernel is broken on CANN 8.0; the composite below is active.
USE_ACLNN_GELU = False


def gelu(x: Tensor[NPU]) -> Tensor[NPU]:
    # TODO: re-enable native kernel when CANN 8.1 fixes aten.gelu NaN for large negative inputs
    if USE_ACLNN_GELU:
        return torch.nn.functional.gelu(x)
    return gelu_composite(x)


def gelu_composite(x: Tensor[NPU]) -> Tensor[NPU]:
    inner = 0.7978845608 * (x + 0.044715 * torch.pow(x, 3))
    return 0.5 * x * (1.0 + torch.tanh(inner))


def scale_rows(x: torch.Tensor, scale: torch.Tensor) -> torch.Tensor:
    return x * scale.unsqueeze(-1)
