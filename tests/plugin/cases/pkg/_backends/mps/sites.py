"""Every kind of site whose operands the policy checks, besides calls: operators (the
reflected form too), comparisons, `in`, indexing, index assignment and in-place operators;
in a function, a method and a nested function. The plugin checks these once per module
after mypy (module_pass.py); under dmypy, from a hook per call: both report the same."""

from __future__ import annotations

import torch

from device_types import CUDA, MPS, Tensor


def operators(x: Tensor[MPS], y: Tensor[CUDA], n: int) -> None:  # E: the signature of "operators" names a tensor that is on cuda, not mps, inside the mps backend (pkg._backends.mps); keep it on mps; run device-types explain device-wrong-device  [device-wrong-device]
    t = torch.arange(n)
    x - t  # E: "-" consumes a CPU tensor (a Tensor[CPU]) inside the mps backend (pkg._backends.mps); create it on mps (device=x.device); run device-types explain device-cpu-operand  [device-cpu-operand]
    2.0 * t  # E: "*" consumes a CPU tensor (a Tensor[CPU]) inside the mps backend (pkg._backends.mps); create it on mps (device=x.device); run device-types explain device-cpu-operand  [device-cpu-operand]
    t / 2  # E: "/" consumes a CPU tensor (a Tensor[CPU]) inside the mps backend (pkg._backends.mps); create it on mps (device=x.device); run device-types explain device-cpu-operand  [device-cpu-operand]
    x ** y  # E: "**" mixes tensors on mps and cuda inside the mps backend (pkg._backends.mps); keep every operand on mps; run device-types explain device-mixed-devices  [device-mixed-devices]
    x @ t  # E: "@" consumes a CPU tensor (a Tensor[CPU]) inside the mps backend (pkg._backends.mps); create it on mps (device=x.device); run device-types explain device-cpu-operand  [device-cpu-operand]


def comparisons(x: Tensor[MPS], y: Tensor[CUDA], n: int) -> None:  # E: the signature of "comparisons" names a tensor that is on cuda, not mps, inside the mps backend (pkg._backends.mps); keep it on mps; run device-types explain device-wrong-device  [device-wrong-device]
    t = torch.arange(n)
    x < t  # E: "__lt__()" consumes a CPU tensor (a Tensor[CPU]) inside the mps backend (pkg._backends.mps); create it on mps (device=x.device); run device-types explain device-cpu-operand  [device-cpu-operand]
    0 < x < y  # E: Unsupported operand types for < ("Tensor[MPS]" and "Tensor[CUDA]")  [operator]
    x == y  # E: an operand of "__eq__()" is on cuda, not mps, inside the mps backend (pkg._backends.mps); keep it on mps; run device-types explain device-wrong-device  [device-wrong-device]
    t in x  # E: "__contains__()" consumes a CPU tensor (a Tensor[CPU]) inside the mps backend (pkg._backends.mps); create it on mps (device=x.device); run device-types explain device-cpu-operand  [device-cpu-operand]


def indexing(x: Tensor[MPS], y: Tensor[CUDA], n: int) -> None:  # E: the signature of "indexing" names a tensor that is on cuda, not mps, inside the mps backend (pkg._backends.mps); keep it on mps; run device-types explain device-wrong-device  [device-wrong-device]
    t = torch.arange(n)
    x[t]  # E: "__getitem__()" consumes a CPU tensor (a Tensor[CPU]) inside the mps backend (pkg._backends.mps); create it on mps (device=x.device); run device-types explain device-cpu-operand  [device-cpu-operand]
    x[t, 0]  # E: "__getitem__()" consumes a CPU tensor (a Tensor[CPU]) inside the mps backend (pkg._backends.mps); create it on mps (device=x.device); run device-types explain device-cpu-operand  [device-cpu-operand]
    x[y]  # E: an operand of "__getitem__()" is on cuda, not mps, inside the mps backend (pkg._backends.mps); keep it on mps; run device-types explain device-wrong-device  [device-wrong-device]
    x[0] = t  # E: "__setitem__()" consumes a CPU tensor (a Tensor[CPU]) inside the mps backend (pkg._backends.mps); create it on mps (device=x.device); run device-types explain device-cpu-operand  [device-cpu-operand]
    x[t] = 1.0  # E: "__setitem__()" consumes a CPU tensor (a Tensor[CPU]) inside the mps backend (pkg._backends.mps); create it on mps (device=x.device); run device-types explain device-cpu-operand  [device-cpu-operand]


def in_place(x: Tensor[MPS], y: Tensor[CUDA], n: int) -> None:  # E: the signature of "in_place" names a tensor that is on cuda, not mps, inside the mps backend (pkg._backends.mps); keep it on mps; run device-types explain device-wrong-device  [device-wrong-device]
    t = torch.arange(n)
    x += t  # E: "__iadd__()" consumes a CPU tensor (a Tensor[CPU]) inside the mps backend (pkg._backends.mps); create it on mps (device=x.device); run device-types explain device-cpu-operand  [device-cpu-operand]
    x *= y  # E: an operand of "__imul__()" is on cuda, not mps, inside the mps backend (pkg._backends.mps); keep it on mps; run device-types explain device-wrong-device  [device-wrong-device]  # E: Argument 1 to "__imul__" of "TensorBase" has incompatible type "Tensor[CUDA]"; expected "Tensor[MPS] | int | float | bool | complex"  [arg-type]
    x -= 1.0


def silenced(x: Tensor[MPS], n: int) -> None:
    x - torch.arange(n)  # type: ignore[device-cpu-operand]


class Kernel:
    def forward(self, x: torch.Tensor, w: torch.Tensor = torch.ones(3)) -> torch.Tensor:
        def inner(z: torch.Tensor, b: torch.Tensor = torch.zeros(2)) -> torch.Tensor:
            return z * b  # E: "*" consumes a CPU tensor (the default of parameter "b" is created on the host) inside the mps backend (pkg._backends.mps); create it on mps (device=x.device); run device-types explain device-cpu-operand  [device-cpu-operand]

        return inner(x) + w  # E: "+" consumes a CPU tensor (the default of parameter "w" is created on the host) inside the mps backend (pkg._backends.mps); create it on mps (device=x.device); run device-types explain device-cpu-operand  [device-cpu-operand]

    @staticmethod
    def bias(x: torch.Tensor) -> torch.Tensor:
        return torch.add(x, torch.ones(2)).abs()  # E: "add()" consumes a CPU tensor (created by "ones()" without device=) inside the mps backend (pkg._backends.mps); create it on mps (device=x.device); run device-types explain device-cpu-operand  [device-cpu-operand]
