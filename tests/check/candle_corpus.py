"""Shared by the candle corpus tests: the wheel, the labels, and one ``device-types check`` run.

The check runs as users run it: the CLI, ``--format json``, a ``pyproject.toml`` that only
names candle's backends. An engine that is missing or crashes fails the tests (never skips).
"""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from tests.registry import unpacked

CANDLE = ("candle-python", "0.1.0a1")
LABELS = Path(__file__).parent / "labels" / "candle-0.1.0a1.json"
HOST_SYNC = "device-host-sync"
BACKENDS_TOML = """\
[tool.device_types]
backends = { "candle._backends.mps" = "mps", "candle._backends.cuda" = "cuda", "candle._backends.npu" = "npu" }
"""


def candle_root() -> Path:
    """The directory holding ``candle/`` of the wheel (cached by tests.registry)."""
    return unpacked(*CANDLE, ("candle/*",))


@dataclass(frozen=True)
class Label:
    path: str
    function: str
    label: str
    why: str


def load_labels() -> dict[tuple[str, str], Label]:
    data = json.loads(LABELS.read_text(encoding="utf-8"))
    return {(e["path"], e["function"]): Label(e["path"], e["function"], e["label"], e["why"])
            for e in data["functions"]}


def corpus_path(path: str) -> str:
    """A finding's path as the labels spell it (``candle/_backends/...``), whatever the cwd."""
    path = path.replace("\\", "/")
    at = path.rfind("candle/_backends/")
    return path[at:] if at >= 0 else path


@dataclass(frozen=True)
class CheckRun:
    findings: list[dict]
    stdout: str
    stderr: str

    def by_function(self, *, host_sync: bool) -> dict[tuple[str, str], list[dict]]:
        """(path, function) -> its findings: the host-sync code only, or every other code."""
        out: dict[tuple[str, str], list[dict]] = {}
        for finding in self.findings:
            if (finding["code"] == HOST_SYNC) != host_sync:
                continue
            out.setdefault((corpus_path(finding["path"]), finding["function"]), []).append(finding)
        return out


def run_check(root: Path, config_dir: Path) -> CheckRun:
    """``device-types check --format json --enable device-host-sync candle/_backends`` in ``root``."""
    config = config_dir / "pyproject.toml"
    config.write_text(BACKENDS_TOML, encoding="utf-8")
    command = [sys.executable, "-m", "device_types", "check", "--format", "json",
               "--config", str(config), "--enable", HOST_SYNC, "candle/_backends"]
    proc = subprocess.run(command, cwd=root, capture_output=True, text=True, timeout=600)
    if proc.returncode not in (0, 1):
        raise AssertionError(
            f"`{' '.join(command[1:])}` exited {proc.returncode} (expected 0 or 1) in {root}\n"
            f"stderr:\n{proc.stderr[-4000:]}\nstdout:\n{proc.stdout[-2000:]}")
    try:
        report = json.loads(proc.stdout)
    except json.JSONDecodeError as exc:
        raise AssertionError(f"--format json printed no JSON ({exc}):\n{proc.stdout[-2000:]}") from None
    problems = report.get("problems") or []
    if problems:
        raise AssertionError(f"the check could not analyse parts of the wheel: {problems[:5]}")
    for finding in report["findings"]:
        missing = {"path", "line", "column", "code", "message", "function", "backend", "chain"} - finding.keys()
        if missing:
            raise AssertionError(f"finding without {sorted(missing)}: {finding}")
    return CheckRun(report["findings"], proc.stdout, proc.stderr)
