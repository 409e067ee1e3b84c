"""Proves which condition a run saw: an error without the overlay, none with it."""

import torch
from typing_extensions import assert_type

from device_types import CPU, Tensor


def probe(x: torch.Tensor) -> None:
    assert_type(x.cpu(), Tensor[CPU])  # the overlay's device; plain torch.Tensor without it
