"""Transfers: .cpu()/.to("cpu") give CPU, .cuda() CUDA, .to(dtype) keeps, .to(other) takes."""

from __future__ import annotations

import torch
from typing_extensions import assert_type

from device_types import CPU, CUDA, MPS, Tensor


def fixed(x: Tensor[MPS]) -> None:
    assert_type(x.cpu(), Tensor[CPU])
    assert_type(x.cuda(), Tensor[CUDA])


def to(x: Tensor[MPS], y: Tensor[CUDA]) -> None:
    assert_type(x.to("cpu"), Tensor[CPU])
    assert_type(x.to("cuda"), Tensor[CUDA])
    assert_type(x.to("cuda:1"), Tensor[CUDA])
    assert_type(x.to(device="cuda"), Tensor[CUDA])
    assert_type(x.to(torch.device("cpu")), Tensor[CPU])
    assert_type(x.to(y.device), Tensor[CUDA])
    assert_type(x.to(x.device), Tensor[MPS])
    assert_type(x.to(torch.float16), Tensor[MPS])
    assert_type(x.to(dtype=torch.float16), Tensor[MPS])
    assert_type(x.to(y), Tensor[CUDA])
    assert_type(x.to("cuda", torch.float16), Tensor[CUDA])


def to_unknown(x: Tensor[MPS], target: str) -> None:
    assert_type(x.to(target), torch.Tensor)


def copy_keeps_destination(x: Tensor[MPS], y: Tensor[CUDA]) -> None:
    # copy_ may read from any device; the result is the destination.
    assert_type(x.copy_(y), Tensor[MPS])
