"""jaxtyping's ``Float[Tensor[MPS], "b n"]`` still reads as ``Tensor[MPS]`` (under
``TYPE_CHECKING`` jaxtyping's ``Float[...]`` is ``Annotated``): typeshed-style case files,
where ``assert_type`` must hold and every expected-error marker must be used, in mypy
--strict with the plugin (``mypy.ini`` maps ``backend.py`` to mps), pyright and
basedpyright (strict, reportUnnecessaryTypeIgnoreComment)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from functools import cache
from pathlib import Path

import pytest

from ..checkers import Diagnostic, three_checkers

if sys.version_info < (3, 11):
    pytest.skip("jaxtyping 0.3.11 (the dev pin) needs Python 3.11", allow_module_level=True)

HERE = Path(__file__).resolve().parent
TARGETS = [HERE / "kernels.py", HERE / "backend.py"]
RUNNERS: dict[str, Callable[[], list[Diagnostic]]] = three_checkers(HERE, TARGETS, "jaxtyping")

pytestmark = pytest.mark.usefixtures("fresh_overlay")


@cache
def diagnostics(checker: str) -> tuple[Diagnostic, ...]:
    return tuple(RUNNERS[checker]())


def _line_of(path: Path, text: str) -> int:
    (line,) = [n for n, source in enumerate(path.read_text().splitlines(), 1) if text in source]
    return line


@pytest.mark.parametrize("checker", sorted(RUNNERS))
def test_cases_hold(checker: str) -> None:
    """Every assert_type holds and every expected error is reported (an unused ignore is an error)."""
    found = [d for d in diagnostics(checker) if d.path == HERE / "kernels.py"]
    assert found == [], "\n".join(f"{d.path}:{d.line}: {d.message} [{d.code}]" for d in found)


@pytest.mark.parametrize("checker", sorted(RUNNERS))
def test_backend_module(checker: str) -> None:
    """The plugin's policy applies to a jaxtyping-annotated kernel: ``.cpu()`` in the mps
    backend is its error; the device stays readable everywhere."""
    found = [(d.line, d.code) for d in diagnostics(checker) if d.path == HERE / "backend.py"]
    expected = [(_line_of(HERE / "backend.py", "host = x.cpu()"), "device-cpu-call")] if checker == "mypy" else []
    assert found == expected
