"""typeshed-style: assert_type must hold and every expected-error marker must be used,
in mypy (--strict --warn-unused-ignores), pyright and basedpyright (strict,
reportUnnecessaryTypeIgnoreComment). One run per checker for all case files."""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from pathlib import Path

import pytest

from ..checkers import Diagnostic, three_checkers

HERE = Path(__file__).resolve().parent
TARGETS = [HERE / "cases", HERE / "canary.py"]
RUNNERS: dict[str, Callable[[], list[Diagnostic]]] = three_checkers(HERE, TARGETS, "typecheck")

pytestmark = pytest.mark.usefixtures("fresh_overlay")

CASE_FILES = sorted(p.relative_to(HERE).as_posix() for p in (HERE / "cases").glob("*.py"))


@cache
def diagnostics(checker: str) -> tuple[Diagnostic, ...]:
    return tuple(RUNNERS[checker]())


@pytest.mark.parametrize("checker", sorted(RUNNERS))
@pytest.mark.parametrize("case", CASE_FILES)
def test_case_file_is_clean(checker: str, case: str) -> None:
    found = [d for d in diagnostics(checker) if d.path == HERE / case]
    assert found == [], "\n".join(f"{d.path}:{d.line}: {d.message} [{d.code}]" for d in found)


CANARY = {
    "mypy": [(11, "assert-type"), (15, "unused-ignore")],
    "pyright": [(11, "reportAssertTypeFailure"), (15, "reportUnnecessaryTypeIgnoreComment")],
    "basedpyright": [(11, "reportAssertTypeFailure"), (15, "reportUnnecessaryTypeIgnoreComment")],
}


@pytest.mark.parametrize("checker", sorted(RUNNERS))
def test_harness_reports_failures(checker: str) -> None:
    found = [(d.line, d.code) for d in diagnostics(checker) if d.path == HERE / "canary.py"]
    assert found == CANARY[checker]
