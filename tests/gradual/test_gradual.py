"""Bare ``torch.Tensor`` stays gradual: the overlay adds no diagnostic to ordinary torch
code under ``mypy --strict``, pyright strict and basedpyright strict.

The same file is checked twice per checker: in this environment (overlay installed) and
in a shadow environment that sees every installed package except ``torch-stubs``. Every
diagnostic with the overlay (line and code) must also appear without it: torch's own
typing gaps show in both, and the overlay may only remove some (its stubs annotate a few
parameters that torch leaves bare), never add one.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from functools import cache
from pathlib import Path

import pytest

from ..checkers import Diagnostic, run_mypy, run_pyright, shadow_venv

HERE = Path(__file__).resolve().parent
MODULE = HERE / "realistic_model.py"


@cache
def shadow_python() -> str:
    """A venv whose site-packages is a hard-linked copy of ours, minus the overlay."""
    python, shadow_site, _ = shadow_venv("gradual-shadow-venv", lambda directory, names: ["torch-stubs"])
    assert not (shadow_site / "torch-stubs").exists() and (shadow_site / "torch").is_dir()
    return str(python)


pytestmark = pytest.mark.usefixtures("fresh_overlay")


CONFIG = HERE / "pyrightconfig.json"
CHECKERS: dict[str, Callable[[str, str], list[Diagnostic]]] = {
    "mypy": lambda python, tag: run_mypy([MODULE], "--strict", python=python, cache=f"gradual-{tag}"),
    "pyright": lambda python, tag: run_pyright("pyright", [MODULE], config=CONFIG, python=python),
    "basedpyright": lambda python, tag: run_pyright("basedpyright", [MODULE], config=CONFIG, python=python),
}


def located(diagnostics: list[Diagnostic]) -> list[str]:
    """``line: code`` for each diagnostic: messages differ with the overlay (types print a device)."""
    return [f"{d.line}: {d.code}" for d in diagnostics]


def known_limit_lines(checker: str) -> set[str]:
    """Lines marked ``# KNOWN-LIMIT <checker>``: documented additions, asserted to happen."""
    lines = MODULE.read_text().splitlines()
    family = "pyright" if checker.endswith("pyright") else checker
    return {str(n) for n, text in enumerate(lines, 1) if f"# KNOWN-LIMIT {family}:" in text}


@pytest.mark.parametrize("checker", sorted(CHECKERS))
def test_overlay_adds_no_diagnostic_to_bare_tensor_code(checker: str) -> None:
    with_overlay = located(CHECKERS[checker](sys.executable, "with"))
    without_overlay = located(CHECKERS[checker](shadow_python(), "without"))
    added = [d for d in with_overlay if d not in without_overlay]
    known = known_limit_lines(checker)
    assert [d for d in added if d.split(":")[0] not in known] == [], f"the overlay adds diagnostics (line: code): {added}"
    # The documented limits must stay true: if a checker fixes one, drop its marker.
    assert {d.split(":")[0] for d in added} == known
