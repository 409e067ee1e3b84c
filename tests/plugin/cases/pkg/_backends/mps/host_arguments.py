"""Arguments torch reads on any device (the op-semantics table's ANY_DEVICE_PARAMETERS)
inside the mps backend: a host tensor that torch reads on the host or only by its shape
is no CPU operand; a host-built index map still is; and in-place ops with such a
parameter are not copies into their receiver (only COPY_SOURCES' ops are)."""

from __future__ import annotations

import torch

from device_types import MPS, Tensor


def read_on_the_host_or_by_shape(x: Tensor[MPS]) -> None:
    torch.nn.functional.ctc_loss(x, torch.tensor([[1]]), torch.tensor([2]), torch.tensor([1]))
    x.view_as(torch.zeros(2, 2))
    x.clone().resize_as_(torch.zeros(2, 2))


def host_built_index_map(x: Tensor[MPS], values: Tensor[MPS]) -> None:
    x.index_put_((torch.arange(2),), values)  # E: ".index_put_()" consumes a CPU tensor (created by "arange()" without device=) inside the mps backend (pkg._backends.mps); create it on mps (device=x.device); run device-types explain device-cpu-operand  [device-cpu-operand]


def in_place_on_a_host_tensor_is_no_copy(x: Tensor[MPS]) -> None:
    torch.empty(3).resize_as_(x)  # E: ".resize_as_()" consumes a CPU tensor (created by "empty()" without device=) inside the mps backend (pkg._backends.mps); create it on mps (device=x.device); run device-types explain device-cpu-operand  [device-cpu-operand]
    torch.empty(3).copy_(x)  # E: ".copy_()" into a CPU tensor targets the CPU inside the mps backend (pkg._backends.mps); keep it on mps and use an on-device composite of working ops; run device-types explain device-cpu-target  [device-cpu-target]
