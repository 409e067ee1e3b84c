"""Real torch libraries checked as issue 16 reproduces them, with and without the overlay.

Each library's wheel is unpacked (tests/registry.py, never vendored) and checked from its
own directory, the way its developers would: ``pyright --outputjson --pythonpath <python>
<package>`` (no configuration file: pyright's defaults) and ``mypy --ignore-missing-imports
-p <package>``. The library's own imports resolve to its own source there; checked from
elsewhere (this repository) they are unresolved, and every type that crosses a module of
the library is Unknown, which hides most of what the overlay could change.

The two conditions run side by side (two processes; CI has two cores). ``probe.py`` is
checked in the same run and proves which condition a run saw.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from ..checkers import ROOT, pyright_diagnostics
from ..gradual.test_gradual import shadow_python
from ..registry import unpacked

PROBE = Path(__file__).resolve().parent / "probe.py"
_MYPY_LINE = re.compile(r"^(?P<path>[^:]+):(?P<line>\d+): error: (?P<message>.*?)  \[(?P<code>[\w-]+)\]$")


@dataclass(frozen=True)
class Library:
    distribution: str
    version: str
    #: package directories checked, relative to the unpacked wheel
    packages: tuple[str, ...]

    @property
    def name(self) -> str:
        return self.distribution


#: Metrics, model building blocks, vision ops and models, differentiable vision, metric
#: learning losses: all written against bare ``torch.Tensor``. torchvision 0.28.0 is the
#: release for torch 2.13 (``pip download --no-deps torchvision==0.28.0``); its ``ops``
#: and ``models`` are the parts the issue measured.
LIBRARIES = (
    Library("torchmetrics", "1.9.0", ("torchmetrics",)),
    Library("timm", "1.0.29", ("timm/layers",)),
    Library("kornia", "0.9.0", ("kornia",)),
    Library("torchvision", "0.28.0", ("torchvision/ops", "torchvision/models")),
    Library("pytorch-metric-learning", "2.9.0", ("pytorch_metric_learning",)),
)


@dataclass(frozen=True)
class Place:
    path: str  # relative to the unpacked wheel, or "probe.py"
    line: int
    code: str
    message: str

    @property
    def where(self) -> str:
        return f"{self.path}:{self.line}"


def _pyright(root: Path, library: Library, python: str) -> list[Place]:
    found = pyright_diagnostics("pyright", ["--pythonpath", python, *library.packages, str(PROBE)], cwd=root,
                                what=library.name)
    return [
        Place(_relative(root, d["file"]), d.get("range", {}).get("start", {}).get("line", -1) + 1, d.get("rule", ""), d["message"])
        for d in found
        if d["severity"] == "error"
    ]


def _mypy(root: Path, library: Library, python: str, condition: str) -> list[Place]:
    packages = [arg for package in library.packages for arg in ("-p", package.replace("/", "."))]
    cache_dir = ROOT / ".mypy_cache" / f"fidelity-{library.name}-{condition}"
    proc = subprocess.run(
        [sys.executable, "-m", "mypy", "--no-pretty", "--ignore-missing-imports", "--python-executable", python,
         "--cache-dir", str(cache_dir), *packages, "-m", PROBE.stem],
        # mypy takes packages or files, not both: the probe is a module on MYPYPATH
        cwd=root, capture_output=True, text=True, env={**os.environ, "MYPY_FORCE_COLOR": "0", "MYPYPATH": str(PROBE.parent)},
    )
    found = [m for m in map(_MYPY_LINE.match, proc.stdout.splitlines()) if m]
    if proc.returncode not in (0, 1) or (proc.returncode == 1 and not found):
        raise RuntimeError(f"mypy failed to run on {library.name}:\n{proc.stdout}\n{proc.stderr}")
    return [Place(_relative(root, m["path"]), int(m["line"]), m["code"], m["message"]) for m in found]


def _relative(root: Path, path: str) -> str:
    full = (root / path).resolve()
    if full == PROBE:
        return PROBE.name
    return full.relative_to(root.resolve()).as_posix() if full.is_relative_to(root.resolve()) else str(full)


@cache
def diagnostics(checker: str, library: Library) -> dict[str, tuple[Place, ...]]:
    """{"with": ..., "without": ...}: the errors of one checker on one library."""
    root = unpacked(library.distribution, library.version)
    pythons = {"with": sys.executable, "without": shadow_python()}

    def run(condition: str) -> tuple[Place, ...]:
        python = pythons[condition]
        if checker == "pyright":
            return tuple(_pyright(root, library, python))
        return tuple(_mypy(root, library, python, condition))

    with ThreadPoolExecutor(max_workers=2) as pool:
        runs = dict(zip(pythons, pool.map(run, pythons)))
    return runs


def differences(runs: dict[str, tuple[Place, ...]]) -> tuple[dict[str, list[Place]], dict[str, list[Place]]]:
    """(new, lost): places (file:line) with an error in one condition only, with their errors."""
    places = {condition: {p.where for p in found if p.path != PROBE.name} for condition, found in runs.items()}
    new, lost = {}, {}
    for where in sorted(places["with"] - places["without"]):
        new[where] = [p for p in runs["with"] if p.where == where]
    for where in sorted(places["without"] - places["with"]):
        lost[where] = [p for p in runs["without"] if p.where == where]
    return new, lost
