"""device_types at run time: Tensor[D], isinstance, get_type_hints, the checked bridge."""

from __future__ import annotations

import subprocess
import sys
import typing
from typing import Annotated, TypeVar

import pytest
import torch

import device_types
from device_types import CPU, CUDA, MPS, NPU, XPU, Device, DeviceMismatchError, Tensor, assert_device, is_device
from device_types._devices import device_for_type


def test_subscription_is_annotated_torch_tensor() -> None:
    assert Tensor[MPS] == Annotated[torch.Tensor, MPS]
    assert typing.get_args(Tensor[NPU]) == (torch.Tensor, NPU)


def test_typevar_subscription() -> None:
    D = TypeVar("D", bound=Device)
    assert typing.get_args(Tensor[D]) == (torch.Tensor, D)


@pytest.mark.parametrize("bad", [int, "mps", Device, None, 3])
def test_subscription_rejects_non_markers(bad: object) -> None:
    with pytest.raises(TypeError, match="device marker"):
        Tensor[bad]  # type: ignore[misc]


def test_isinstance_and_issubclass_delegate_to_torch() -> None:
    assert isinstance(torch.zeros(1), Tensor)
    assert isinstance(torch.nn.Parameter(torch.zeros(1)), Tensor)
    assert not isinstance([1.0], Tensor)
    assert issubclass(torch.nn.Parameter, Tensor)


def test_get_type_hints_with_postponed_annotations() -> None:
    def kernel(x: Tensor[MPS], y: Tensor[CPU]) -> Tensor[MPS]:
        return x

    hints = typing.get_type_hints(kernel, include_extras=True)
    assert hints == {"x": Annotated[torch.Tensor, MPS], "y": Annotated[torch.Tensor, CPU], "return": Annotated[torch.Tensor, MPS]}
    # Without include_extras a runtime checker still sees a real type.
    assert typing.get_type_hints(kernel)["x"] is torch.Tensor


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


def test_isinstance_does_not_import_torch() -> None:
    # no object is a torch tensor before torch is imported, so the answer needs no import
    code = (
        "import sys; from device_types import Tensor, MPS\n"
        "print(isinstance(object(), Tensor), issubclass(int, Tensor), 'torch' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "False", "False"]
