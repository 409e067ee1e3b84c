"""The checked bridge from untyped to device-typed code."""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeGuard, TypeVar

from ._devices import Device

if TYPE_CHECKING:
    from torch import Tensor

__all__ = ["DeviceMismatchError", "assert_device", "is_device"]

_D = TypeVar("_D", bound=Device)


class DeviceMismatchError(TypeError):
    """Raised by ``assert_device`` when a tensor is not on the promised device."""


def is_device(tensor: Tensor, device: type[_D]) -> TypeGuard[Tensor[_D]]:
    """True if ``tensor`` lives on ``device`` (any index); narrows it to ``Tensor[device]``.

    A TypeGuard, not a TypeIs: pyright keeps ``Tensor[Any]`` under TypeIs (it is already
    assignable to ``Tensor[CUDA]``), while a TypeGuard narrows in every checker.
    """
    _check_marker(device)
    return tensor.device.type == device.type


def assert_device(tensor: Tensor, device: type[_D]) -> Tensor[_D]:
    """Return ``tensor`` typed as ``Tensor[device]``; raise DeviceMismatchError if it is elsewhere.

    Use it where untyped code (``torch.Tensor``, a third-party op) hands a tensor to a
    device-typed kernel: the run-time check is what makes the static type true.
    """
    _check_marker(device)
    actual = tensor.device
    if actual.type != device.type:
        raise DeviceMismatchError(
            f"expected a tensor on {device.type} ({device.__name__}), got one on {actual}; "
            f"move it where it is created, not with a host round-trip"
        )
    return tensor  # a bare torch.Tensor is gradual: checked above, typed here


def _check_marker(device: object) -> None:
    if not (isinstance(device, type) and issubclass(device, Device) and device is not Device):
        raise TypeError(f"expected a device marker (CPU, CUDA, MPS, NPU, XPU), got {device!r}")
