"""device_types at run time: Tensor[D], isinstance, get_type_hints, the checked bridge."""

from __future__ import annotations

import concurrent.futures
import pickle
import subprocess
import sys
import threading
import time
import typing
from typing import Annotated, TypeVar

import pytest
import torch

import device_types
from device_types import CPU, CUDA, MPS, NPU, XPU, Device, DeviceMismatchError, Tensor, assert_device, is_device
from device_types._devices import device_for_type


def test_subscription_is_one_class_per_marker_carrying_it() -> None:
    assert isinstance(Tensor[MPS], type) and Tensor[MPS] is Tensor[MPS] and Tensor[MPS] is not Tensor[CPU]
    assert repr(Tensor[MPS]) == "device_types.Tensor[MPS]" and Tensor[MPS].__name__ == "Tensor[MPS]"
    # the marker, where Annotated kept it (typing.get_args of a class is ())
    assert Tensor[NPU].__metadata__ == (NPU,)
    assert typing.get_origin(Tensor[MPS]) is None  # a class: jaxtyping must not unwrap it


def test_typevar_subscription() -> None:
    D = TypeVar("D", bound=Device)
    assert Tensor[D].__metadata__ == (D,) and Tensor[D] is Tensor[D]


@pytest.mark.parametrize("bad", [int, "mps", Device, None, 3])
def test_subscription_rejects_non_markers(bad: object) -> None:
    with pytest.raises(TypeError, match="device marker"):
        Tensor[bad]  # type: ignore[misc]


def test_isinstance_and_issubclass_delegate_to_torch() -> None:
    assert isinstance(torch.zeros(1), Tensor)
    assert isinstance(torch.nn.Parameter(torch.zeros(1)), Tensor)
    assert not isinstance([1.0], Tensor)
    assert issubclass(torch.nn.Parameter, Tensor)
    assert issubclass(Tensor[MPS], Tensor) and not issubclass(Tensor[MPS], Tensor[CPU])


def test_isinstance_of_a_device_type_checks_the_device_type() -> None:
    cpu = torch.zeros(1)
    assert isinstance(cpu, Tensor[CPU]) and isinstance(torch.nn.Parameter(cpu), Tensor[CPU])
    assert not isinstance(cpu, Tensor[MPS]) and not isinstance(cpu, Tensor[CUDA])
    # meta is no marker's device; a non-tensor with a .device is not a torch tensor
    assert not isinstance(torch.zeros(1, device="meta"), Tensor[CPU])
    assert not isinstance(torch.device("cpu"), Tensor[CPU]) and not isinstance([1.0], Tensor[CPU])


@pytest.mark.parametrize(
    ("device", "marker"),
    [("cuda", CUDA), ("cuda:1", CUDA), ("mps", MPS), ("xpu:0", XPU), ("cpu", CPU)],
)
def test_isinstance_ignores_the_index(device: str, marker: type[Device]) -> None:
    from torch._subclasses.fake_tensor import FakeTensorMode

    with FakeTensorMode():  # torch's own device for cuda/mps/xpu tensors on a CPU-only machine
        try:
            t = torch.empty(2, device=device)
        except RuntimeError as exc:
            pytest.skip(f"this torch build cannot hold a {device} tensor, not even fake: {str(exc).splitlines()[0]}")
    assert isinstance(t, Tensor[marker])
    assert [m for m in (CPU, CUDA, MPS, NPU, XPU) if isinstance(t, Tensor[m])] == [marker]


def test_typevar_admits_its_bound_or_constraints() -> None:
    any_device = TypeVar("any_device", bound=Device)
    host_or_cuda = TypeVar("host_or_cuda", CPU, CUDA)
    only_mps = TypeVar("only_mps", bound=MPS)
    cpu = torch.zeros(1)
    assert isinstance(cpu, Tensor[any_device]) and isinstance(cpu, Tensor[host_or_cuda])
    assert not isinstance(cpu, Tensor[only_mps]) and not isinstance(cpu.to("meta"), Tensor[host_or_cuda])
    assert not isinstance([1.0], Tensor[any_device])


