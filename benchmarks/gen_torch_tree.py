"""Write a realistic torch-using source tree for the overlay benchmark.

The tree mixes the two kinds of code the overlay meets in practice:

* model code that only ever says bare ``torch.Tensor`` (nn.Modules, training steps,
  data helpers): the overlay must leave it gradual and must not slow it down;
* device-typed composite kernels in backend modules (``Tensor[MPS]``, ``Tensor[CUDA]``,
  ``Tensor[NPU]``, and device-generic ones over a TypeVar): baddbmm via bmm+mul+add,
  softplus via log1p(exp), layer_norm from mean/var, a where-based remainder, factories
  with ``device=x.device``.

Everything is deterministic (no randomness), so two runs write byte-identical trees.
Run directly to write ``benchmarks/out/tree`` and print its size.
"""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path

__all__ = ["generate", "DEFAULT_OUT"]

DEFAULT_OUT = Path(__file__).resolve().parent / "out" / "tree"
PACKAGE = "torchapp"
BACKENDS = (("mps", "MPS"), ("cuda", "CUDA"), ("npu", "NPU"))

MODEL_TEMPLATE = '''\
"""Model family {i}: bare torch.Tensor everywhere (gradual under the overlay)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn


@dataclass
class Config{i}:
    dim: int = {dim}
    heads: int = 4
    hidden: int = {hidden}
    layers: int = 2
    dropout: float = 0.1
    eps: float = 1e-5


class RMSNorm{i}(nn.Module):
    def __init__(self, dim: int, eps: float = 1e-6) -> None:
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        norm = x.pow(2).mean(dim=-1, keepdim=True).add(self.eps).rsqrt()
        return x * norm * self.weight


class Attention{i}(nn.Module):
    def __init__(self, cfg: Config{i}) -> None:
        super().__init__()
        self.heads = cfg.heads
        self.head_dim = cfg.dim // cfg.heads
        self.qkv = nn.Linear(cfg.dim, 3 * cfg.dim, bias=False)
        self.out = nn.Linear(cfg.dim, cfg.dim)
        self.drop = nn.Dropout(cfg.dropout)

    def forward(self, x: torch.Tensor, mask: torch.Tensor | None = None) -> torch.Tensor:
        b, t, c = x.shape
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        q = q.view(b, t, self.heads, self.head_dim).transpose(1, 2)
        k = k.view(b, t, self.heads, self.head_dim).transpose(1, 2)
        v = v.view(b, t, self.heads, self.head_dim).transpose(1, 2)
        scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(self.head_dim)
        if mask is not None:
            scores = scores.masked_fill(mask == 0, float("-inf"))
        attn = self.drop(F.softmax(scores, dim=-1))
        y = torch.matmul(attn, v).transpose(1, 2).contiguous().view(b, t, c)
        return self.out(y)


class FeedForward{i}(nn.Module):
    def __init__(self, cfg: Config{i}) -> None:
        super().__init__()
        self.up = nn.Linear(cfg.dim, cfg.hidden)
        self.gate = nn.Linear(cfg.dim, cfg.hidden)
        self.down = nn.Linear(cfg.hidden, cfg.dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.down(F.silu(self.gate(x)) * self.up(x))


class Block{i}(nn.Module):
    def __init__(self, cfg: Config{i}) -> None:
        super().__init__()
        self.norm1 = RMSNorm{i}(cfg.dim, cfg.eps)
        self.norm2 = RMSNorm{i}(cfg.dim, cfg.eps)
        self.attn = Attention{i}(cfg)
        self.ff = FeedForward{i}(cfg)

    def forward(self, x: torch.Tensor, mask: torch.Tensor | None = None) -> torch.Tensor:
        x = x + self.attn(self.norm1(x), mask)
        return x + self.ff(self.norm2(x))


class ConvStem{i}(nn.Module):
    def __init__(self, channels: int = 3, dim: int = {dim}) -> None:
        super().__init__()
        self.conv = nn.Conv2d(channels, dim, kernel_size=3, padding=1)
        self.bn = nn.BatchNorm2d(dim)
        self.pool = nn.AdaptiveAvgPool2d((4, 4))

    def forward(self, img: torch.Tensor) -> torch.Tensor:
        h = F.relu(self.bn(self.conv(img)))
        return self.pool(h).flatten(2).transpose(1, 2)


class Model{i}(nn.Module):
    def __init__(self, cfg: Config{i}, vocab: int = 1000) -> None:
        super().__init__()
        self.embed = nn.Embedding(vocab, cfg.dim)
        self.stem = ConvStem{i}(3, cfg.dim)
        self.blocks = nn.ModuleList([Block{i}(cfg) for _ in range(cfg.layers)])
        self.head = nn.Linear(cfg.dim, vocab)

    def forward(self, tokens: torch.Tensor, img: torch.Tensor | None = None) -> torch.Tensor:
        x = self.embed(tokens)
        if img is not None:
            x = torch.cat([self.stem(img), x], dim=1)
        t = x.shape[1]
        mask = torch.tril(torch.ones(t, t, device=x.device)).view(1, 1, t, t)
        for block in self.blocks:
            x = block(x, mask)
        return self.head(x)


def cross_entropy_smooth{i}(logits: torch.Tensor, target: torch.Tensor, smoothing: float = 0.1) -> torch.Tensor:
    logp = F.log_softmax(logits, dim=-1)
    nll = -logp.gather(-1, target.unsqueeze(-1)).squeeze(-1)
    smooth = -logp.mean(dim=-1)
    return ((1.0 - smoothing) * nll + smoothing * smooth).mean()


def train_step{i}(model: Model{i}, opt: torch.optim.Optimizer, tokens: torch.Tensor, target: torch.Tensor) -> float:
    model.train()
    opt.zero_grad(set_to_none=True)
    logits = model(tokens)
    loss = cross_entropy_smooth{i}(logits.view(-1, logits.shape[-1]), target.view(-1))
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()
    return float(loss.item())


@torch.no_grad()
def evaluate{i}(model: Model{i}, batches: list[tuple[torch.Tensor, torch.Tensor]]) -> dict[str, float]:
    model.eval()
    total = 0.0
    correct = 0
    count = 0
    for tokens, target in batches:
        logits = model(tokens)
        total += float(cross_entropy_smooth{i}(logits.view(-1, logits.shape[-1]), target.view(-1), 0.0))
        pred = logits.argmax(dim=-1)
        correct += int((pred == target).sum().item())
        count += target.numel()
    return {{"loss": total / max(len(batches), 1), "acc": correct / max(count, 1)}}


def collate{i}(samples: list[tuple[list[int], int]], pad: int = 0) -> tuple[torch.Tensor, torch.Tensor]:
    width = max(len(s) for s, _ in samples)
    tokens = torch.full((len(samples), width), pad, dtype=torch.long)
    for row, (seq, _) in enumerate(samples):
        tokens[row, : len(seq)] = torch.tensor(seq, dtype=torch.long)
    labels = torch.tensor([label for _, label in samples], dtype=torch.long)
    return tokens, labels


def cosine_schedule{i}(step: int, total: int, base: float = 3e-4, warmup: int = 100) -> float:
    if step < warmup:
        return base * step / warmup
    progress = (step - warmup) / max(1, total - warmup)
    return base * 0.5 * (1.0 + math.cos(math.pi * progress))


def to_numpy_stats{i}(x: torch.Tensor) -> tuple[float, float]:
    arr = x.detach().cpu().numpy()
    return float(arr.mean()), float(arr.std())
'''

