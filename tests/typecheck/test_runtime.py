"""Execute the case files against real torch, so the stubs cannot claim a device torch
would not produce (pyrefly's approach to its torch stubs).

Every case function without an expected-error marker runs on real tensors where this
machine has every device it touches (CPU; CUDA on a GPU machine), and otherwise under
FakeTensorMode, which gives torch's real device propagation for cuda/mps/xpu tensors on
a CPU-only machine. Arguments come from the functions' own annotations (``Tensor[MPS]``
is a class carrying its marker as ``__metadata__`` at run time), and ``assert_type`` is
replaced by a check of the value's device. Needs only torch and device_types (no checker, no overlay),
so it also runs on the GPU machine: ``PYTHONPATH=. python3 -m pytest tests/typecheck/test_runtime.py``.
"""

from __future__ import annotations

import importlib.util
import inspect
import re
import typing
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import torch
from torch._subclasses.fake_tensor import DynamicOutputShapeException, FakeTensorMode

from device_types import Device
from device_types._devices import DEVICE_BY_TYPE

CASES = Path(__file__).parent / "cases"
SHAPE = (2, 2, 2)
#: Parameters used as conditions get boolean tensors.
CONDITION_NAMES = {"mask", "c", "cond", "condition"}
#: What torch says when this machine cannot hold even a fake tensor of a device: a copy
#: to a device the build lacks (CPU-only build and cuda, CUDA build and mps), or an index
#: past the GPUs it has (a CUDA build checks "cuda:1" even in fake mode). Skipped.
NOT_HERE = ("PyTorch is not linked with support for", "invalid device ordinal")
#: Device types, indices and markers named in a case function's source.
DEVICE_TEXT = re.compile(r"""["'](cpu|cuda|mps|npu|xpu)(?::(\d+))?["']|\b(CPU|CUDA|MPS|NPU|XPU)\b""")


def _available(device: str, index: int) -> bool:
    """Whether this machine has a real ``device:index``."""
    if device == "cpu":
        return True
    if device == "cuda":
        return torch.cuda.is_available() and index < torch.cuda.device_count()
    if device == "mps":
        return torch.backends.mps.is_available()
    if device == "xpu":
        return hasattr(torch, "xpu") and torch.xpu.is_available() and index < torch.xpu.device_count()
    return False


def _all_real(fn: Callable[..., Any]) -> bool:
    """Every device the case names, in annotations or literals, is on this machine."""
    for match in DEVICE_TEXT.finditer(inspect.getsource(fn)):
        literal, index, marker = match.groups()
        device = literal or marker.lower()
        if not _available(device, int(index or 0)):
            return False
    return True


class DeviceAssertionError(AssertionError):
    pass


def _expected_device(expected: Any) -> str | None:
    """The device type an assert_type target promises, or None when it promises none."""
    marker = _marker(expected)
    if isinstance(marker, type) and issubclass(marker, Device):
        return marker.type
    if isinstance(expected, str):
        match = re.fullmatch(r"torch\.device\[(\w+)\]", expected)
        if match:
            return next(m.type for m in DEVICE_BY_TYPE.values() if m.__name__ == match[1])
    return None


def checking_assert_type(value: Any, expected: Any) -> Any:
    device = _expected_device(expected)
    if device is None:
        return value
    actual = value if isinstance(value, torch.device) else value.device
    if actual.type != device:
        raise DeviceAssertionError(f"assert_type promised {device}, torch produced {actual}")
    return value


def _load(path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"runtime_cases.{path.stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.assert_type = checking_assert_type  # type: ignore[attr-defined]
    return module


def _marker(hint: Any) -> Any:
    """The marker (or TypeVar) of a ``Tensor[D]`` hint, None for any other hint."""
    metadata = getattr(hint, "__metadata__", ()) if isinstance(hint, type) else ()
    return metadata[0] if metadata else None


def _device_of(hint: Any) -> str | None:
    marker = _marker(hint)
    if isinstance(marker, type) and issubclass(marker, Device):
        return marker.type
    if marker is not None:
        return "cpu"  # a device TypeVar: any one device will do
    return None


def _arguments(fn: Callable[..., Any]) -> list[Any]:
    hints = typing.get_type_hints(fn, include_extras=True)
    promised = _device_of(hints.get("return"))
    args: list[Any] = []
    for name in inspect.signature(fn).parameters:
        hint = hints[name]
        device = _device_of(hint)
        if device is None and (hint is torch.Tensor or hint is Any):
            device = promised or "cpu"  # untyped input: the device the function promises
        if device is not None:
            dtype = torch.bool if name in CONDITION_NAMES else torch.float32
            args.append(torch.ones(SHAPE, dtype=dtype, device=device))
        elif hint is str:
            args.append("cpu")
        elif hint is bool:
            args.append(True)
        elif hint == list[float]:
            args.append([1.0, 2.0])
        elif hint is torch.Generator:
            args.append(torch.Generator())
        else:
            raise TypeError(f"{fn.__qualname__}: no runtime value for parameter {name}: {hint!r}")
    return args


def _runnable_cases() -> list[Any]:
    params = []
    for path in sorted(CASES.glob("*.py")):
        module = _load(path)
        for name, fn in inspect.getmembers(module, inspect.isfunction):
            if fn.__module__ != module.__name__:
                continue
            if "type: ignore" in inspect.getsource(fn):
                continue  # expected to fail statically; its runtime failure is not the subject
            params.append(pytest.param(fn, id=f"{path.stem}.{name}"))
    return params


@pytest.mark.parametrize("fn", _runnable_cases())
def test_case_runs_on_the_devices_it_claims(fn: Callable[..., Any], record_property: Callable[[str, Any], None]) -> None:
    if _all_real(fn):
        record_property("tensors", "real")
        fn(*_arguments(fn))
        return
    record_property("tensors", "fake")
    with FakeTensorMode(allow_non_fake_inputs=True):
        args = _arguments(fn)
        try:
            fn(*args)
        except DynamicOutputShapeException as exc:
            # unique, nonzero: the output shape depends on the data, which fakes lack
            pytest.skip(f"fake tensors cannot run an op with a data-dependent shape: {exc}")
        except RuntimeError as exc:  # torch.AcceleratorError is one
            if any(text in str(exc) for text in NOT_HERE):
                pytest.skip(f"this machine cannot hold that device, not even fake: {str(exc).splitlines()[0]}")
            raise


def test_assert_type_check_can_fail() -> None:
    from device_types import CUDA, Tensor

    with FakeTensorMode():
        with pytest.raises(DeviceAssertionError):
            checking_assert_type(torch.zeros(1, device="mps"), Tensor[CUDA])
