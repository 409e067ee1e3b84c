"""``device-cpu-target``: the own host path starts with a transfer that names the CPU, in
any spelling (``.to("cpu")``, ``.to(device=CPU)``, ``torch.device("cpu")``) (``_own_path``)."""

from __future__ import annotations

from collections.abc import Iterator

from ..._finding import Finding
from .. import _codes as codes
from ._function import FunctionFacts
from ._own_path import own_path_findings

CODE = codes.CPU_TARGET


def findings(function: FunctionFacts) -> Iterator[Finding]:
    return own_path_findings(function, CODE)
