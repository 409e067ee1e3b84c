"""Arguments torch reads on any device (the op-semantics table's ANY_DEVICE_PARAMETERS,
found by the run-time conformance suite): a CPU tensor there is no device mix, and the
result keeps the op's own device. The op's other tensors stay tied to it."""

from __future__ import annotations

import torch
from typing_extensions import assert_type

from device_types import CPU, CUDA, Tensor


def index_put_with_host_indices(x: Tensor[CUDA], values: Tensor[CUDA]) -> None:
    rows = torch.tensor([0, 1])
    assert_type(rows, Tensor[CPU])
    assert_type(x.index_put((rows,), values), Tensor[CUDA])
    assert_type(torch.index_put(x, (rows,), values), Tensor[CUDA])
    assert_type(x.clone().index_put_((rows,), values), Tensor[CUDA])


def index_put_values_stay_tied(x: Tensor[CUDA], values: Tensor[CPU]) -> None:
    x.index_put((torch.tensor([0, 1]),), values)  # type: ignore[arg-type]  # pyright: ignore[reportArgumentType]


def shape_templates_on_the_host(x: Tensor[CUDA], template: Tensor[CPU]) -> None:
    assert_type(x.view_as(template), Tensor[CUDA])
    assert_type(x.expand_as(template), Tensor[CUDA])
    assert_type(x.reshape_as(template), Tensor[CUDA])
    assert_type(x.clone().resize_as_(template), Tensor[CUDA])


def scatter_source_on_the_host(x: Tensor[CUDA], src: Tensor[CPU]) -> None:
    assert_type(torch.slice_scatter(x, src), Tensor[CUDA])
    assert_type(x.slice_scatter(src), Tensor[CUDA])


def linspace_bounds_are_scalars(a: Tensor[CUDA], b: Tensor[CUDA]) -> None:
    # the 0-dim bounds are read as numbers: no device= gives the CPU, as for any factory
    assert_type(torch.linspace(a[0, 0, 0], b[0, 0, 0], 5), Tensor[CPU])
    assert_type(torch.logspace(a[0, 0, 0], b[0, 0, 0], 5), Tensor[CPU])
    assert_type(torch.linspace(a[0, 0, 0], b[0, 0, 0], 5, device="cuda"), Tensor[CUDA])
