"""jaxtyping around device types: the subject of test_static.py (every checker reads
``Float[Tensor[MPS], "b n"]`` as ``Tensor[MPS]``) and of test_runtime.py (jaxtyping with
beartype and with typeguard 2.13.3 checks dtype, shape and device). Not a backend module."""

from __future__ import annotations

from typing import TypeVar

import torch
from beartype import beartype
from jaxtyping import Float, Int, jaxtyped  # pyright: ignore[reportUnknownVariableType]  # (jaxtyping leaves its typechecker parameter unannotated)
from typing_extensions import assert_type

from device_types import CPU, MPS, Device, Tensor

D = TypeVar("D", bound=Device)


def row_sums(x: Float[Tensor[CPU], "b n"]) -> Float[Tensor[CPU], " b"]:
    assert_type(x, Tensor[CPU])
    return x.sum(-1)


def mps_row_sums(x: Float[Tensor[MPS], "b n"]) -> Float[Tensor[MPS], " b"]:
    assert_type(x, Tensor[MPS])
    assert_type(x.sum(-1), Tensor[MPS])
    return x.sum(-1)


def same_device(x: Float[Tensor[D], "b n"], bias: Float[Tensor[D], " n"]) -> Float[Tensor[D], "b n"]:
    assert_type(x + bias, Tensor[D])
    return x + bias


def counts(x: Int[Tensor[CPU], " n"]) -> Int[Tensor[CPU], ""]:
    assert_type(x, Tensor[CPU])
    return x.sum()


def moved_to_meta(x: Float[Tensor[CPU], "b n"]) -> Float[Tensor[CPU], " b"]:
    return x.sum(-1).to("meta")  # statically unknown device; the run-time check catches it


@jaxtyped(typechecker=beartype)
def scale(x: Float[Tensor[MPS], "b n"], w: Float[Tensor[MPS], " n"]) -> Float[Tensor[MPS], "b n"]:
    assert_type(x * w, Tensor[MPS])
    return x * w


def scale_on_host(x: Float[Tensor[CPU], "b n"], w: Float[Tensor[CPU], " n"]) -> None:
    scale(x, w)  # type: ignore[arg-type]  # pyright: ignore[reportArgumentType]


def host_result(x: Float[Tensor[MPS], "b n"]) -> Float[Tensor[MPS], " b"]:
    return x.sum(-1).cpu()  # type: ignore[return-value]  # pyright: ignore[reportReturnType]


def mixed(x: Float[Tensor[MPS], "b n"], y: Float[Tensor[CPU], "b n"]) -> None:
    x + y  # type: ignore[operator]  # pyright: ignore[reportOperatorIssue]


def host_factory_into_device(x: Float[Tensor[MPS], "b n"]) -> None:
    x * torch.ones(3)  # type: ignore[operator]  # pyright: ignore[reportOperatorIssue]
