from __future__ import annotations

import torch

from device_types import MPS, Tensor
from proj.helpers import on_cuda


def add(x: Tensor[MPS]) -> Tensor[MPS]:
    return torch.add(x, on_cuda())  # mistake: device-mixed-devices; pyright: reportArgumentType


def concatenate(x: Tensor[MPS]) -> Tensor[MPS]:
    return torch.cat([x, on_cuda()])  # mistake: device-mixed-devices; pyright: reportArgumentType


def operator(x: Tensor[MPS]) -> Tensor[MPS]:
    return x @ on_cuda()  # mistake: device-mixed-devices; pyright: reportOperatorIssue


def namespace_op(x: Tensor[MPS]) -> Tensor[MPS]:
    return torch.linalg.solve(x, on_cuda())  # mistake: device-mixed-devices; pyright: reportCallIssue+reportArgumentType; advice: "solve()" mixes tensors on mps and cuda
