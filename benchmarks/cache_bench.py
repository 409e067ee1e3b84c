"""The cache's cost, before and after a change of engine, in one run.

    python3 benchmarks/cache_bench.py [--before REF ...] [--rounds 5]

Engines: this checkout, and each ``REF`` (default ``d62202a``, the JSON cache before its
documents were split out and copied; ``dd3cd2c`` is the last engine with the pickle cache,
whose findings differ, so it is compared for speed only), exported with ``git archive``
into a temporary directory. The tree is candle-python 0.1.0a1's backends
(``check_bench.build_project``, 41,926 lines). Per round, interleaved (the order of the
engines alternates), each engine in a fresh copy of the tree:

* ``cold``: an empty cache, which the run writes;
* ``warm``: the same tree again (reads the index, opens no module file);
* ``append``: a function appended to ``npu/ops.py`` (opens and rewrites that module's file);
* ``insert``: a line inserted inside the first function of ``npu/ops.py`` (every function
  below it moves: their records are carried into the new lines);
* ``rewrite``: that line rewritten (nothing moves);
* ``python -c pass``: the interpreter's start, the floor under every run.

CPU time (user + system of the child), median and min over the rounds. The engines that
are not ``dd3cd2c`` must print the same line in each condition (exit 1 otherwise). Issue
24's target: a re-check after a one-line edit costs at most 0.15 s over the interpreter's
start. ``RESULT`` lines are for ``benchmarks/run.py``.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from benchmarks.check_bench import BACKEND_DIRS, BIG_FILE, append_function, build_project, timed  # noqa: E402
from benchmarks.lsp_bench import with_probe  # noqa: E402
from benchmarks.machine import describe  # noqa: E402

PICKLE = "dd3cd2c"
CONDITIONS = ("cold", "warm", "append", "insert", "rewrite")
TARGET_S = 0.15


def export(ref: str, dest: Path) -> Path:
    """The engine at commit ``ref``, exported with ``git archive`` into ``dest``; a ``ref`` that
    is a directory holding ``device_types/`` is used as it is (a machine without the history)."""
    if (Path(ref) / "device_types").is_dir():
        return Path(ref).resolve()
    dest.mkdir(parents=True)
    archive = subprocess.run(["git", "-C", str(REPO), "archive", ref, "device_types"], check=True,
                             capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(dest)], input=archive, check=True)
    return dest


def run(engine: Path, project: Path, cache_home: Path) -> tuple[float, str]:
    import os

    env = dict(os.environ, PYTHONPATH=str(engine), XDG_CACHE_HOME=str(cache_home))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    _, cpu, out = timed([sys.executable, "-m", "device_types", "check", *BACKEND_DIRS], project, env, (0, 1))
    return cpu, [line for line in out.splitlines() if line.startswith("check ")][-1]


def start_cpu(project: Path) -> float:
    import os

    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return timed([sys.executable, "-c", "pass"], project, env, (0,))[1]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--before", action="append", help=f"an engine to compare (default d62202a; {PICKLE}: pickle)")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args(argv)
    print(describe(), flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        engines = {f"before ({Path(ref).name})": export(ref, base / Path(ref).name) for ref in args.before or ["d62202a"]}
        engines["after (this tree)"] = REPO
        times: dict[tuple[str, str], list[float]] = {}
        outcome: dict[tuple[str, str], set[str]] = {}
        starts: list[float] = []
        for round_ in range(args.rounds):
            order = list(engines.items())
            if round_ % 2:
                order.reverse()
            for name, engine in order:
                project = build_project(base / f"{name[:6]}-{name[-9:-1]}-{round_}", "real")
                big = project / BIG_FILE
                original = big.read_text(encoding="utf-8")
                for condition in CONDITIONS:
                    if condition == "append":
                        big.write_text(append_function(original, round_), encoding="utf-8")
                    elif condition == "insert":
                        big.write_text(with_probe(original, round_, True), encoding="utf-8")
                        run(engine, project, base / "xdg")  # unmeasured: the cache holds the file before the edit
                        big.write_text(with_probe(with_probe(original, round_, True), round_ + 1, True),
                                       encoding="utf-8")
                    elif condition == "rewrite":
                        big.write_text(with_probe(big.read_text(encoding="utf-8"), round_ + 2, False),
                                       encoding="utf-8")
                    cpu, line = run(engine, project, base / "xdg")
                    times.setdefault((name, condition), []).append(cpu)
                    outcome.setdefault((condition, name), set()).add(line)
                starts.append(start_cpu(project))
        print(f"candle-python 0.1.0a1 backends, {args.rounds} rounds, CPU s: median (min-max)")
        floor = min(starts)
        print(f"  python -c pass                   {statistics.median(starts):6.3f} ({floor:.3f}-{max(starts):.3f})")
        for condition in CONDITIONS:
            for name in engines:
                values = times[(name, condition)]
                print(f"  {condition:7} {name:24} {statistics.median(values):6.3f} ({min(values):.3f}-{max(values):.3f})")
        agree = True
        for condition in CONDITIONS:
            lines = {name: outcome[(condition, name)] for name in engines}
            compared = {line for name, seen in lines.items() if PICKLE not in name for line in seen}
            agree &= len(compared) == 1
            print(f"  {condition}: {' | '.join(sorted(compared))}")
        print(describe())
        after = "after (this tree)"
        for condition in ("insert", "rewrite", "append"):
            before_names = [name for name in engines if name != after]
            cells = " / ".join(f"{min(times[(name, condition)]) - floor:+.3f}" for name in before_names)
            ours = min(times[(after, condition)]) - floor
            print(f"RESULT re-check after an edit ({condition}), CPU over python -c pass, min of {args.rounds} "
                  f"({', '.join(before_names)}) | {cells} s | {ours:+.3f} s | | <= +{TARGET_S} s | "
                  f"{'met' if ours <= TARGET_S else 'not met'}")
        cold = [min(times[(name, "cold")]) for name in engines]
        print(f"RESULT cold check writing the cache, CPU s, min of {args.rounds} ({', '.join(engines)}) | "
              f"{' / '.join(f'{c:.2f}' for c in cold[:-1])} | {cold[-1]:.2f} | | | measured")
        return 0 if agree else 1


if __name__ == "__main__":
    sys.exit(main())
