"""The plugin's mypy ``ErrorCode``s, derived from the product's code registry
(``device_types._codes``): every code starts with ``device-`` and can be silenced on its
own (``# type: ignore[device-cpu-call]``, ``--disable-error-code device-cpu-call``)."""

from __future__ import annotations

from typing import Final

from mypy.errorcodes import ErrorCode

from device_types import _codes

CATEGORY: Final = "device-types"


def _error_code(code: _codes.Code) -> ErrorCode:
    assert _codes.PLUGIN in code.front_ends, code.name
    return ErrorCode(code.name, code.summary, CATEGORY, default_enabled=code.default_enabled)


CONFIG: Final = _error_code(_codes.CONFIG)
CPU_CALL: Final = _error_code(_codes.CPU_CALL)
READBACK: Final = _error_code(_codes.READBACK)
CPU_TARGET: Final = _error_code(_codes.CPU_TARGET)
NUMPY: Final = _error_code(_codes.NUMPY)
CPU_SIGNATURE: Final = _error_code(_codes.CPU_SIGNATURE)
CPU_OPERAND: Final = _error_code(_codes.CPU_OPERAND)
MIXED_DEVICES: Final = _error_code(_codes.MIXED_DEVICES)
WRONG_DEVICE: Final = _error_code(_codes.WRONG_DEVICE)
HOST_SYNC: Final = _error_code(_codes.HOST_SYNC)
UNKNOWN_OPERAND: Final = _error_code(_codes.UNKNOWN_OPERAND)
UNKNOWN_DEVICE: Final = _error_code(_codes.UNKNOWN_DEVICE)

ALL_CODES: Final = (CONFIG, CPU_CALL, READBACK, CPU_TARGET, NUMPY, CPU_SIGNATURE, CPU_OPERAND, MIXED_DEVICES,
                    WRONG_DEVICE, HOST_SYNC, UNKNOWN_OPERAND, UNKNOWN_DEVICE)
assert [c.code for c in ALL_CODES] == [c.name for c in _codes.codes_of(_codes.PLUGIN)]


def registry_code(code: ErrorCode) -> _codes.Code:
    return _codes.BY_NAME[code.code]
