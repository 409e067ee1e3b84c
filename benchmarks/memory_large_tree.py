"""Peak memory and CPU of a cold check on a 1M-line tree, before and after a change, in one run.

    python3 benchmarks/memory_large_tree.py [--before REF] [--rounds 3]

The tree is transformers 4.57.1 from the package registry (``tests/registry.py``: the wheel,
unzipped, never installed; about 1.17M lines in 2,214 files), checked as issue 25 did:
``transformers.models`` as an npu backend and ``transformers.generation`` as mps, the whole
package given, ``--no-cache --format json``. Two engines, interleaved (the order alternates
by round): ``REF`` (default ``d62202a``, the engine before issue 25's memory work, exported
with ``git archive``) and this checkout. Per run: CPU (user + system of the child), wall time
and the peak resident set (``ru_maxrss`` of the child), each in a fresh process. The JSON
reports of all runs must be the same byte for byte (else exit 1).

Issue 25's target: peak <= 1.0 GB (0.8 KB per source line is the ideal), cold CPU no worse
than before in the same run. ``RESULT`` lines are for ``benchmarks/run.py``.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from benchmarks.cache_bench import export  # noqa: E402
from benchmarks.machine import describe  # noqa: E402
from tests.registry import unpacked  # noqa: E402

CONFIG = """\
[tool.device_types]
backends = { "transformers.models" = "npu", "transformers.generation" = "mps" }
"""
TARGET_MB = 1000

#: Runs the check in a child and prints the child's rusage: CPU s, peak RSS KB, exit status, the
#: report's digest; then what the report counts.
_CHILD = """\
import hashlib, json, resource, subprocess, sys
p = subprocess.run(sys.argv[1:], capture_output=True)
u = resource.getrusage(resource.RUSAGE_CHILDREN)
report = json.loads(p.stdout)
print(u.ru_utime + u.ru_stime, u.ru_maxrss, p.returncode, hashlib.sha256(p.stdout).hexdigest()[:16])
print(f'{report["summary"]["findings"]} findings, {len(report["problems"])} problems, exit {report["exit_code"]}')
sys.stderr.write(p.stderr.decode()[-500:])
"""


def run(engine: Path, project: Path) -> tuple[float, float, float, str, str]:
    """(CPU s, wall s, peak RSS MB, digest of the JSON report, summary) of one cold check."""
    env = dict(os.environ, PYTHONPATH=str(engine))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", _CHILD, sys.executable, "-m", "device_types", "check", "--no-cache",
                           "--format", "json", "transformers"], cwd=project, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"the check failed under {engine}:\n{proc.stderr[-2000:]}")
    first, summary = proc.stdout.strip().splitlines()[:2]
    cpu, peak_kb, _, digest = first.split()
    return float(cpu), wall, int(peak_kb) / 1024, digest, summary


def _cpu_verdict(before: float, after: float) -> str:
    if after <= before:
        return "met"
    # identical runs of one engine differ by several per cent on a shared machine
    return "within 3 % (noise)" if after <= before * 1.03 else "not met"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--before", default="d62202a")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    print(describe(), flush=True)
    source = unpacked("transformers", "4.57.1", ("transformers/*",))
    files = sorted((source / "transformers").rglob("*.py"))
    lines = sum(len(p.read_bytes().split(b"\n")) for p in files)
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        project = base / "project"
        project.mkdir()
        (project / "transformers").symlink_to(source / "transformers", target_is_directory=True)
        (project / "pyproject.toml").write_text(CONFIG)
        engines = {f"before ({Path(args.before).name})": export(args.before, base / "before"), "after (this tree)": REPO}
        print(f"transformers 4.57.1: {len(files):,} files, {lines:,} lines; check --no-cache --format json; "
              f"{args.rounds} rounds, the engines interleaved")
        measured: dict[str, list[tuple[float, float, float]]] = {name: [] for name in engines}
        digests: set[str] = set()
        for round_ in range(args.rounds):
            order = list(engines.items())
            if round_ % 2:
                order.reverse()
            for name, engine in order:
                cpu, wall, peak, digest, summary = run(engine, project)
                measured[name].append((cpu, wall, peak))
                digests.add(digest)
                print(f"  {name:24} CPU {cpu:6.1f} s  wall {wall:6.1f} s  peak {peak:6.0f} MB "
                      f"({peak * 1024 * 1024 / lines:5.0f} B/line)  report {digest}  {summary}", flush=True)
        print(describe())
        (before, after) = (measured[name] for name in engines)
        cpu_before, cpu_after = min(c for c, _, _ in before), min(c for c, _, _ in after)
        peak_before, peak_after = max(p for _, _, p in before), max(p for _, _, p in after)
        print(f"  CPU s, min (median): before {cpu_before:.1f} ({statistics.median(c for c, _, _ in before):.1f}), "
              f"after {cpu_after:.1f} ({statistics.median(c for c, _, _ in after):.1f})")
        same = len(digests) == 1
        print(f"  reports: {'the same in every run' if same else 'DIFFER: ' + ', '.join(sorted(digests))}")
        per_line = peak_after * 1024 * 1024 / lines
        print(f"RESULT transformers 4.57.1 cold check, peak RSS MB (B/line) | {peak_before:.0f} "
              f"({peak_before * 1024 * 1024 / lines:.0f}) | {peak_after:.0f} ({per_line:.0f}) | "
              f"{peak_after / peak_before:.2f}x | <= {TARGET_MB} MB | {'met' if peak_after <= TARGET_MB else 'not met'}")
        print(f"RESULT transformers 4.57.1 cold check, CPU s (min of {args.rounds}) | {cpu_before:.1f} | {cpu_after:.1f} | "
              f"{cpu_after / cpu_before:.2f}x | no worse | {_cpu_verdict(cpu_before, cpu_after)}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
