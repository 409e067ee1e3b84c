from __future__ import annotations

import torch

from device_types import MPS, Tensor


def softplus(x: Tensor[MPS]) -> Tensor[MPS]:
    return torch.nn.functional.softplus(x.cpu())  # mistake: device-cpu-call; pyright: reportReturnType; advice: ".cpu()" moves the tensor to the host


def returned(x: Tensor[MPS]) -> Tensor[MPS]:
    return x.cpu()  # mistake: device-cpu-call; pyright: reportReturnType


def bare(x: torch.Tensor) -> torch.Tensor:
    return x.cpu()  # mistake: device-cpu-call; pyright: none


def consumed(x: Tensor[MPS]) -> Tensor[MPS]:
    h = x.cpu()  # mistake: device-cpu-call; pyright: reportOperatorIssue
    return x + h


def pinned(x: Tensor[MPS]) -> Tensor[MPS]:
    return x.pin_memory() * 2  # mistake: device-cpu-call; pyright: reportReturnType


def scaled_scores(q: Tensor[MPS], k: Tensor[MPS]) -> Tensor[MPS]:
    scores = torch.matmul(q, k.transpose(-2, -1)) / (q.shape[-1] ** 0.5)
    return scores.cpu()  # mistake: device-cpu-call; pyright: none; advice: ".cpu()" moves the tensor to the host


def scaled_scores_on_device(q: Tensor[MPS], k: Tensor[MPS]) -> Tensor[MPS]:
    scores = torch.matmul(q, k.transpose(-2, -1)) / (q.shape[-1] ** 0.5)
    return torch.softmax(scores, dim=-1)
