"""Ordinary torch code with bare ``torch.Tensor`` annotations (no device types).

The overlay must add no error here under ``mypy --strict`` or pyright strict: the file
is clean without the overlay (verified by ``record_baseline.py``) and the suite checks it
stays clean with it.
"""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn


class MLP(nn.Module):
    def __init__(self, features: int, hidden: int, classes: int) -> None:
        super().__init__()
        self.fc1 = nn.Linear(features, hidden)
        self.fc2 = nn.Linear(hidden, classes)
        self.norm = nn.LayerNorm(hidden)
        self.register_buffer("scale", torch.ones(hidden))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = F.gelu(self.norm(self.fc1(x)))
        out: torch.Tensor = self.fc2(h * 0.5)
        return out


def pick_device() -> torch.device:
    return torch.device("cuda" if torch.cuda.is_available() else "cpu")


def make_batch(n: int, features: int, device: torch.device) -> tuple[torch.Tensor, torch.Tensor]:
    x = torch.randn(n, features, device=device)
    y = torch.randint(0, 3, (n,), device=device)
    return x, y


def train_step(model: MLP, opt: torch.optim.Optimizer, x: torch.Tensor, y: torch.Tensor) -> float:
    opt.zero_grad()
    logits = model(x)
    loss = F.cross_entropy(logits, y)
    loss.backward()
    opt.step()
    return float(loss.item())


def evaluate(model: MLP, x: torch.Tensor, y: torch.Tensor) -> float:
    with torch.no_grad():
        pred = model(x).argmax(dim=-1)
        correct = (pred == y).sum()
    return correct.item() / max(len(y), 1)


def to_numpy(t: torch.Tensor) -> np.ndarray:
    return t.detach().cpu().numpy()


def from_numpy(a: np.ndarray, device: torch.device) -> torch.Tensor:
    return torch.from_numpy(a).to(device)


def summarize(values: list[torch.Tensor]) -> dict[str, float]:
    stacked = torch.stack(values)
    return {"mean": stacked.mean().item(), "max": stacked.max().item(), "n": float(stacked.numel())}


def flatten_params(model: nn.Module) -> torch.Tensor:
    return torch.cat([p.detach().reshape(-1) for p in model.parameters()])


def maybe_tensor(o: object) -> torch.Tensor | None:
    if isinstance(o, torch.Tensor):
        return o * 2  # KNOWN-LIMIT pyright: isinstance narrows to Tensor[Unknown] (docs/limits.md)
    return None


def maybe_tensor_is_tensor(o: object) -> torch.Tensor | None:
    if torch.is_tensor(o):  # the documented way out: a TypeIs narrows to Tensor[Any]
        return o * 2
    return None


def moved(t: torch.Tensor, target: str) -> torch.Tensor:
    return t.to(target, non_blocking=True).float()


def masks(t: torch.Tensor) -> list[float]:
    m = torch.where(t > 0, t, torch.zeros_like(t))
    clipped = m.clamp(max=1.0)
    values: list[float] = clipped.flatten().tolist()
    return values


def spectral_features(t: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    norms = torch.linalg.vector_norm(t, dim=-1, keepdim=True)
    u, s, vh = torch.linalg.svd(t, full_matrices=False)
    eig = torch.linalg.eigh(t @ t.T).eigenvalues
    spectrum = torch.fft.rfft(t, dim=-1).abs()
    freqs = torch.fft.rfftfreq(t.shape[-1], device=t.device)
    gate = torch.special.expit(torch.einsum("ij,jk->ik", t, w))
    dist = torch.cdist(t, t)
    uniq, counts = torch.unique(t.round(), return_counts=True)
    parts = torch.split(t, 2, dim=-1)
    grid_x, grid_y = torch.meshgrid(freqs, freqs, indexing="ij")
    total = norms.sum() + ((u * s) @ vh).sum() + eig.sum() + spectrum.mean() + gate.sum() + dist.max()
    return total + counts.sum() + parts[0].sum() + torch.norm(t) + uniq.float().mean() + (grid_x * grid_y).sum()


def main() -> None:
    device = pick_device()
    model = MLP(8, 16, 3).to(device)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    x, y = make_batch(32, 8, device)
    losses = [torch.tensor(train_step(model, opt, x, y)) for _ in range(3)]
    print(summarize(losses), evaluate(model, x, y), to_numpy(flatten_params(model)).shape)
    print(from_numpy(np.ones(3, dtype=np.float32), device), maybe_tensor(x), moved(x, "cpu").shape, masks(x)[:2])
    print(spectral_features(x, torch.ones(8, 8, device=device)))


if __name__ == "__main__":
    main()
