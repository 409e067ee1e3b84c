"""device-types: the device a tensor lives on, as part of its static type.

``Tensor[MPS]`` is a torch tensor on Apple Metal; ``torch.Tensor`` (no argument) stays
gradual. Statically ``Tensor`` is torch's own ``Tensor`` made device-generic by the
overlay (``device-types stubs install``); at run time it is a stand-in whose
``isinstance`` is torch's, and ``Tensor[MPS]`` is a class whose ``isinstance`` is a torch
tensor on mps (so beartype, typeguard and jaxtyping's ``Float[Tensor[MPS], "b n"]`` check
the device). Importing this package does not import torch, and it works without torch
installed (``pip install device-types`` brings the check and the audit alone):
``isinstance`` is then False (see ``_runtime_tensor``).
"""

from typing import TYPE_CHECKING

from ._devices import CPU, CUDA, MPS, NPU, XPU, Device
from ._narrowing import DeviceMismatchError, assert_device, is_device

if TYPE_CHECKING:
    from torch import Tensor as Tensor
else:
    def __getattr__(name: str) -> object:
        # ``Tensor`` is made on first use: the check and the audit (this package's CLI)
        # never use it, and its module imports threading and copyreg (about 1.5 ms)
        if name == "Tensor":
            from ._runtime_tensor import Tensor

            globals()["Tensor"] = Tensor
            return Tensor
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

    def __dir__() -> list[str]:
        return sorted(set(globals()) | {"Tensor"})

__all__ = [
    "CPU",
    "CUDA",
    "MPS",
    "NPU",
    "XPU",
    "Device",
    "DeviceMismatchError",
    "Tensor",
    "assert_device",
    "is_device",
]
__version__ = "0.1.0"
