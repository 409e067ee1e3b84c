"""Fixtures: the case project and a CLI runner; the candle wheel, its labels, and one check run
per tree (original, fixed)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.check.candle_corpus import CheckRun, Label, candle_root, load_labels, run_check
from tests.check.pairs.candle_0_1_0a1 import PAIRS
from tests.check.pairs.model import apply_pairs

ROOT = Path(__file__).resolve().parents[2]
CASES = Path(__file__).resolve().parent / "cases"


@dataclass(frozen=True)
class Run:
    returncode: int
    stdout: str
    stderr: str

    def json(self) -> dict:
        return json.loads(self.stdout)


def run_cli(*args: str, cwd: Path) -> Run:
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


@pytest.fixture(scope="session")
def candle() -> Path:
    return candle_root()


@pytest.fixture(scope="session")
def labels() -> dict[tuple[str, str], Label]:
    return load_labels()


@pytest.fixture(scope="session")
def candle_check(candle: Path, tmp_path_factory: pytest.TempPathFactory) -> CheckRun:
    """The check over the wheel's backends as released (run once for every assertion)."""
    return run_check(candle, tmp_path_factory.mktemp("config"))


@pytest.fixture(scope="session")
def fixed_candle_check(candle: Path, tmp_path_factory: pytest.TempPathFactory) -> CheckRun:
    """The check over a copy of the wheel with every fix pair's "after" applied."""
    root = tmp_path_factory.mktemp("fixed-candle")
    shutil.copytree(candle / "candle", root / "candle")
    apply_pairs(root, PAIRS)
    return run_check(root, tmp_path_factory.mktemp("config"))
