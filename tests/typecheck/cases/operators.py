"""Operators, reflected operators, in-place ops, indexing, comparisons, reductions."""

from __future__ import annotations

import math
from typing import Any

import torch
from typing_extensions import assert_type

from device_types import CPU, CUDA, Tensor


def binary(x: Tensor[CUDA], y: Tensor[CUDA]) -> None:
    assert_type(x + y, Tensor[CUDA])
    assert_type(x - 1, Tensor[CUDA])
    assert_type(x * 2.0, Tensor[CUDA])
    assert_type(x / y, Tensor[CUDA])
    assert_type(x // 2, Tensor[CUDA])
    assert_type(x % 3, Tensor[CUDA])
    assert_type(x**2, Tensor[CUDA])
    assert_type(x @ y, Tensor[CUDA])


def reflected(x: Tensor[CUDA]) -> None:
    assert_type(1 + x, Tensor[CUDA])
    assert_type(2.0 - x, Tensor[CUDA])
    assert_type(2.0 * x, Tensor[CUDA])
    assert_type(1.0 / x, Tensor[CUDA])
    assert_type(2**x, Tensor[CUDA])


def attention_scaling(q: Tensor[CUDA], k: Tensor[CUDA]) -> None:
    # typeshed types ``int ** float`` as ``Any``, and mypy, pyright and basedpyright give a
    # binary operator with an ``Any`` operand ``Any`` before they look at the tensor's
    # ``__truediv__``: no stub keeps the device there (docs/limits.md, "An Any operand").
    d = q.shape[-1]
    scores = q @ k.transpose(-2, -1)
    assert_type(scores / (d**0.5), Any)
    assert_type(scores * d**-0.5, Any)
    # the spellings that keep it: a float divisor, or the method
    assert_type(scores / math.sqrt(d), Tensor[CUDA])
    assert_type(scores * (1.0 / math.sqrt(d)), Tensor[CUDA])
    scale: float = d**0.5
    assert_type(scores / scale, Tensor[CUDA])
    assert_type(scores.div(d**0.5), Tensor[CUDA])
    assert_type(scores.mul(d**-0.5), Tensor[CUDA])
    assert_type(torch.softmax(scores / math.sqrt(d), dim=-1), Tensor[CUDA])


def unary_and_compare(x: Tensor[CUDA], y: Tensor[CUDA]) -> None:
    assert_type(-x, Tensor[CUDA])
    assert_type(abs(x), Tensor[CUDA])
    assert_type(x > y, Tensor[CUDA])
    assert_type(x <= 0.5, Tensor[CUDA])
    assert_type(~(x > 0), Tensor[CUDA])
    assert_type((x > 0) & (y > 0), Tensor[CUDA])


def in_place(x: Tensor[CUDA], y: Tensor[CUDA]) -> None:
    assert_type(x.add_(y), Tensor[CUDA])
    assert_type(x.mul_(2.0), Tensor[CUDA])
    assert_type(x.clamp_(min=0.0), Tensor[CUDA])
    x += y
    assert_type(x, Tensor[CUDA])


def indexing_and_views(x: Tensor[CUDA]) -> None:
    assert_type(x[0], Tensor[CUDA])
    assert_type(x[:, 1:], Tensor[CUDA])
    assert_type(x[x > 0], Tensor[CUDA])
    assert_type(x.view(-1), Tensor[CUDA])
    assert_type(x.reshape(2, -1), Tensor[CUDA])
    assert_type(x.permute(2, 1, 0), Tensor[CUDA])
    assert_type(x.unsqueeze(0).squeeze(0), Tensor[CUDA])
    assert_type(x.contiguous(), Tensor[CUDA])
    assert_type(x.detach(), Tensor[CUDA])
    assert_type(x.clone(), Tensor[CUDA])
    assert_type(x.T, Tensor[CUDA])
    # torch's Python methods without a return type: Any for mypy, as in stock torch
    # (bare.py); pyright's inference from torch's source, with the device (inferred.py)
    _parts: tuple[Tensor[CUDA], ...] = x.split(1)
    assert_type(x.chunk(2)[1], Tensor[CUDA])
    assert_type(x.unbind(0)[0], Tensor[CUDA])


def reductions(x: Tensor[CUDA]) -> None:
    assert_type(x.sum(), Tensor[CUDA])
    assert_type(x.mean(dim=0), Tensor[CUDA])
    assert_type(torch.sum(x, dim=1), Tensor[CUDA])
    assert_type(x.max(dim=0).values, Tensor[CUDA])
    assert_type(x.max(dim=0).indices, Tensor[CUDA])
    assert_type(torch.topk(x, 1).values, Tensor[CUDA])
    assert_type(x.argmax(), Tensor[CUDA])
    _norm: Tensor[CUDA] = x.norm()
    for row in x.cpu():  # an element of a CPU tensor: Any for mypy, Tensor[CPU] for pyright
        _element: Tensor[CPU] = row


def joins_and_functional(x: Tensor[CUDA], y: Tensor[CUDA]) -> None:
    assert_type(torch.cat([x, y]), Tensor[CUDA])
    assert_type(torch.stack((x, y)), Tensor[CUDA])
    assert_type(torch.where(x > 0, x, y), Tensor[CUDA])
    assert_type(torch.where(x > 0, x, 0.0), Tensor[CUDA])
    assert_type(torch.nn.functional.relu(x), Tensor[CUDA])
    assert_type(torch.nn.functional.softplus(x), Tensor[CUDA])
    assert_type(torch.nn.functional.linear(x, y[0]), Tensor[CUDA])
    assert_type(torch.matmul(x, y), Tensor[CUDA])
    assert_type(x.to(torch.float16), Tensor[CUDA])
    assert_type(x.float(), Tensor[CUDA])
    assert_type(x.type(torch.float64), Tensor[CUDA])
