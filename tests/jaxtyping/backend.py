"""A backend module (mapped to mps by test_static.py's mypy configuration): the plugin's
policy applies to a jaxtyping-annotated kernel as to a ``Tensor[MPS]`` one."""

from __future__ import annotations

import torch
from jaxtyping import Float
from typing_extensions import assert_type

from device_types import CPU, MPS, Tensor


def softplus(x: Float[Tensor[MPS], "b n"]) -> Float[Tensor[MPS], "b n"]:
    assert_type(x, Tensor[MPS])
    return torch.log1p(torch.exp(x))


def softplus_on_host(x: Float[Tensor[MPS], "b n"]) -> None:
    host = x.cpu()
    assert_type(host, Tensor[CPU])
