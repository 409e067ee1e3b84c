"""On-device composites and look-alikes in an MPS backend: no error expected."""

from __future__ import annotations

import torch

from device_types import MPS, Tensor


class HostBox:
    def cpu(self) -> int:
        return 1

    def numpy(self) -> int:
        return 2

    def tolist(self) -> list[int]:
        return [3]


def look_alikes(box: HostBox) -> str:
    box.cpu()
    box.numpy()
    box.tolist()
    text = "x.cpu().numpy() then np.exp(x) and x.to('cpu')"  # x.cpu() in a comment
    return text


def baddbmm(inp: Tensor[MPS], a: Tensor[MPS], b: Tensor[MPS], beta: float, alpha: float) -> Tensor[MPS]:
    # TODO: re-enable native kernel when macOS fixes baddbmm (composite: bmm + mul + add)
    return inp * beta + torch.bmm(a, b) * alpha


def softplus(x: Tensor[MPS]) -> Tensor[MPS]:
    return torch.log1p(torch.exp(x))


def remainder(x: Tensor[MPS], y: Tensor[MPS]) -> Tensor[MPS]:
    r = x - y * torch.floor(x / y)
    return torch.where((r != 0) & ((r < 0) != (y < 0)), r + y, r)


def on_device_factories(x: Tensor[MPS], n: int) -> Tensor[MPS]:
    idx = torch.arange(n, device=x.device)
    ones = torch.ones_like(x)
    z = torch.zeros(n, device="mps")
    return x[idx] + ones[idx] + z + x.to(torch.float16).to(x.dtype) + x.to(x.device)


def bare_on_device(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return torch.where(x > y, x, y).to("mps") + torch.zeros(3, device=x.device)


class RngState:
    """Metadata of a CPU tensor kept as state is not a use of its data (torch._decomp's
    PhiloxState pattern): numel(), size(), dim() and dtype report nothing."""

    def __init__(self) -> None:
        self.seed = torch.tensor(())

    def validate(self) -> int:
        if self.seed.numel() == 0 or self.seed.dim() != 1:
            raise RuntimeError(f"empty seed of size {self.seed.size()} and dtype {self.seed.dtype}")
        return self.seed.element_size()
