"""The device mistakes of docs/errors.md ("mypy's own errors"), outside any backend."""

import torch

from device_types import CUDA, MPS, Tensor


def mixes(x: Tensor[MPS], y: Tensor[CUDA]) -> None:
    torch.bmm(x, y)
    x + y
    x.add(y)
    x.numpy()


def fixed(x: Tensor[MPS], y: Tensor[CUDA]) -> Tensor[MPS]:
    return torch.bmm(x, y.to(x.device))
