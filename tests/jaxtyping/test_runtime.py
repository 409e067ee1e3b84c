"""jaxtyping's ``Float[Tensor[D], "b n"]`` at run time, under beartype and under typeguard
2.13.3 (jaxtyping's documented pairing): a correct tensor passes, and a wrong device, shape
or dtype fails with jaxtyping's own ``TypeCheckError``. Each failing input differs from a
passing one in one property only, and jaxtyping's reason for the rejection
(``__instancecheck_str__``, the text its checks are built on) names that property. No GPU
is needed: the wrong device is a CPU tensor for ``Tensor[MPS]`` or a ``meta`` tensor for
``Tensor[CPU]``."""

from __future__ import annotations

import sys
import typing
from collections.abc import Callable
from typing import Any

import pytest

if sys.version_info < (3, 11):
    pytest.skip("jaxtyping 0.3.11 (the dev pin) needs Python 3.11", allow_module_level=True)

import torch
import typeguard
from beartype import beartype
from beartype.roar import BeartypeCallHintParamViolation
from jaxtyping import TypeCheckError, jaxtyped

from device_types import MPS, Tensor

from . import kernels

CHECKERS: dict[str, Callable[..., Any]] = {"beartype": beartype, "typeguard": typeguard.typechecked}
FLOATS = torch.ones(2, 3)


def checked(fn: Callable[..., Any], checker: str) -> Callable[..., Any]:
    return jaxtyped(typechecker=CHECKERS[checker])(fn)  # type: ignore[no-any-return]


def reason(fn: Callable[..., Any], name: str, value: object) -> str:
    """jaxtyping's own explanation of why ``value`` is not ``fn``'s hint ``name`` ("" if it is)."""
    hint = typing.get_type_hints(fn)[name]
    return hint.__instancecheck_str__(value)  # type: ignore[no-any-return]


@pytest.mark.parametrize("checker", sorted(CHECKERS))
def test_correct_tensors_pass(checker: str) -> None:
    assert checked(kernels.row_sums, checker)(FLOATS).shape == (2,)
    assert checked(kernels.same_device, checker)(FLOATS, torch.ones(3)).shape == (2, 3)
    assert checked(kernels.counts, checker)(torch.arange(4)).item() == 6


NOT_ON = "this value is not an instance of the underlying array type device_types.Tensor[{}]"
#: (kernel, argument, the reason jaxtyping gives for it): one property wrong in each
WRONG: dict[str, tuple[Callable[..., Any], torch.Tensor, str]] = {
    "device: cpu for Tensor[MPS]": (kernels.mps_row_sums, FLOATS, NOT_ON.format("MPS")),
    "device: meta for Tensor[CPU]": (kernels.row_sums, FLOATS.to("meta"), NOT_ON.format("CPU")),
    "shape: 3 dimensions for 'b n'": (kernels.row_sums, torch.ones(2, 3, 4),
                                      "this array has 3 dimensions, not the 2 expected by the type hint"),
    "dtype: int64 for Float": (kernels.row_sums, FLOATS.long(), "this array has dtype int64, not any of"),
}


@pytest.mark.parametrize("checker", sorted(CHECKERS))
@pytest.mark.parametrize("case", sorted(WRONG))
def test_wrong_device_shape_or_dtype_fails_with_jaxtypings_error(checker: str, case: str) -> None:
    fn, value, why = WRONG[case]
    with pytest.raises(TypeCheckError) as caught:
        checked(fn, checker)(value)
    message = str(caught.value)
    assert f"whilst checking the parameters of {fn.__module__}.{fn.__qualname__}" in message
    assert "The problem arose whilst typechecking parameter 'x'." in message
    assert f"Expected type: <class '{typing.get_type_hints(fn)['x'].__name__}'>" in message
    assert reason(fn, "x", value).startswith(why)


@pytest.mark.parametrize("checker", sorted(CHECKERS))
def test_a_result_on_the_wrong_device_fails(checker: str) -> None:
    with pytest.raises(TypeCheckError, match=r"whilst checking the return value of tests\.jaxtyping\.kernels\.moved_to_meta"):
        checked(kernels.moved_to_meta, checker)(FLOATS)
    assert reason(kernels.moved_to_meta, "return", FLOATS.sum(-1).to("meta")) == NOT_ON.format("CPU")


@pytest.mark.parametrize("checker", sorted(CHECKERS))
def test_shapes_bind_across_arguments_on_a_device_typevar(checker: str) -> None:
    with pytest.raises(TypeCheckError, match="parameter 'bias'"):
        checked(kernels.same_device, checker)(FLOATS, torch.ones(4))


def test_the_documented_spelling_rejects_host_tensors() -> None:
    # kernels.scale is decorated as docs/device-model.md shows
    with pytest.raises(TypeCheckError, match=r"Expected type: <class 'Float\[Tensor\[MPS\], 'b n'\]'>"):
        kernels.scale(FLOATS, torch.ones(3))


def test_without_jaxtyping_both_checkers_check_the_device() -> None:
    def kernel(x: Tensor[MPS]) -> None: ...

    with pytest.raises(BeartypeCallHintParamViolation, match=r"not instance of <class \"device_types\.Tensor\[MPS\]\">"):
        beartype(kernel)(FLOATS)
    with pytest.raises(TypeError, match=r'type of argument "x" must be device_types\.Tensor\[MPS\]; got torch\.Tensor instead'):
        typeguard.typechecked(kernel)(FLOATS)
