"""Run-time stand-in for ``device_types.Tensor`` (checkers see torch's Tensor instead)."""

from __future__ import annotations

from typing import Annotated, Any, TypeVar

from ._devices import Device

__all__ = ["Tensor"]


def _torch_tensor() -> type:
    import torch  # deferred: importing device_types must stay cheap

    return torch.Tensor


class _TensorMeta(type):
    def __getitem__(cls, device: Any) -> Any:
        if isinstance(device, TypeVar):
            return Annotated[_torch_tensor(), device]
        if not (isinstance(device, type) and issubclass(device, Device) and device is not Device):
            raise TypeError(
                f"Tensor[...] takes a device marker (CPU, CUDA, MPS, NPU, XPU) or a TypeVar bound to Device, got {device!r}"
            )
        return Annotated[_torch_tensor(), device]

    def __instancecheck__(cls, obj: object) -> bool:
        return isinstance(obj, _torch_tensor())

    def __subclasscheck__(cls, sub: type) -> bool:
        return issubclass(sub, _torch_tensor())

    def __repr__(cls) -> str:
        return "device_types.Tensor"


class Tensor(metaclass=_TensorMeta):
    """``Tensor[MPS]`` -> ``Annotated[torch.Tensor, MPS]``; ``isinstance(t, Tensor)`` is torch's check."""

    def __new__(cls, *args: Any, **kwargs: Any) -> Any:
        return _torch_tensor()(*args, **kwargs)
