"""docs/errors.md quotes mypy's own errors for device mistakes outside backends: they are mypy's."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ..checkers import ROOT, run_mypy

HERE = Path(__file__).resolve().parent
PROBE = HERE / "mypy_wording.py"
_MARKER = "<!-- mypy's wording: tests/typecheck/test_mypy_wording.py -->"

pytestmark = pytest.mark.usefixtures("fresh_overlay")


def documented() -> list[str]:
    text = (ROOT / "docs" / "errors.md").read_text(encoding="utf-8")
    block = re.search(re.escape(_MARKER) + r"\n```\n(.*?)\n```", text, re.DOTALL)
    assert block is not None, f"docs/errors.md lost its block after {_MARKER}"
    return block[1].splitlines()


def test_errors_md_quotes_mypy() -> None:
    found = run_mypy([PROBE], "--config-file", str(HERE / "mypy.ini"), cache="typecheck")
    assert [f"{d.path.name}:{d.line}: error: {d.message}  [{d.code}]" for d in found] == documented()
