"""Run a type checker as a subprocess and parse its diagnostics (errors only)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

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


def pyright_diagnostics(tool: str, args: Sequence[str], *, cwd: Path, what: str) -> list[dict[str, Any]]:
    """``tool --outputjson ARGS`` (pyright or basedpyright) from ``cwd``: its diagnostics as
    JSON objects; a run that prints no report is an error naming ``what`` was checked."""
    proc = subprocess.run([str(BIN / tool), "--outputjson", *args], cwd=cwd, capture_output=True, text=True)
    try:
        report = json.loads(proc.stdout)
    except ValueError:
        raise RuntimeError(f"{tool} failed to run on {what}:\n{proc.stdout}\n{proc.stderr}") from None
    diagnostics: list[dict[str, Any]] = report["generalDiagnostics"]
    return diagnostics


def run_pyright(tool: str, targets: Sequence[Path], *, config: Path, python: str = sys.executable) -> list[Diagnostic]:
    """pyright or basedpyright with ``config``, resolving imports through ``python``."""
    found = pyright_diagnostics(tool, ["-p", str(config), "--pythonpath", python, *map(str, targets)], cwd=ROOT,
                                what=", ".join(map(str, targets)))
    return [
        Diagnostic(Path(d["file"]).resolve(), d["range"]["start"]["line"] + 1, d.get("rule", ""), d["message"])
        for d in found
        if d["severity"] == "error"
    ]


def shadow_venv(name: str, ignore: Callable[[str, list[str]], list[str]]) -> tuple[Path, Path, Path]:
    """(python, its site-packages, ours): a venv under .mypy_cache/<name> whose site-packages
    is a hard-linked copy of ours, less what ``ignore`` leaves out of our site-packages.

    Hard links, not symlinks: mypy resolves symlinks, and torch's files would then lie
    outside the interpreter's site-packages and be checked as user code. The copy is remade
    each session (about 2 s) at a fixed path, so mypy's cache for it stays warm.
    """
    base = ROOT / ".mypy_cache" / name
    python = base / "bin" / "python"
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(base)], check=True)
    shadow_site = Path(
        subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                       capture_output=True, text=True, check=True).stdout.strip()
    )
    shutil.rmtree(shadow_site)
    site = Path(sysconfig.get_paths()["purelib"])
    shutil.copytree(site, shadow_site, copy_function=os.link, symlinks=True,
                    ignore=lambda directory, names: ignore(directory, names) if Path(directory) == site else [])
    return python, shadow_site, site


def three_checkers(here: Path, targets: Sequence[Path], cache: str) -> dict[str, Callable[[], list[Diagnostic]]]:
    """mypy (``here/mypy.ini``), pyright and basedpyright (``here/pyrightconfig.json``) on ``targets``."""
    config = here / "pyrightconfig.json"
    return {
        "mypy": lambda: run_mypy(targets, "--config-file", str(here / "mypy.ini"), cache=cache),
        "pyright": lambda: run_pyright("pyright", targets, config=config),
        "basedpyright": lambda: run_pyright("basedpyright", targets, config=config),
    }
