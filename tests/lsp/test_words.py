"""Hover names arguments as a reader does ("its first argument `kernel`"), never by number."""

from __future__ import annotations

import pytest

pytest.importorskip("lsprotocol")

from device_types._check._project import FunctionInfo  # noqa: E402
from device_types._check._summary import Summary  # noqa: E402
from device_types._lsp._convert import argument_phrase, summary_text  # noqa: E402


def _info(params: tuple[str, ...], vararg: str | None = None, kwonly: tuple[str, ...] = (),
          kwarg: str | None = None, class_name: str | None = None) -> FunctionInfo:
    return FunctionInfo("fw._backends.mps.ops", "launch", "fw/_backends/mps/ops.py", class_name, params, vararg,
                        kwarg, 3, "hash", kwonly)


def test_arguments_are_named_by_position_and_name() -> None:
    info = _info(("kernel", "grid"), vararg="args", kwonly=("stream",), kwarg="extra")
    assert [argument_phrase(info, i) for i in range(5)] == [
        "its first argument `kernel`", "its second argument `grid`", "its extra positional arguments `*args`",
        "its keyword argument `stream`", "its keyword arguments `**extra`"]
    method = _info(("self", "a"), class_name="Kernels")
    assert [argument_phrase(method, i) for i in range(2)] == [
        "the object it is called on (`self`)", "its first argument `a`"]


def test_hover_on_a_helper_that_passes_varargs_through() -> None:
    # the case: `def helper(kernel, *args)` returning the host data of both read
    # "returns the host data of kernel, #1"
    text = summary_text(_info(("kernel",), vararg="args"), Summary(returns_param=frozenset({0, 1})), False,
                        "fw/_backends/mps/ops.py")
    assert text.endswith("returns the host data of its first argument `kernel` and its extra positional "
                         "arguments `*args`")
    assert "#" not in text.split("\n\n", 1)[1]
