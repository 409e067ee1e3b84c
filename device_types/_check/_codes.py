"""The check's code names (strings), from the product's one list in ``device_types._codes``."""

from __future__ import annotations

from typing import Final

from .. import _codes

READBACK: Final = _codes.READBACK.name
CPU_CALL: Final = _codes.CPU_CALL.name
CPU_TARGET: Final = _codes.CPU_TARGET.name
NUMPY: Final = _codes.NUMPY.name
CPU_BACKEND: Final = _codes.CPU_BACKEND.name
INDIRECT: Final = _codes.INDIRECT.name
HOST_SYNC: Final = _codes.HOST_SYNC.name
UNANALYSED: Final = _codes.UNANALYSED.name