KERNEL_TEMPLATE = '''\
"""{name} composite kernels, part {i}: device-typed, raw torch ops only."""

from __future__ import annotations

import torch

from device_types import {marker}, Tensor


def baddbmm_{i}(inp: Tensor[{marker}], b1: Tensor[{marker}], b2: Tensor[{marker}], beta: float = 1.0, alpha: float = 1.0) -> Tensor[{marker}]:
    return torch.add(torch.mul(inp, beta), torch.mul(torch.bmm(b1, b2), alpha))


def addmm_{i}(inp: Tensor[{marker}], m1: Tensor[{marker}], m2: Tensor[{marker}], beta: float = 1.0, alpha: float = 1.0) -> Tensor[{marker}]:
    return inp * beta + torch.mm(m1, m2) * alpha


def softplus_{i}(x: Tensor[{marker}], beta: float = 1.0, threshold: float = 20.0) -> Tensor[{marker}]:
    scaled = x * beta
    soft = torch.log1p(torch.exp(scaled)) / beta
    return torch.where(scaled > threshold, x, soft)


def mish_{i}(x: Tensor[{marker}]) -> Tensor[{marker}]:
    return x * torch.tanh(softplus_{i}(x))


def layer_norm_{i}(x: Tensor[{marker}], weight: Tensor[{marker}], bias: Tensor[{marker}], eps: float = 1e-5) -> Tensor[{marker}]:
    mean = x.mean(dim=-1, keepdim=True)
    var = x.var(dim=-1, keepdim=True, unbiased=False)
    return (x - mean) / torch.sqrt(var + eps) * weight + bias


def rms_norm_{i}(x: Tensor[{marker}], weight: Tensor[{marker}], eps: float = 1e-6) -> Tensor[{marker}]:
    return x * torch.rsqrt(x.pow(2).mean(dim=-1, keepdim=True) + eps) * weight


def remainder_{i}(a: Tensor[{marker}], b: Tensor[{marker}]) -> Tensor[{marker}]:
    r = torch.fmod(a, b)
    fix = (r != 0) & ((r < 0) != (b < 0))
    return torch.where(fix, r + b, r)


def floor_divide_{i}(a: Tensor[{marker}], b: Tensor[{marker}]) -> Tensor[{marker}]:
    return torch.floor(torch.div(a, b))


def gelu_tanh_{i}(x: Tensor[{marker}]) -> Tensor[{marker}]:
    inner = 0.7978845608028654 * (x + 0.044715 * torch.pow(x, 3))
    return 0.5 * x * (1.0 + torch.tanh(inner))


def logsumexp_{i}(x: Tensor[{marker}], dim: int = -1) -> Tensor[{marker}]:
    m = torch.amax(x, dim=dim, keepdim=True)
    return (m + torch.log(torch.sum(torch.exp(x - m), dim=dim, keepdim=True))).squeeze(dim)


def softmax_{i}(x: Tensor[{marker}], dim: int = -1) -> Tensor[{marker}]:
    shifted = x - torch.amax(x, dim=dim, keepdim=True)
    e = torch.exp(shifted)
    return e / e.sum(dim=dim, keepdim=True)


def causal_mask_{i}(x: Tensor[{marker}]) -> Tensor[{marker}]:
    t = x.shape[-1]
    ones = torch.ones(t, t, device=x.device)
    return torch.tril(ones)


def zeros_like_rows_{i}(x: Tensor[{marker}], rows: int) -> Tensor[{marker}]:
    return torch.cat([x, torch.zeros(rows, x.shape[1], device=x.device)], dim=0)


def arange_positions_{i}(x: Tensor[{marker}]) -> Tensor[{marker}]:
    pos = torch.arange(x.shape[0], device=x.device)
    return pos.unsqueeze(-1).expand(-1, x.shape[1]).to(x.dtype)


def clamp_grad_{i}(g: Tensor[{marker}], limit: float) -> Tensor[{marker}]:
    return torch.clamp(g, min=-limit, max=limit)


def attention_{i}(q: Tensor[{marker}], k: Tensor[{marker}], v: Tensor[{marker}], scale: float) -> Tensor[{marker}]:
    scores = torch.bmm(q, k.transpose(1, 2)) * scale
    mask = causal_mask_{i}(scores)
    scores = scores.masked_fill(mask == 0, float("-inf"))
    return torch.bmm(softmax_{i}(scores), v)


def adam_update_{i}(p: Tensor[{marker}], g: Tensor[{marker}], m: Tensor[{marker}], v: Tensor[{marker}], lr: float, step: int) -> tuple[Tensor[{marker}], Tensor[{marker}], Tensor[{marker}]]:
    m = m * 0.9 + g * 0.1
    v = v * 0.999 + g * g * 0.001
    m_hat = m / (1 - 0.9**step)
    v_hat = v / (1 - 0.999**step)
    return p - lr * m_hat / (torch.sqrt(v_hat) + 1e-8), m, v


def cross_entropy_{i}(logits: Tensor[{marker}], target: Tensor[{marker}]) -> Tensor[{marker}]:
    logp = logits - logsumexp_{i}(logits).unsqueeze(-1)
    return -(logp.gather(-1, target.unsqueeze(-1))).mean()
'''

