"""Run-time stand-in for ``device_types.Tensor`` (checkers see torch's Tensor instead).

torch is imported only when a marker needs it, and the package works without torch
(the check and the audit are installed without it):

- ``Tensor[MPS]`` is ``Annotated[torch.Tensor, MPS]``; without torch it is
  ``Annotated[device_types.Tensor, MPS]``, so annotations still evaluate (a module that is
  imported, documented or checked in an environment without torch does not fail at import);
- ``isinstance(x, Tensor)`` is torch's check; it never imports torch, since no object is a
  torch tensor before torch is imported, so it is False where torch is not (or not yet) loaded;
- ``Tensor(...)`` builds a ``torch.Tensor``; without torch it raises one ModuleNotFoundError
  that names the fix.
"""

from __future__ import annotations

import functools
import sys
from typing import Annotated, Any, TypeVar

from ._devices import Device

__all__ = ["Tensor"]

NO_TORCH = "device_types.Tensor(...) builds a torch.Tensor, and torch is not installed in this environment (pip install torch)"


@functools.cache
def _torch_tensor() -> type | None:
    """``torch.Tensor``, importing torch on first use; None where torch is not installed
    (remembered, so annotations in a torch-free environment do not search sys.path again)."""
    try:
        import torch
    except ModuleNotFoundError as exc:
        if exc.name != "torch":
            raise  # torch is there but broken: say so, do not pretend it is absent
        return None
    return torch.Tensor


def _loaded_torch_tensor() -> type | None:
    """``torch.Tensor`` if torch is already imported, without importing it."""
    torch = sys.modules.get("torch")
    return getattr(torch, "Tensor", None) if torch is not None else None


class _TensorMeta(type):
    def __getitem__(cls, device: Any) -> Any:
        if not isinstance(device, TypeVar) and not (
            isinstance(device, type) and issubclass(device, Device) and device is not Device
        ):
            raise TypeError(
                f"Tensor[...] takes a device marker (CPU, CUDA, MPS, NPU, XPU) or a TypeVar bound to Device, got {device!r}"
            )
        return Annotated[_torch_tensor() or cls, device]

    def __instancecheck__(cls, obj: object) -> bool:
        tensor = _loaded_torch_tensor()
        return tensor is not None and isinstance(obj, tensor)

    def __subclasscheck__(cls, sub: type) -> bool:
        tensor = _loaded_torch_tensor()
        return tensor is not None and issubclass(sub, tensor)

    def __repr__(cls) -> str:
        return "device_types.Tensor"


class Tensor(metaclass=_TensorMeta):
    """``Tensor[MPS]`` -> ``Annotated[torch.Tensor, MPS]``; ``isinstance(t, Tensor)`` is torch's check."""

    def __new__(cls, *args: Any, **kwargs: Any) -> Any:
        tensor = _torch_tensor()
        if tensor is None:
            raise ModuleNotFoundError(NO_TORCH, name="torch")
        return tensor(*args, **kwargs)
