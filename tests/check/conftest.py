from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CASES = Path(__file__).resolve().parent / "cases"


@dataclass(frozen=True)
class Run:
    returncode: int
    stdout: str
    stderr: str

    def json(self) -> dict:
        return json.loads(self.stdout)


def run_check(*args: str, cwd: Path) -> Run:
    """``python -m device_types check`` as a user runs it (no cache, unless a test asks)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, "-m", "device_types", "check", *args], cwd=cwd, capture_output=True,
                          text=True, env=env)
    return Run(proc.returncode, proc.stdout, proc.stderr)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A fresh copy of the case project (tests may edit it)."""
    target = tmp_path / "proj"
    shutil.copytree(CASES / "proj", target)
    return target