GENERIC_TEMPLATE = '''\
"""Device-generic helpers, part {i}: same device in, same device out."""

from __future__ import annotations

from typing import TypeVar

import torch

from device_types import Device, Tensor

D = TypeVar("D", bound=Device)


def linear_{i}(x: Tensor[D], w: Tensor[D], b: Tensor[D]) -> Tensor[D]:
    return torch.matmul(x, w.t()) + b


def swiglu_{i}(x: Tensor[D], w1: Tensor[D], w2: Tensor[D]) -> Tensor[D]:
    return torch.sigmoid(x @ w1) * (x @ w1) * (x @ w2)


def normalize_{i}(x: Tensor[D], eps: float = 1e-12) -> Tensor[D]:
    return x / torch.clamp(torch.sqrt((x * x).sum(dim=-1, keepdim=True)), min=eps)


def pad_rows_{i}(x: Tensor[D], rows: int) -> Tensor[D]:
    return torch.cat([x, torch.zeros(rows, x.shape[1], device=x.device)], dim=0)


def ema_{i}(avg: Tensor[D], new: Tensor[D], decay: float = 0.99) -> Tensor[D]:
    return avg * decay + new * (1.0 - decay)


def stack_pair_{i}(a: Tensor[D], b: Tensor[D]) -> Tensor[D]:
    return torch.stack([a, b], dim=0)
'''

