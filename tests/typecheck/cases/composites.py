"""On-device composites written with raw torch ops: no error, device carried through."""

from __future__ import annotations

import torch
from typing_extensions import assert_type

from device_types import MPS, Tensor


def baddbmm(inp: Tensor[MPS], b1: Tensor[MPS], b2: Tensor[MPS]) -> Tensor[MPS]:
    beta, alpha = 0.5, 2.0
    out = torch.add(torch.mul(inp, beta), torch.bmm(b1, b2) * alpha)
    assert_type(out, Tensor[MPS])
    return out


def softplus(x: Tensor[MPS]) -> Tensor[MPS]:
    out = torch.log1p(torch.exp(x))
    assert_type(out, Tensor[MPS])
    return out


def isinf(x: Tensor[MPS]) -> Tensor[MPS]:
    out = ~torch.isfinite(x) & ~torch.isnan(x)
    assert_type(out, Tensor[MPS])
    return out


def remainder(a: Tensor[MPS], b: Tensor[MPS]) -> Tensor[MPS]:
    r = a - b * torch.floor(a / b)
    out = torch.where(r != 0, r, torch.zeros_like(r))
    assert_type(out, Tensor[MPS])
    return out


def layer_norm(x: Tensor[MPS], weight: Tensor[MPS], bias: Tensor[MPS]) -> Tensor[MPS]:
    mean = x.mean(dim=-1, keepdim=True)
    var = x.var(dim=-1, keepdim=True, unbiased=False)
    out = (x - mean) / torch.sqrt(var + 1e-5) * weight + bias
    assert_type(out, Tensor[MPS])
    return out


def gelu_tanh(x: Tensor[MPS]) -> Tensor[MPS]:
    inner = 0.7978845608 * (x + 0.044715 * torch.pow(x, 3))
    return 0.5 * x * (1.0 + torch.tanh(inner))


def softmax(x: Tensor[MPS]) -> Tensor[MPS]:
    shifted = x - x.amax(dim=-1, keepdim=True)
    e = shifted.exp()
    return e / e.sum(dim=-1, keepdim=True)


def masked_fill_composite(x: Tensor[MPS], mask: Tensor[MPS]) -> Tensor[MPS]:
    return torch.where(mask, torch.full_like(x, float("-inf")), x)


def attention(q: Tensor[MPS], k: Tensor[MPS], v: Tensor[MPS]) -> Tensor[MPS]:
    scores = q @ k.transpose(-2, -1) / (q.shape[-1] ** 0.5)
    return torch.softmax(scores, dim=-1) @ v
