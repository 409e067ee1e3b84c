"""The README's main job: the demo must print exactly what examples/expected/ records."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


pytestmark = pytest.mark.usefixtures("fresh_overlay")


def test_demo_output_matches_expected() -> None:
    proc = subprocess.run([sys.executable, str(ROOT / "examples" / "run_demo.py")], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "demo: every step printed what examples/expected/ describes" in proc.stdout
    # One error per policy code, and none in the clean composites.
    expected = (ROOT / "examples" / "expected" / "mypy.txt").read_text()
    codes = [line.rsplit("[", 1)[1].rstrip("]") for line in expected.splitlines() if "[device-" in line]
    assert sorted(codes) == sorted(set(codes)) and len(codes) == 10
    assert "composites.py" not in expected
