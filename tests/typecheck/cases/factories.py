"""Factories: device= picks the device, no device gives CPU, *_like/new_* keep it."""

from __future__ import annotations

from typing import Any

import torch
from typing_extensions import assert_type

from device_types import CPU, CUDA, MPS, XPU, Tensor


def no_device() -> None:
    assert_type(torch.zeros(3), Tensor[CPU])
    assert_type(torch.ones(2, 2), Tensor[CPU])
    assert_type(torch.empty((2, 2)), Tensor[CPU])
    assert_type(torch.arange(4), Tensor[CPU])
    assert_type(torch.tensor([1.0, 2.0]), Tensor[CPU])
    assert_type(torch.full((2,), 1.0), Tensor[CPU])
    assert_type(torch.randn(2, 2), Tensor[CPU])
    assert_type(torch.eye(3), Tensor[CPU])
    assert_type(torch.linspace(0.0, 1.0, 5), Tensor[CPU])


def literal_device() -> None:
    assert_type(torch.zeros(3, device="cpu"), Tensor[CPU])
    assert_type(torch.zeros(3, device="cuda"), Tensor[CUDA])
    assert_type(torch.zeros(3, device="cuda:1"), Tensor[CUDA])
    assert_type(torch.ones(3, device="mps"), Tensor[MPS])
    assert_type(torch.arange(3, device="xpu:0"), Tensor[XPU])
    assert_type(torch.tensor([1.0], device="cuda"), Tensor[CUDA])
    assert_type(torch.randn(2, device=torch.device("cuda")), Tensor[CUDA])
    assert_type(torch.randn(2, device=torch.device("cuda", 1)), Tensor[CUDA])


def device_of_another_tensor(x: Tensor[MPS]) -> None:
    assert_type(x.device, "torch.device[MPS]")
    assert_type(torch.zeros(3, device=x.device), Tensor[MPS])
    assert_type(torch.arange(3, device=x.device, dtype=torch.int64), Tensor[MPS])
    assert_type(torch.as_tensor(x), Tensor[MPS])


def like_and_new(x: Tensor[MPS]) -> None:
    assert_type(torch.zeros_like(x), Tensor[MPS])
    assert_type(torch.ones_like(x), Tensor[MPS])
    assert_type(torch.full_like(x, 2.0), Tensor[MPS])
    assert_type(torch.randn_like(x), Tensor[MPS])
    assert_type(torch.empty_like(x, device="cpu"), Tensor[CPU])
    assert_type(x.new_zeros(3), Tensor[MPS])
    assert_type(x.new_ones((2, 2)), Tensor[MPS])
    assert_type(x.new_full((2,), 1.0), Tensor[MPS])
    assert_type(x.new_empty(2, device="cuda"), Tensor[CUDA])


def originals_sharing_device_overloads(x: Tensor[MPS], gen: torch.Generator) -> None:
    # Originals that differ in one parameter's type (linspace's start and end: Tensor or
    # number) or one optional keyword (generator=) share their device overloads
    # (stubs/signatures.py, merge_originals): every form keeps its device.
    # (a generator lives on one device: a CPU one with CPU tensors, None with the others)
    assert_type(torch.rand(3, generator=None, device="cuda"), Tensor[CUDA])
    assert_type(torch.rand((2, 2), device=x.device), Tensor[MPS])
    assert_type(torch.randn(2, 2, generator=gen), Tensor[CPU])
    assert_type(torch.randperm(4, generator=gen, device="cpu"), Tensor[CPU])
    assert_type(torch.randperm(4, generator=None, device=x.device), Tensor[MPS])
    assert_type(torch.randint(0, 5, (2,), generator=None, device="cuda"), Tensor[CUDA])
    assert_type(torch.randint_like(x, 5), Tensor[MPS])
    assert_type(torch.randint_like(x, 0, 5, device="cpu"), Tensor[CPU])
    assert_type(torch.linspace(0.0, 1.0, 5, device=x.device), Tensor[MPS])
    assert_type(torch.linspace(torch.tensor(0.0), 1.0, 5), Tensor[CPU])
    assert_type(torch.logspace(0.0, torch.tensor(1.0), 5, device="cpu"), Tensor[CPU])


def unknown_device_strings(name: str) -> None:
    # A device only known at run time gives an unknown device: no check, no error.
    y = torch.zeros(3, device=name)
    assert_type(y, torch.Tensor)
    z = torch.zeros(3, device="cuda:99")
    assert_type(z, torch.Tensor)


def partly_unknown_device(
    x: Tensor[MPS], bare: torch.Tensor, untyped: Any, data: list[float], flag: bool
) -> None:
    # ``device | Any`` (pyright: ``device | Unknown``, e.g. ``self.buf.device`` of an untyped
    # module) and a wholly unknown device give torch's own result type, as without the
    # overlay. (``device[MPS] | Any`` gives MPS in pyright, Any in mypy: docs/limits.md.)
    device = bare.device if flag else untyped.device
    assert_type(device, "torch.device | Any")
    assert_type(torch.zeros(3, device=device), torch.Tensor)
    assert_type(torch.zeros((2, 2), device=device), torch.Tensor)
    assert_type(torch.tensor(data, device=device), torch.Tensor)
    assert_type(torch.arange(3, device=device), torch.Tensor)
    assert_type(torch.full((2,), 1.0, device=device), torch.Tensor)
    assert_type(torch.zeros_like(x, device=device), torch.Tensor)
    assert_type(x.new_zeros(3, device=device), torch.Tensor)
    assert_type(torch.zeros(3, device=untyped.device), torch.Tensor)
    # ...while every typed form keeps its device
    assert_type(torch.zeros(3, device=x.device), Tensor[MPS])
    assert_type(torch.zeros(3, device="cuda"), Tensor[CUDA])
    assert_type(torch.zeros(3), Tensor[CPU])


def declared_type_against_the_device_argument(x: Tensor[MPS]) -> None:
    # A known gap of mypy with the overlay alone (docs/checkers.md): with a declared type on
    # the left, mypy solves the factory's device from it and falls back to an overload that
    # takes any device, so this line passes in mypy (no ignore: warn_unused_ignores would
    # flag one) and fails in pyright and basedpyright. mypy with the plugin rejects it
    # (tests/plugin/cases/pkg/outside.py).
    w: Tensor[CUDA] = torch.ones(3, device=x.device)  # pyright: ignore[reportAssignmentType]
    del w
