"""The fault and bad-input suite (issue 25): each case runs the CLI as a user does and states
the exit status and the output it expects. Everything here is small and fast; large trees
are in ``benchmarks/``."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
#: The engine the CLI runs from: this checkout, or (to see a case fail on an older engine)
#: the directory named by RELIABILITY_ENGINE, e.g. an export of an older commit.
ENGINE = Path(os.environ.get("RELIABILITY_ENGINE", ROOT))
PROJECT = ROOT / "tests" / "check" / "cases" / "proj"


@dataclass(frozen=True)
class Run:
    returncode: int
    stdout: str
    stderr: str

    @property
    def output(self) -> str:
        return self.stdout + self.stderr


def cli(*args: str, cwd: Path, stdout: int | None = None, preexec_fn: Callable[[], None] | None = None,
        timeout: float = 120, env: dict[str, str] | None = None) -> Run:
    """``python -m device_types ARGS`` in ``cwd``, as a user runs it."""
    full_env = {**os.environ, "PYTHONPATH": str(ENGINE), **(env or {})}
    proc = subprocess.run([sys.executable, "-m", "device_types", *args], cwd=cwd, env=full_env, text=True,
                          stdout=subprocess.PIPE if stdout is None else stdout, stderr=subprocess.PIPE,
                          preexec_fn=preexec_fn, timeout=timeout)
    return Run(proc.returncode, proc.stdout or "", proc.stderr)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """The check's case project, without its deliberately broken file (a clean run: exit 1)."""
    target = tmp_path / "proj"
    shutil.copytree(PROJECT, target)
    (target / "fw/_backends/mps/broken.py").unlink()
    return target


def no_traceback(run: Run) -> None:
    assert "Traceback" not in run.output, run.output
