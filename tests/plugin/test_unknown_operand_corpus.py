"""device-unknown-operand is silent on the typed held-out corpus: the typecheck cases (run as
backend modules of each device) and the example project (its own configuration), with the
code turned on. What it does report is pinned by the case package (``unknown_operand.py``)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from .test_plugin import CACHE, ENV, REPO, needs_overlay, run_mypy

pytestmark = needs_overlay
CODE = "device-unknown-operand"


@pytest.mark.parametrize("device", ["mps", "cuda"])
def test_silent_on_the_typecheck_cases(tmp_path: Path, device: str) -> None:
    cases = sorted((REPO / "tests" / "typecheck" / "cases").glob("*.py"))
    for case in cases:
        shutil.copy(case, tmp_path / case.name)
    backends = ", ".join(f'"{case.stem}" = "{device}"' for case in cases)
    (tmp_path / "pyproject.toml").write_text(
        f'[tool.mypy]\nplugins = ["device_types_mypy"]\nstrict = true\nenable_error_code = ["{CODE}"]\n\n'
        f"[tool.device_types]\nbackends = {{ {backends} }}\n")
    proc = run_mypy(tmp_path, *(case.name for case in cases), cache="corpus")
    assert "Traceback" not in proc.stdout + proc.stderr
    assert proc.returncode in (0, 1), proc.stderr
    # the other policy codes do fire here (these are not backend modules): the run checked them
    assert f"[{CODE}]" not in proc.stdout
    assert "[device-" in proc.stdout


def test_silent_on_the_example_project() -> None:
    project = REPO / "examples" / "candle"
    proc = subprocess.run(
        [sys.executable, "-m", "mypy", "--no-pretty", "--no-error-summary", "--enable-error-code", CODE,
         "--cache-dir", str(CACHE / "corpus-example")],
        cwd=project, capture_output=True, text=True, env=ENV,
    )
    expected = (REPO / "examples" / "expected" / "mypy.txt").read_text()
    assert proc.stdout == expected
