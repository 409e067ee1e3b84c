"""Every finding code of the product, with its one-line meaning: the plugin, ``device-types
check`` and ``device-types audit`` name their findings from here, and ``docs/errors.md`` has
a section for each. Torch-free and mypy-free."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

__all__ = ["Code", "CHECK_CODES", "DOCS", "docs_ref"]

DOCS: Final = "docs/errors.md"


@dataclass(frozen=True)
class Code:
    name: str
    description: str
    default_enabled: bool = True


CONFIG: Final = Code("device-config", "Malformed [tool.device_types] configuration")
CPU_CALL: Final = Code("device-cpu-call", "Tensor moved to the host (.cpu()) in a backend")
READBACK: Final = Code("device-readback", "Tensor data read back to the host (.numpy(), .tolist(), a readback helper) in a backend")
CPU_TARGET: Final = Code("device-cpu-target", "Transfer, copy or factory that targets the CPU in a backend")
NUMPY: Final = Code("device-numpy", "Op result computed or built on the host (numpy, a host RNG) in a backend")
CPU_SIGNATURE: Final = Code("device-cpu-signature", "Backend function that takes or returns Tensor[CPU]")
CPU_OPERAND: Final = Code("device-cpu-operand", "Op that consumes a CPU tensor in a backend")
MIXED_DEVICES: Final = Code("device-mixed-devices", "Op that mixes tensors of two devices in a backend")
WRONG_DEVICE: Final = Code("device-wrong-device", "Tensor on another device than the backend's")
HOST_SYNC: Final = Code("device-host-sync", "Host sync (.item(), a readback used only for control flow) in a backend (opt-in)",
                        default_enabled=False)
UNKNOWN_DEVICE: Final = Code("device-unknown-device", "Device string that names no device")
CPU_BACKEND: Final = Code("device-cpu-backend", "CPU-backend op called from a device backend")
INDIRECT: Final = Code("device-indirect-fallback", "Call of another backend function that falls back to the host")
UNANALYSED: Final = Code("device-unanalysed", "A file device-types check could not read or parse")

#: The codes ``device-types check`` reports (the untyped analysis).
CHECK_CODES: Final = (READBACK, CPU_CALL, CPU_TARGET, NUMPY, CPU_BACKEND, INDIRECT, HOST_SYNC, UNANALYSED)
BY_NAME: Final = {c.name: c for c in (CONFIG, CPU_CALL, READBACK, CPU_TARGET, NUMPY, CPU_SIGNATURE, CPU_OPERAND,
                                      MIXED_DEVICES, WRONG_DEVICE, HOST_SYNC, UNKNOWN_DEVICE, CPU_BACKEND, INDIRECT,
                                      UNANALYSED)}


def docs_ref(code: str) -> str:
    return f"see {DOCS}#{code}"
