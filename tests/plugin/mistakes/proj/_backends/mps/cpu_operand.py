from __future__ import annotations

import torch

from device_types import MPS, Tensor
from proj.helpers import host_table


def positions(x: Tensor[MPS], n: int) -> Tensor[MPS]:
    return x + torch.arange(n)  # mistake: device-cpu-operand; pyright: reportOperatorIssue; advice: create it on mps (device=x.device)


def bare_positions(x: torch.Tensor, n: int) -> torch.Tensor:
    return x + torch.arange(n)  # mistake: device-cpu-operand; pyright: none


def default_weight(x: torch.Tensor, w: torch.Tensor = torch.ones(3)) -> torch.Tensor:
    return x * w  # mistake: device-cpu-operand; pyright: none


def table(x: Tensor[MPS]) -> Tensor[MPS]:
    return x * host_table()  # mistake: device-cpu-operand; pyright: reportOperatorIssue
