"""Building this package's wheel from a copy of the sources, offline: shared by the packaging
test and ``benchmarks/hook_env_size.py``."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: What the wheel is built from (build/ and *.egg-info stay out of the checkout, whose
#: build/ holds the strict editable install).
SOURCES = ("pyproject.toml", "README.md", "device_types", "mypy_plugin", "stubs", "docs")


def build_wheel(work: Path) -> Path:
    """The wheel, built under ``work`` with this environment's setuptools (no build isolation,
    no index: nothing is downloaded)."""
    source = work / "source"
    source.mkdir()
    for name in SOURCES:
        origin = ROOT / name
        if origin.is_dir():
            shutil.copytree(origin, source / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(origin, source / name)
    dist = work / "dist"
    run = subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation",
                          "--no-index", "--wheel-dir", str(dist), str(source)], capture_output=True, text=True)
    if run.returncode != 0:
        raise RuntimeError(f"building the wheel failed:\n{run.stdout}{run.stderr}")
    (wheel,) = dist.glob("device_types-*.whl")
    return wheel
