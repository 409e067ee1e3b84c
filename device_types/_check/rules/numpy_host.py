"""``device-numpy``: the own host path starts with data built or computed on the host (numpy,
a host RNG, a Python loop) that reaches the device or the result (``_own_path``)."""

from __future__ import annotations

from collections.abc import Iterator

from ..._finding import Finding
from .. import _codes as codes
from ._function import FunctionFacts
from ._own_path import own_path_findings

CODE = codes.NUMPY


def findings(function: FunctionFacts) -> Iterator[Finding]:
    return own_path_findings(function, CODE)