BRIDGE_TEMPLATE = '''\
"""The edge between gradual model code and the device-typed kernels, part {i}."""

from __future__ import annotations

import torch

from device_types import MPS, Tensor, assert_device

from .kernels.mps_{i} import layer_norm_{i}, softplus_{i}


def run_on_mps_{i}(x: torch.Tensor, w: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    xm = assert_device(x, MPS)
    wm = assert_device(w, MPS)
    bm = assert_device(b, MPS)
    out: Tensor[MPS] = softplus_{i}(layer_norm_{i}(xm, wm, bm))
    return out
'''


def generate(out: Path = DEFAULT_OUT, families: int = 8, kernel_parts: int = 4) -> tuple[Path, int, int]:
    """Write the tree; return (package dir, number of files, number of lines)."""
    if out.exists():
        shutil.rmtree(out)
    pkg = out / PACKAGE
    files: dict[str, str] = {"__init__.py": '"""Benchmark tree for the device-types overlay."""\n'}
    files["models/__init__.py"] = ""
    files["kernels/__init__.py"] = ""
    for i in range(families):
        files[f"models/family_{i}.py"] = MODEL_TEMPLATE.format(i=i, dim=64 + 16 * i, hidden=256 + 32 * i)
    for i in range(kernel_parts):
        for name, marker in BACKENDS:
            files[f"kernels/{name}_{i}.py"] = KERNEL_TEMPLATE.format(i=i, name=name.upper(), marker=marker)
        files[f"kernels/generic_{i}.py"] = GENERIC_TEMPLATE.format(i=i)
        files[f"bridge_{i}.py"] = BRIDGE_TEMPLATE.format(i=i)
    lines = 0
    for rel, text in files.items():
        path = pkg / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        lines += text.count("\n")
    return pkg, len(files), lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--families", type=int, default=8)
    parser.add_argument("--kernel-parts", type=int, default=4)
    args = parser.parse_args()
    pkg, nfiles, nlines = generate(args.out, args.families, args.kernel_parts)
    print(f"wrote {nfiles} files, {nlines} lines under {pkg}")


if __name__ == "__main__":
    main()
