"""Bare torch.Tensor stays gradual; assert_device / is_device bridge into typed code."""

from __future__ import annotations

from typing import TypeVar

import torch
from typing_extensions import assert_type

from device_types import CUDA, MPS, Device, Tensor, assert_device, is_device

D = TypeVar("D", bound=Device)


def bare_tensor_is_gradual(x: torch.Tensor, y: Tensor[MPS]) -> Tensor[MPS]:
    assert_type(x + 1, torch.Tensor)
    assert_type(torch.bmm(x, x), torch.Tensor)
    # Unknown meets known: still unknown (the checkers solve from the first Any), no error.
    assert_type(x + y, torch.Tensor)
    assert_type(torch.bmm(x, y), torch.Tensor)
    return x


def checked_bridge(x: torch.Tensor) -> Tensor[MPS]:
    typed = assert_device(x, MPS)
    assert_type(typed, Tensor[MPS])
    return typed * 2.0


def predicate(x: torch.Tensor) -> Tensor[CUDA] | None:
    if is_device(x, CUDA):
        assert_type(x, Tensor[CUDA])
        return x
    return None


def same_device_helper(a: Tensor[D], b: Tensor[D]) -> Tensor[D]:
    return torch.addcmul(a, a, b, value=0.5)


def uses_generic_helper(x: Tensor[MPS], y: Tensor[MPS]) -> None:
    assert_type(same_device_helper(x, y), Tensor[MPS])
