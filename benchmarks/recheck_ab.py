"""Two engines' cached re-check after a one-line edit, interleaved, in CPU time: this
checkout against another (an older commit exported with
``git archive REV device_types | tar -x -C DIR``), on candle's backends as in ``lsp_bench.py``.

    .venv/bin/python benchmarks/recheck_ab.py --before DIR [--rounds 11]

Each round, for each engine in turn (the order alternating): the unmeasured run that fills its
cache, a line inserted in ``npu/ops.py``, then the measured ``device-types check``; and the
imports a re-check makes, in a fresh interpreter. Prints the medians over ``python -c pass``.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from benchmarks.lsp_bench import BIG, CHECKED, build, timed, with_probe  # noqa: E402

os.environ.pop("PYTHONDONTWRITEBYTECODE", None)  # as users' Pythons: bytecode is cached
IMPORTS = "import device_types._cli, device_types._check._cli, device_types._check._codec"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", required=True, type=Path, help="a directory holding the other engine's device_types")
    parser.add_argument("--rounds", type=int, default=11)
    args = parser.parse_args(argv)
    engines = {"before": str(args.before.resolve()), "after": str(REPO)}
    with tempfile.TemporaryDirectory() as tmp:
        projects = {"before": build(Path(tmp) / "before"), "after": Path(tmp) / "after" / "project"}
        shutil.copytree(projects["before"], projects["after"])
        original = (projects["after"] / BIG).read_text(encoding="utf-8")
        start: list[float] = []
        checks: dict[str, list[float]] = {k: [] for k in engines}
        imports: dict[str, list[float]] = {k: [] for k in engines}
        for n in range(args.rounds):
            start.append(timed([sys.executable, "-c", "pass"], Path(tmp)))
            for name in (engines if n % 2 == 0 else reversed(list(engines))):
                env = {**os.environ, "PYTHONPATH": engines[name]}
                big = projects[name] / BIG
                big.write_text(original, encoding="utf-8")
                check = [sys.executable, "-m", "device_types", "check", CHECKED]
                subprocess.run(check, cwd=projects[name], env=env, capture_output=True)
                big.write_text(with_probe(original, n, True), encoding="utf-8")
                checks[name].append(_timed(check, projects[name], env))
                imports[name].append(_timed([sys.executable, "-c", IMPORTS], Path(tmp), env))
    s = statistics.median(start)
    print(f"python -c pass: {s * 1000:.0f} ms CPU, median of {args.rounds}")
    for name in engines:
        c, i = statistics.median(checks[name]), statistics.median(imports[name])
        print(f"{name:>6}: re-check +{(c - s) * 1000:.0f} ms over it, its imports +{(i - s) * 1000:.0f} ms")
    return 0


def _timed(cmd: list[str], cwd: Path, env: dict[str, str]) -> float:
    import resource

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(cmd)} exited {proc.returncode}:\n{proc.stderr[-2000:].decode(errors='replace')}")
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


if __name__ == "__main__":
    raise SystemExit(main())
