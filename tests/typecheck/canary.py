"""Proof that the harness can fail: each checker must report exactly these two lines."""

from __future__ import annotations

from typing_extensions import assert_type

from device_types import CPU, MPS, Tensor


def wrong_device(x: Tensor[MPS]) -> None:
    assert_type(x.cpu(), Tensor[MPS])  # the canary's assert_type failure


def needless_ignore(x: Tensor[MPS]) -> None:
    y: Tensor[CPU] = x.cpu()  # type: ignore[assignment]  # pyright: ignore[reportAssignmentType]
    del y
