"""The plugin on torch's own tree: no device finding outside configured backends.

Runs mypy with the plugin (no backends configured) over the whole installed torch
package, as user code, and counts findings whose code starts with ``device-``: every
one is a false positive (torch's code is correct and no module of it is a backend).
Also reports the run's CPU time. Too slow for the test suite (~90 s of CPU); ``make
bench`` runs it. Usage: ``.venv/bin/python benchmarks/plugin_torch_tree.py``.
"""

from __future__ import annotations

import re
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

FINDING = re.compile(r"^(?P<where>[^:]+:\d+): error: (?P<message>.*)  \[(?P<code>device-[a-z-]+)\]$")


def child_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run() -> tuple[list[str], float]:
    with tempfile.TemporaryDirectory() as tmp:
        config = Path(tmp) / "mypy.ini"
        config.write_text("[mypy]\nplugins = device_types_mypy\nfollow_imports = silent\n")
        before = child_cpu()
        proc = subprocess.run(
            [sys.executable, "-m", "mypy", "--config-file", str(config), "--cache-dir", str(Path(tmp) / "cache"),
             "--no-pretty", "--no-error-summary", "-p", "torch"],
            cwd=tmp, capture_output=True, text=True,
        )
        cpu = child_cpu() - before
    if proc.returncode not in (0, 1) or "INTERNAL ERROR" in proc.stdout + proc.stderr:
        raise SystemExit(f"mypy crashed on torch's tree:\n{proc.stdout[-3000:]}{proc.stderr[-3000:]}")
    findings = [m.group(0) for m in map(FINDING.match, proc.stdout.splitlines()) if m]
    return findings, cpu


def main() -> dict[str, object]:
    findings, cpu = run()
    for line in findings:
        print(line)
    print(f"plugin on torch's tree: {len(findings)} device-* findings outside backends (target 0), {cpu:.0f} s CPU")
    verdict = "ok" if not findings else "FINDINGS"
    print(f"RESULT plugin on torch's own tree: device-* findings (CPU {cpu:.0f} s) | | {len(findings)} | | 0 | {verdict}")
    return {"findings": len(findings), "cpu_s": cpu}


if __name__ == "__main__":
    sys.exit(1 if main()["findings"] else 0)
