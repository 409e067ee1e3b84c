"""Run each checker once over the case files and parse its diagnostics."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).parent
ROOT = HERE.parent.parent
BIN = Path(sys.executable).parent
TARGETS = [HERE / "cases", HERE / "canary.py"]


@dataclass(frozen=True)
class Diagnostic:
    path: str  # relative to tests/typecheck
    line: int
    code: str
    message: str


def _relative(path: str) -> str:
    return Path(path).resolve().relative_to(HERE.resolve()).as_posix()


def run_mypy() -> list[Diagnostic]:
    proc = subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", str(HERE / "mypy.ini"), "--no-pretty", *map(str, TARGETS)],
        cwd=ROOT, capture_output=True, text=True,
    )
    pattern = re.compile(r"^(?P<path>[^:]+):(?P<line>\d+): error: (?P<message>.*?)  \[(?P<code>[\w-]+)\]$")
    found = [m for m in map(pattern.match, proc.stdout.splitlines()) if m]
    if proc.returncode not in (0, 1) or (proc.returncode == 1 and not found):
        raise RuntimeError(f"mypy failed to run:\n{proc.stdout}\n{proc.stderr}")
    return [Diagnostic(_relative(m["path"]), int(m["line"]), m["code"], m["message"]) for m in found]


def run_pyright(tool: str) -> list[Diagnostic]:
    proc = subprocess.run(
        [str(BIN / tool), "--outputjson", "-p", str(HERE / "pyrightconfig.json"), "--pythonpath", sys.executable, *map(str, TARGETS)],
        cwd=ROOT, capture_output=True, text=True,
    )
    try:
        report = json.loads(proc.stdout)
    except ValueError:
        raise RuntimeError(f"{tool} failed to run:\n{proc.stdout}\n{proc.stderr}") from None
    return [
        Diagnostic(_relative(d["file"]), d["range"]["start"]["line"] + 1, d.get("rule", ""), d["message"])
        for d in report["generalDiagnostics"]
        if d["severity"] == "error"
    ]


RUNNERS = {"mypy": run_mypy, "pyright": lambda: run_pyright("pyright"), "basedpyright": lambda: run_pyright("basedpyright")}
