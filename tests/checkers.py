"""Run a type checker as a subprocess and parse its diagnostics (errors only)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
_MYPY_LINE = re.compile(r"^(?P<path>[^:]+):(?P<line>\d+): error: (?P<message>.*?)  \[(?P<code>[\w-]+)\]$")


@dataclass(frozen=True)
class Diagnostic:
    path: Path  # absolute
    line: int
    code: str
    message: str


def run_mypy(targets: Sequence[Path], *args: str, cache: str, python: str = sys.executable) -> list[Diagnostic]:
    """mypy from this environment, checking against ``python``'s packages; cache under .mypy_cache/<cache>."""
    proc = subprocess.run(
        [sys.executable, "-m", "mypy", "--no-pretty", "--python-executable", python,
         "--cache-dir", str(ROOT / ".mypy_cache" / cache), *args, *map(str, targets)],
        cwd=ROOT, capture_output=True, text=True,
    )
    found = [m for m in map(_MYPY_LINE.match, proc.stdout.splitlines()) if m]
    if proc.returncode not in (0, 1) or (proc.returncode == 1 and not found):
        raise RuntimeError(f"mypy failed to run:\n{proc.stdout}\n{proc.stderr}")
    return [Diagnostic((ROOT / m["path"]).resolve(), int(m["line"]), m["code"], m["message"]) for m in found]


def run_pyright(tool: str, targets: Sequence[Path], *, config: Path, python: str = sys.executable) -> list[Diagnostic]:
    """pyright or basedpyright with ``config``, resolving imports through ``python``."""
    proc = subprocess.run(
        [str(BIN / tool), "--outputjson", "-p", str(config), "--pythonpath", python, *map(str, targets)],
        cwd=ROOT, capture_output=True, text=True,
    )
    try:
        report = json.loads(proc.stdout)
    except ValueError:
        raise RuntimeError(f"{tool} failed to run:\n{proc.stdout}\n{proc.stderr}") from None
    return [
        Diagnostic(Path(d["file"]).resolve(), d["range"]["start"]["line"] + 1, d.get("rule", ""), d["message"])
        for d in report["generalDiagnostics"]
        if d["severity"] == "error"
    ]
