"""The supported torch range, tested at its ends: the oldest supported minor, the pinned
dev version (installed) and the newest release the registry serves.

For each: the generator builds the overlay from that torch's own files, `coverage` is
honest and meets its target, and the typeshed-style cases hold under mypy and pyright
against that version's overlay (one run per checker and version).
"""

from __future__ import annotations

import ast
import os
import shutil
from functools import cache
from pathlib import Path

import pytest

from device_types_stubs.coverage import TARGET, coverage, report_for
from device_types_stubs.overlay import OverlayError, build_overlay, torch_dir
from device_types_stubs.versions import NEWEST_TESTED, OLDEST, parse_version

from ..checkers import Diagnostic, run_mypy, run_pyright
from ..torch_versions import OTHER_VERSIONS, checker_python, overlay_for, torch_tree

CASES = Path(__file__).resolve().parent.parent / "typecheck"
INSTALLED = "installed"

_MIXED_OPERANDS = {("rejected.py", "mixed_operator"), ("rejected.py", "cpu_factory_into_device_op")}
#: torch 2.4's ``//``, ``2.0 - x``, ``2 ** x`` are Python methods under an untyped decorator: Any.
_UNTYPED_OPERATORS = {("operators.py", "binary"), ("operators.py", "reflected")}
#: What a version's own stubs cannot express, by checker and case function; asserted to
#: happen, so a fix shows. torch 2.4 types the operand of binary operators as Any
#: (``def __add__(self, other: Any) -> Tensor``): mixed-device operands are not
#: rejected. (``tensor / (q.shape[-1] ** 0.5)`` is Any on every version: typeshed's
#: ``int ** float`` is Any; operators.py's ``attention_scaling`` pins it.)
KNOWN_GAPS: dict[str, dict[str, set[tuple[str, str]]]] = {
    "2.4.1": {
        "mypy": _MIXED_OPERANDS | _UNTYPED_OPERATORS | {("composites.py", "attention")},
        "pyright": _MIXED_OPERANDS | _UNTYPED_OPERATORS,
    },
    "2.14.1": {"mypy": set(), "pyright": set()},
}


def tree(version: str) -> Path:
    return torch_dir() if version == INSTALLED else torch_tree(version)


def test_range_ends_are_the_declared_ones() -> None:
    assert parse_version(OTHER_VERSIONS[0]) == OLDEST
    assert parse_version(OTHER_VERSIONS[-1]) == NEWEST_TESTED


@pytest.mark.parametrize("version", [OTHER_VERSIONS[0], INSTALLED, OTHER_VERSIONS[-1]])
def test_generator_builds_and_coverage_is_met(version: str) -> None:
    report = coverage(tree(version))
    for part in (report.functions, report.methods):
        assert part.ratio >= TARGET, part.uncovered
        assert part.total > 400
    assert report.meets_target, {title: part and part.uncovered for title, part in report.namespaces.items()}


def test_coverage_counts_ops_that_untyped_python_definitions_hide() -> None:
    """torch 2.4's ``__floordiv__`` & co. are Python methods under an untyped decorator:
    checkers read them as Any, with or without the overlay, and coverage says so."""
    report = report_for(overlay_for(OTHER_VERSIONS[0]))
    assert {"__floordiv__", "__rfloordiv__", "__rsub__", "__rpow__", "__pow__"} <= set(report.methods.uncovered)


def test_what_stock_torch_reads_as_any_stays_any() -> None:
    """No type where torch's source has none: no return annotation on those methods,
    and ``__pow__ = untyped_wrapper(...)`` is an Any attribute, not TensorBase's op."""
    module = ast.parse(overlay_for(OTHER_VERSIONS[0]).files["_tensor.pyi"])
    tensor = next(s for s in module.body if isinstance(s, ast.ClassDef) and s.name == "Tensor")
    defs = {s.name: s for s in _as_mypy_reads(tensor.body) if isinstance(s, ast.FunctionDef)}
    for method in ("__floordiv__", "__rsub__", "__iter__", "__reversed__", "split"):
        assert ast.unparse(defs[method].returns) == "_dt_Any", method
    attributes = {ast.unparse(s.target): ast.unparse(s.annotation) for s in tensor.body if isinstance(s, ast.AnnAssign)}
    assert attributes["__pow__"] == "_dt_Any"


def _as_mypy_reads(body: list[ast.stmt]) -> list[ast.stmt]:
    """A class body with each ``if <layer>.MYPY:`` resolved as mypy resolves it (pyright
    gets the other branch: device_types_stubs/inferred.py)."""
    out: list[ast.stmt] = []
    for stmt in body:
        if isinstance(stmt, ast.If) and "MYPY" in ast.unparse(stmt.test):
            negated = isinstance(stmt.test, ast.UnaryOp)
            out.extend(stmt.orelse if negated else stmt.body)
        else:
            out.append(stmt)
    return out


def _fake_torch(tmp_path: Path, version: str) -> Path:
    """The newest release's files, relabelled ``version`` (torchgen's schemas beside it)."""
    fake = tmp_path / "torch"
    real = torch_tree(OTHER_VERSIONS[-1])
    shutil.copytree(real, fake, copy_function=os.link)
    shutil.copytree(real.parent / "torchgen", tmp_path / "torchgen", copy_function=os.link)
    (fake / "version.py").unlink()
    (fake / "version.py").write_text(f"__version__ = '{version}'\n")
    return fake


def test_older_torch_is_refused_in_one_line(tmp_path: Path) -> None:
    with pytest.raises(OverlayError) as raised:
        build_overlay(_fake_torch(tmp_path, "2.3.1"))
    assert str(raised.value).startswith("torch 2.3.1 is older than 2.4") and "\n" not in str(raised.value)


def test_newer_torch_is_generated_with_a_warning(tmp_path: Path) -> None:
    overlay = build_overlay(_fake_torch(tmp_path, "2.15.0"))
    assert overlay.warning is not None and "\n" not in overlay.warning
    assert overlay.warning.startswith("torch 2.15.0 is newer than 2.14")
    assert report_for(overlay).meets_target


@cache
def case_diagnostics(checker: str, version: str) -> tuple[Diagnostic, ...]:
    python = checker_python(version)
    if checker == "mypy":
        found = run_mypy([CASES / "cases"], "--config-file", str(CASES / "mypy.ini"), cache=f"range-{version}", python=python)
    else:
        found = run_pyright(checker, [CASES / "cases"], config=CASES / "pyrightconfig.json", python=python)
    return tuple(found)


def _function_at(path: Path, line: int) -> str:
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.FunctionDef) and node.lineno <= line <= (node.end_lineno or node.lineno):
            return node.name
    return "<module>"


@pytest.mark.parametrize("checker", ["mypy", "pyright"])
@pytest.mark.parametrize("version", OTHER_VERSIONS)
def test_cases_hold_against_the_versions_overlay(checker: str, version: str) -> None:
    found = {(d.path.name, _function_at(d.path, d.line)): d for d in case_diagnostics(checker, version)}
    known = KNOWN_GAPS[version][checker]
    unexpected = {key: f"{d.line}: {d.message} [{d.code}]" for key, d in found.items() if key not in known}
    assert unexpected == {}
    assert set(found) == known, "a known gap is gone: drop it from KNOWN_GAPS and docs/installation.md"
