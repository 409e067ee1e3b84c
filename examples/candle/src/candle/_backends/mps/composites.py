"""MPS kernels written as on-device composites of working ops: no error anywhere."""

from __future__ import annotations

import torch

from device_types import MPS, Tensor

#: Off until Apple fixes the Metal kernel; flip to re-test the native path.
USE_NATIVE_BADDBMM = False


def baddbmm(inp: Tensor[MPS], batch1: Tensor[MPS], batch2: Tensor[MPS], beta: float = 1.0, alpha: float = 1.0) -> Tensor[MPS]:
    # TODO: re-enable native kernel when macOS 15.4 fixes aten.baddbmm Metal assertion on batched inputs
    if USE_NATIVE_BADDBMM:
        return torch.baddbmm(inp, batch1, batch2, beta=beta, alpha=alpha)
    return baddbmm_composite(inp, batch1, batch2, beta, alpha)


def baddbmm_composite(inp: Tensor[MPS], batch1: Tensor[MPS], batch2: Tensor[MPS], beta: float, alpha: float) -> Tensor[MPS]:
    return torch.add(torch.mul(inp, beta), torch.bmm(batch1, batch2) * alpha)


def softplus(x: Tensor[MPS], beta: float = 1.0) -> Tensor[MPS]:
    return torch.log1p(torch.exp(x * beta)) / beta


def isinf(x: Tensor[MPS]) -> Tensor[MPS]:
    return ~torch.isfinite(x) & ~torch.isnan(x)


def remainder(a: Tensor[MPS], b: Tensor[MPS]) -> Tensor[MPS]:
    r = a - b * torch.floor(a / b)
    return torch.where((r != 0) & ((r < 0) != (b < 0)), r + b, r)


def layer_norm(x: Tensor[MPS], weight: Tensor[MPS], bias: Tensor[MPS], eps: float = 1e-5) -> Tensor[MPS]:
    mean = x.mean(dim=-1, keepdim=True)
    var = x.var(dim=-1, keepdim=True, unbiased=False)
    return (x - mean) / torch.sqrt(var + eps) * weight + bias


def causal_mask(scores: Tensor[MPS]) -> Tensor[MPS]:
    n = scores.shape[-1]
    keep = torch.ones(n, n, device=scores.device, dtype=torch.bool).tril()
    return scores.masked_fill(~keep, float("-inf"))
