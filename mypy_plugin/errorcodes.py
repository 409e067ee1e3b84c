"""Error codes of the plugin. Every code starts with ``device-`` and can be silenced on its
own (``# type: ignore[device-cpu-call]``, ``--disable-error-code device-cpu-call``)."""

from __future__ import annotations

from typing import Final

from mypy.errorcodes import ErrorCode

CATEGORY: Final = "device-types"
DOCS: Final = "docs/errors.md"

CONFIG: Final = ErrorCode("device-config", "Malformed [tool.device_types] configuration", CATEGORY)
CPU_CALL: Final = ErrorCode("device-cpu-call", "Tensor moved to the host (.cpu()) in a backend", CATEGORY)
READBACK: Final = ErrorCode(
    "device-readback", "Tensor data read back to the host (.numpy(), .tolist()) in a backend", CATEGORY
)
CPU_TARGET: Final = ErrorCode(
    "device-cpu-target", "Transfer, copy or factory that targets the CPU in a backend", CATEGORY
)
NUMPY: Final = ErrorCode("device-numpy", "numpy computation in a backend", CATEGORY)
CPU_SIGNATURE: Final = ErrorCode(
    "device-cpu-signature", "Backend function that takes or returns Tensor[CPU]", CATEGORY
)
CPU_OPERAND: Final = ErrorCode("device-cpu-operand", "Op that consumes a CPU tensor in a backend", CATEGORY)
MIXED_DEVICES: Final = ErrorCode("device-mixed-devices", "Op that mixes tensors of two devices in a backend", CATEGORY)
WRONG_DEVICE: Final = ErrorCode(
    "device-wrong-device", "Tensor on another device than the backend's", CATEGORY
)
HOST_SYNC: Final = ErrorCode(
    "device-host-sync", "Host sync (.item()) in a backend (opt-in)", CATEGORY, default_enabled=False
)
UNKNOWN_DEVICE: Final = ErrorCode("device-unknown-device", "Device string that names no device", CATEGORY)

ALL_CODES: Final = (
    CONFIG,
    CPU_CALL,
    READBACK,
    CPU_TARGET,
    NUMPY,
    CPU_SIGNATURE,
    CPU_OPERAND,
    MIXED_DEVICES,
    WRONG_DEVICE,
    HOST_SYNC,
    UNKNOWN_DEVICE,
)


def docs_ref(code: ErrorCode) -> str:
    return f"see {DOCS}#{code.code}"
