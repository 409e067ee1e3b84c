"""The cache's cost, before and after a change of engine, in one run (issue 25: no pickle).

    python3 benchmarks/cache_bench.py [--before REF] [--rounds 3]

Two engines check the same tree: this checkout, and ``REF`` (default ``dd3cd2c``, the
last engine with the pickle cache), exported with ``git archive`` into a temporary
directory. The tree is candle-python 0.1.0a1's backends (``check_bench.build_project``,
41,926 lines). Per round, interleaved (the order of the engines alternates), each engine:

* ``cold``: an empty cache, which the run writes;
* ``warm``: the same tree again (reads the index, opens no module file);
* ``edit``: a function appended to ``npu/ops.py`` (opens and rewrites that module's file).

CPU time (user + system of the child), median and min-max over the rounds; the output
line of each run must agree between the engines (the same findings).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from benchmarks.check_bench import BACKEND_DIRS, BIG_FILE, append_function, build_project, timed  # noqa: E402


def export(ref: str, dest: Path) -> Path:
    dest.mkdir(parents=True)
    archive = subprocess.run(["git", "-C", str(REPO), "archive", ref, "device_types"], check=True,
                             capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(dest)], input=archive, check=True)
    return dest


def run(engine: Path, project: Path, cache_home: Path) -> tuple[float, str]:
    env = dict(os.environ, PYTHONPATH=str(engine), XDG_CACHE_HOME=str(cache_home))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    _, cpu, out = timed([sys.executable, "-m", "device_types", "check", *BACKEND_DIRS], project, env, (0, 1))
    return cpu, [line for line in out.splitlines() if line.startswith("check ")][-1]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--before", default="dd3cd2c")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        engines = {f"before ({args.before})": export(args.before, base / "before"), "after (this tree)": REPO}
        times: dict[tuple[str, str], list[float]] = {}
        outcome: dict[str, set[str]] = {}
        for round_ in range(args.rounds):
            order = list(engines.items())
            if round_ % 2:
                order.reverse()
            for name, engine in order:
                project = build_project(base / f"{name[:6]}-{round_}", "real")
                for condition in ("cold", "warm", "edit"):
                    if condition == "edit":
                        big = project / BIG_FILE
                        big.write_text(append_function(big.read_text(encoding="utf-8"), round_), encoding="utf-8")
                    cpu, line = run(engine, project, base / "xdg")
                    times.setdefault((name, condition), []).append(cpu)
                    outcome.setdefault(condition, set()).add(line)
        print(f"candle-python 0.1.0a1 backends, {args.rounds} rounds, CPU s: median (min-max)")
        for (name, condition), values in times.items():
            print(f"  {condition:5} {name:24} {statistics.median(values):6.2f} ({min(values):.2f}-{max(values):.2f})")
        for condition, lines in outcome.items():
            print(f"  {condition}: {' | '.join(sorted(lines))}")
        return 0 if all(len(lines) == 1 for lines in outcome.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
