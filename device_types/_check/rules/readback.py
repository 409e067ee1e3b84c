"""``device-readback``: the own host path starts with data read back by a helper or a method
(``_to_numpy(a)``, ``.numpy()``, ``.tolist()``, a device-to-host memcpy) (``_own_path``)."""

from __future__ import annotations

from collections.abc import Iterator

from ..._finding import Finding
from .. import _codes as codes
from ._function import FunctionFacts
from ._own_path import own_path_findings

CODE = codes.READBACK


def findings(function: FunctionFacts) -> Iterator[Finding]:
    return own_path_findings(function, CODE)
