"""Our own code passes ``mypy --strict`` (the packages ship py.typed)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_packages_are_strictly_typed() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-pretty", "--cache-dir", str(ROOT / ".mypy_cache" / "self"),
         "device_types", "mypy_plugin", "stubs", "examples/run_demo.py"],
        cwd=ROOT, capture_output=True, text=True,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
