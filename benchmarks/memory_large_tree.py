"""Peak memory and CPU of a cold check on a 1M-line tree, before and after a change, in one run.

    python3 benchmarks/memory_large_tree.py [--before REF] [--rounds 1]

The tree is transformers 4.57.1 from the package registry (``tests/registry.py``: the wheel,
unzipped, never installed; about 1.17M lines in 2,214 files), checked as issue 25 did:
``transformers.models`` as an npu backend and ``transformers.generation`` as mps, the whole
package given, ``--no-cache``. Two engines, interleaved: ``REF`` (default ``dd3cd2c``,
exported with ``git archive``) and this checkout. Per run: CPU (user + system) and the peak
resident set (``ru_maxrss`` of the child). Issue 25's target: peak <= 1.0 GB (0.8 KB per
source line), cold CPU no worse than before in the same run.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from benchmarks.cache_bench import export  # noqa: E402
from tests.registry import unpacked  # noqa: E402

CONFIG = """\
[tool.device_types]
backends = { "transformers.models" = "npu", "transformers.generation" = "mps" }
"""


def run(engine: Path, project: Path) -> tuple[float, float, float, str]:
    """(CPU s, wall s, peak RSS MB, the summary line) of one cold check in a fresh process."""
    env = dict(os.environ, PYTHONPATH=str(engine))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    code = ("import resource, subprocess, sys; p = subprocess.run(sys.argv[1:], capture_output=True, text=True); "
            "u = resource.getrusage(resource.RUSAGE_CHILDREN); "
            "print(u.ru_utime + u.ru_stime, u.ru_maxrss, p.returncode); print(p.stdout.strip().splitlines()[-1]); "
            "print(p.stderr[-500:], file=sys.stderr)")
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", code, sys.executable, "-m", "device_types", "check", "--no-cache",
                           "transformers"], cwd=project, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - start
    first, summary = proc.stdout.strip().splitlines()[:2]
    cpu, peak_kb, _ = first.split()
    return float(cpu), wall, int(peak_kb) / 1024, summary


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--before", default="dd3cd2c")
    parser.add_argument("--rounds", type=int, default=1)
    args = parser.parse_args(argv)
    source = unpacked("transformers", "4.57.1", ("transformers/*",))
    lines = sum(len(p.read_bytes().split(b"\n")) for p in (source / "transformers").rglob("*.py"))
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        project = base / "project"
        project.mkdir()
        (project / "transformers").symlink_to(source / "transformers", target_is_directory=True)
        (project / "pyproject.toml").write_text(CONFIG)
        engines = {f"before ({args.before})": export(args.before, base / "before"), "after (this tree)": REPO}
        print(f"transformers 4.57.1: {lines:,} lines; check --no-cache, CPU s, wall s, peak RSS")
        for round_ in range(args.rounds):
            order = list(engines.items())
            if round_ % 2:
                order.reverse()
            for name, engine in order:
                cpu, wall, peak, summary = run(engine, project)
                print(f"  {name:24} CPU {cpu:6.1f} s  wall {wall:6.1f} s  peak {peak:7.0f} MB "
                      f"({peak * 1024 * 1024 / lines:.0f} B/line)  {summary}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
