"""Transfers: .cpu()/.to("cpu") give CPU, .cuda() CUDA, .to(dtype) keeps, .to(other) takes."""

from __future__ import annotations

from typing import Any

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


def to_untyped_target(x: Tensor[MPS], bare: torch.Tensor, untyped: Any, flag: bool) -> None:
    # An untyped argument may be a device, a dtype or a tensor: torch's own result type
    # (pyright made ``x.to(untyped)`` Unknown; ``x.to(untyped, False)`` kept MPS, which an
    # ``other`` tensor on another device makes false).
    assert_type(x.to(untyped), torch.Tensor)
    assert_type(x.to(untyped.device, torch.float16), torch.Tensor)
    assert_type(x.to(untyped, False), torch.Tensor)
    assert_type(x.to(device=untyped.device), torch.Tensor)
    assert_type(torch.zeros(3).to(untyped), torch.Tensor)
    assert_type(x.to(bare.device if flag else untyped.device), torch.Tensor)
    # ...while the typed forms keep theirs
    assert_type(x.to(torch.float16), Tensor[MPS])
    assert_type(x.to(x.cuda()), Tensor[CUDA])
    assert_type(x.to(x.cuda(), False), Tensor[CUDA])


def copy_keeps_destination(x: Tensor[MPS], y: Tensor[CUDA]) -> None:
    # copy_ may read from any device; the result is the destination.
    assert_type(x.copy_(y), Tensor[MPS])
