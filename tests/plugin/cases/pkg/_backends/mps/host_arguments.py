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


def split_points_by_the_overload_the_argument_selects(x: Tensor[MPS], y: Tensor[MPS]) -> None:
    # tensor_split's first overload names its positional parameter ``indices``; a tensor
    # there binds ``tensor_indices_or_sections`` (torch reads split points on the host)
    x.tensor_split(torch.tensor([1]))
    torch.tensor_split(x, torch.tensor([1]), 0)
    x.tensor_split(torch.arange(2), 0)
    torch.cat([x, y]).tensor_split(2)
    torch.tensor_split(torch.zeros(4), 2)  # E: "tensor_split()" consumes a CPU tensor (created by "zeros()" without device=) inside the mps backend (pkg._backends.mps); create it on mps (device=x.device); run device-types explain device-cpu-operand  [device-cpu-operand]


def one_error_for_a_host_value_stored_into_a_device_tensor(x: Tensor[MPS]) -> None:
    x[0] = torch.zeros(3)  # E: "__setitem__()" consumes a CPU tensor (created by "zeros()" without device=) inside the mps backend (pkg._backends.mps); create it on mps (device=x.device); run device-types explain device-cpu-operand  [device-cpu-operand]
    y = torch.ones(3)
    x[1] = y  # E: "__setitem__()" consumes a CPU tensor (a Tensor[CPU]) inside the mps backend (pkg._backends.mps); create it on mps (device=x.device); run device-types explain device-cpu-operand  [device-cpu-operand]
    x[2] = 1.0
