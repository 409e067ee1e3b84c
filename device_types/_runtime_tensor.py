"""Run-time stand-in for ``device_types.Tensor`` (checkers see torch's Tensor instead).

torch is never imported to evaluate an annotation or to answer ``isinstance``, and the
package works without torch (the check and the audit are installed without it):

- ``Tensor[MPS]`` is a class, ``device_types.Tensor[MPS]``: ``isinstance(x, Tensor[MPS])``
  is True for a torch tensor whose ``x.device.type`` is ``"mps"`` (any index: ``"cuda:1"``
  is a ``Tensor[CUDA]``). Being a real class is what lets run-time checkers compose it:
  beartype and typeguard call ``isinstance`` on it, and jaxtyping's
  ``Float[Tensor[MPS], "b n"]`` checks dtype and shape, then ``isinstance(x, Tensor[MPS])``
  (an ``Annotated[...]`` there would fail every call). The marker stays readable as
  ``Tensor[MPS].__metadata__ == (MPS,)`` (``Annotated``'s attribute); ``typing.get_args``
  of a class is ``()``;
- ``Tensor[D]`` with a TypeVar accepts a tensor on any device its bound or constraints
  allow (any device for ``bound=Device``): that two arguments share a device is a static
  fact, not a run-time one;
- ``isinstance(x, Tensor)`` is torch's check. No object is a torch tensor before torch is
  imported, so the answer never needs the import: False where torch is not (or not yet)
  loaded, for ``Tensor`` and ``Tensor[MPS]`` alike;
- ``Tensor(...)`` builds a ``torch.Tensor``; without torch it raises one ModuleNotFoundError
  that names the fix. ``Tensor[MPS](...)`` is a TypeError: create tensors with torch.
"""

from __future__ import annotations

import copyreg
import functools
import operator
import sys
import threading
from typing import Any, TypeVar

from ._devices import Device

__all__ = ["Tensor"]

NO_TORCH = "device_types.Tensor(...) builds a torch.Tensor, and torch is not installed in this environment (pip install torch)"


@functools.cache
def _torch_tensor() -> type | None:
    """``torch.Tensor``, importing torch on first use; None where torch is not installed
    (remembered, so a torch-free environment does not search sys.path again)."""
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


def _is_marker(device: object) -> bool:
    return isinstance(device, type) and issubclass(device, Device) and device is not Device


def _device_types(device: Any) -> frozenset[str] | None:
    """The ``torch.device.type`` values a marker or TypeVar admits; None for any device."""
    if _is_marker(device):
        return frozenset({device.type})
    if device.__constraints__:
        if all(_is_marker(c) for c in device.__constraints__):
            return frozenset(c.type for c in device.__constraints__)
        return None
    if _is_marker(device.__bound__):
        return frozenset({device.__bound__.type})
    return None


class _TensorOnMeta(type):
    """The metaclass of ``Tensor[D]``: its ``isinstance`` is a torch tensor on D's device."""

    _device_types: frozenset[str] | None
    __metadata__: tuple[Any, ...]

    def __instancecheck__(cls, obj: object) -> bool:
        tensor = _loaded_torch_tensor()
        if tensor is None or not isinstance(obj, tensor):
            return False
        return cls._device_types is None or obj.device.type in cls._device_types  # type: ignore[attr-defined]

    def __call__(cls, *args: Any, **kwargs: Any) -> Any:
        (device,) = cls.__metadata__
        where = f" (device={device.type!r})" if _is_marker(device) else ""
        raise TypeError(f"{cls.__name__} is a type for annotations and isinstance; create the tensor with torch{where}")

    def __getitem__(cls, item: Any) -> Any:
        raise TypeError(f"{cls.__name__} already names its device; write Tensor[{_name(item)}]")

    def __repr__(cls) -> str:
        return f"device_types.{cls.__name__}"


def _name(device: Any) -> str:
    return device.__name__ if isinstance(device, type) else repr(device)


_MADE: dict[Any, _TensorOnMeta] = {}
_MAKING = threading.Lock()


def _tensor_on(device: Any) -> _TensorOnMeta:
    """``Tensor[device]``: one class per marker or TypeVar, so ``Tensor[MPS] is Tensor[MPS]``
    (made under a lock: two threads evaluating annotations at once get the same class)."""
    made = _MADE.get(device)
    if made is None:
        with _MAKING:
            made = _MADE.get(device)
            if made is None:
                made = _MADE[device] = _make_tensor_on(device)
    return made


def _make_tensor_on(device: Any) -> _TensorOnMeta:
    name = f"Tensor[{_name(device)}]"
    namespace = {
        "__module__": "device_types",
        "__qualname__": name,
        "__doc__": f"A torch tensor on {_name(device)} (isinstance checks its device type, not its index).",
        "__metadata__": (device,),
        "_device_types": _device_types(device),
    }
    return _TensorOnMeta(name, (), namespace)


class _TensorMeta(type):
    def __getitem__(cls, device: Any) -> Any:
        if not isinstance(device, TypeVar) and not _is_marker(device):
            raise TypeError(
                f"Tensor[...] takes a device marker (CPU, CUDA, MPS, NPU, XPU) or a TypeVar bound to Device, got {device!r}"
            )
        return _tensor_on(device)

    def __instancecheck__(cls, obj: object) -> bool:
        tensor = _loaded_torch_tensor()
        return tensor is not None and isinstance(obj, tensor)

    def __subclasscheck__(cls, sub: type) -> bool:
        if isinstance(sub, _TensorOnMeta):
            return True  # Tensor[MPS] is a Tensor
        tensor = _loaded_torch_tensor()
        return tensor is not None and issubclass(sub, tensor)

    def __repr__(cls) -> str:
        return "device_types.Tensor"


class Tensor(metaclass=_TensorMeta):
    """``Tensor[MPS]``: a class whose ``isinstance`` is a torch tensor on mps; ``isinstance(t, Tensor)`` is torch's check."""

    def __new__(cls, *args: Any, **kwargs: Any) -> Any:
        tensor = _torch_tensor()
        if tensor is None:
            raise ModuleNotFoundError(NO_TORCH, name="torch")
        return tensor(*args, **kwargs)


def _reduce_tensor_on(cls: _TensorOnMeta) -> tuple[Any, ...]:
    """``pickle`` a ``Tensor[D]`` as the subscription that makes it (as ``Annotated`` pickled)."""
    return operator.getitem, (Tensor, *cls.__metadata__)


copyreg.pickle(_TensorOnMeta, _reduce_tensor_on)
