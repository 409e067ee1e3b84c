"""Device markers: the classes that stand for a device in ``Tensor[D]``.

Markers are never instantiated; only the class matters. This module must not import
torch: the mypy plugin and the CLI import it on their hot paths.
"""

from __future__ import annotations

from typing import ClassVar, Final, final

__all__ = ["CPU", "CUDA", "MPS", "NPU", "XPU", "Device", "DEVICE_BY_TYPE", "TORCH_DEVICE_TYPES", "device_for_type"]


class Device:
    """Base of every device marker; use it as the bound of a device TypeVar.

    ``D = TypeVar("D", bound=Device)`` lets a helper say "same device in, same device out".
    """

    type: ClassVar[str] = ""

    def __new__(cls) -> Device:  # pragma: no cover - markers are types, not values
        raise TypeError(f"{cls.__name__} is a device marker: write Tensor[{cls.__name__}], not {cls.__name__}()")


@final
class CPU(Device):
    """Host memory (``torch.device("cpu")``)."""

    type = "cpu"


@final
class CUDA(Device):
    """NVIDIA and ROCm GPUs (``torch.device("cuda")``, any index)."""

    type = "cuda"


@final
class MPS(Device):
    """Apple Metal (``torch.device("mps")``)."""

    type = "mps"


@final
class NPU(Device):
    """Ascend NPUs via torch_npu (``torch.device("npu")``, any index)."""

    type = "npu"


@final
class XPU(Device):
    """Intel GPUs (``torch.device("xpu")``, any index)."""

    type = "xpu"


DEVICE_BY_TYPE: Final[dict[str, type[Device]]] = {m.type: m for m in (CPU, CUDA, MPS, NPU, XPU)}


#: Every device type torch's ``torch.device`` parses (c10/core/DeviceType.cpp, the names
#: of ``c10::DeviceType``; ``privateuseone`` is renamed by out-of-tree backends such as
#: torch_npu's "npu") and names older releases accepted (``msnpu``, ``ort``).
TORCH_DEVICE_TYPES: Final = frozenset(
    {"cpu", "cuda", "mps", "npu", "xpu", "meta", "hip", "xla", "hpu", "mtia", "ipu", "lazy", "vulkan", "metal",
     "ve", "fpga", "maia", "mkldnn", "opengl", "opencl", "ideep", "privateuseone", "msnpu", "ort"}
)


def device_for_type(device: str) -> type[Device] | None:
    """Marker for a device string such as ``"cuda"``, ``"cuda:1"`` or ``"npu:0"``; None if unknown."""
    kind, _, index = device.strip().partition(":")
    if index and not index.isdigit():
        return None
    return DEVICE_BY_TYPE.get(kind)