def test_device_type_is_not_a_constructor() -> None:
    with pytest.raises(TypeError, match=r"^Tensor\[MPS\] is a type for annotations and isinstance; create the tensor with torch \(device='mps'\)$"):
        Tensor[MPS]([1.0])  # type: ignore[call-arg]
    with pytest.raises(TypeError, match=r"^Tensor\[MPS\] already names its device; write Tensor\[CPU\]$"):
        Tensor[MPS][CPU]  # type: ignore[index]
    assert isinstance(Tensor([1.0]), torch.Tensor)  # the bare stand-in still builds one


def test_device_type_pickles_as_its_subscription() -> None:
    assert pickle.loads(pickle.dumps(Tensor[MPS])) is Tensor[MPS]
    assert pickle.loads(pickle.dumps(Tensor)) is Tensor


def test_get_type_hints_with_postponed_annotations() -> None:
    def kernel(x: Tensor[MPS], y: Tensor[CPU]) -> Tensor[MPS]:
        return x

    hints = typing.get_type_hints(kernel, include_extras=True)
    assert hints == {"x": Tensor[MPS], "y": Tensor[CPU], "return": Tensor[MPS]}
    # A real type with or without include_extras, and inside unions and Annotated
    assert typing.get_type_hints(kernel) == hints

    def optional(x: Tensor[MPS] | None, y: Annotated[Tensor[CPU], "weights"]) -> None: ...

    assert typing.get_type_hints(optional, include_extras=True) == {
        "x": Tensor[MPS] | None, "y": Annotated[Tensor[CPU], "weights"], "return": type(None)
    }


def test_markers_are_not_instantiable() -> None:
    with pytest.raises(TypeError, match="device marker"):
        MPS()


@pytest.mark.parametrize(
    ("text", "marker"),
    [("cpu", CPU), ("cuda", CUDA), ("cuda:1", CUDA), ("mps", MPS), ("npu:0", NPU), ("xpu", XPU), ("gpu", None), ("cuda:x", None)],
)
def test_device_for_type(text: str, marker: type[Device] | None) -> None:
    assert device_for_type(text) is marker


def test_assert_device_returns_the_same_tensor() -> None:
    t = torch.zeros(2)
    assert assert_device(t, CPU) is t


def test_assert_device_raises_with_both_devices() -> None:
    with pytest.raises(DeviceMismatchError, match=r"expected a tensor on mps \(MPS\), got one on cpu"):
        assert_device(torch.zeros(2), MPS)


def test_is_device() -> None:
    t = torch.zeros(2)
    assert is_device(t, CPU)
    assert not is_device(t, CUDA)
    with pytest.raises(TypeError):
        is_device(t, int)  # type: ignore[type-var]


def test_importing_device_types_does_not_import_torch() -> None:
    code = "import sys, device_types; from device_types import Tensor, MPS; print('torch' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


def test_public_names() -> None:
    assert sorted(device_types.__all__) == sorted(
        ["CPU", "CUDA", "MPS", "NPU", "XPU", "Device", "DeviceMismatchError", "Tensor", "assert_device", "is_device"]
    )


def test_subscription_and_isinstance_do_not_import_torch() -> None:
    # no object is a torch tensor before torch is imported, so the answer needs no import
    code = (
        "import sys, typing; from device_types import Tensor, MPS\n"
        "def kernel(x: Tensor[MPS]) -> Tensor[MPS]: ...\n"
        "typing.get_type_hints(kernel)\n"
        "print(isinstance(object(), Tensor), issubclass(int, Tensor), isinstance(object(), Tensor[MPS]), 'torch' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "False", "False", "False"]


def test_threads_subscribing_at_once_get_one_class(monkeypatch: pytest.MonkeyPatch) -> None:
    from device_types import _runtime_tensor

    make = _runtime_tensor._make_tensor_on

    def slow_make(device: object) -> type:
        time.sleep(0.05)  # every thread is inside the first subscription at once
        return make(device)

    monkeypatch.setattr(_runtime_tensor, "_make_tensor_on", slow_make)
    fresh = TypeVar("fresh", bound=Device)
    start = threading.Barrier(8)

    def subscribe() -> type:
        start.wait()
        return Tensor[fresh]  # type: ignore[no-any-return]

    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        made = list(pool.map(lambda _: subscribe(), range(8)))
    assert all(cls is made[0] for cls in made)
