"""Where the CLI's cached re-check spends its CPU, on candle's backends (no target; the
breakdown behind `lsp_bench.py`'s re-check line, in docs/ci-and-ide.md).

    .venv/bin/python benchmarks/recheck_phases.py [--rounds 5] [--rewrite]

Each round edits one line inside the first function of ``npu/ops.py`` (inserted, or with
``--rewrite`` rewritten in place), then runs ``device-types check candle/_backends`` in a
fresh interpreter with ``_cache.load``, ``Analysis.run``, ``_findings`` and ``_cache.save``
wrapped in ``time.process_time``, after the unmeasured run that fills the cache. Prints the
median of each phase, in ms, and the modules the run read from the cache.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from benchmarks.lsp_bench import BIG, CHECKED, build, with_probe  # noqa: E402

os.environ.pop("PYTHONDONTWRITEBYTECODE", None)  # as users' Pythons: bytecode is cached

PROBE = """import json, sys, time
start = time.process_time()
import device_types._check as check
from device_types._check import _cache, _pipeline, _solver
from device_types._cli import main
spent = {"import": time.process_time() - start}
read = []

def timed(owner, name, label):
    real = getattr(owner, name)
    def wrapper(*args, **kwargs):
        begun = time.process_time()
        try:
            return real(*args, **kwargs)
        finally:
            spent[label] = spent.get(label, 0.0) + time.process_time() - begun
    setattr(owner, name, wrapper)

timed(_cache, "load", "read the index")
timed(_solver.Analysis, "run", "adopt, move, walk")
timed(_pipeline, "module_findings", "findings")
timed(_cache, "save", "write")
real_read = _cache._read
_cache._read = lambda path: read.append(path.rsplit("/", 1)[-1]) or real_read(path)
try:
    main(["check", sys.argv[1]])
except SystemExit:
    pass
spent["all"] = time.process_time() - start
print(json.dumps({"ms": {k: round(v * 1000, 1) for k, v in spent.items()}, "read": len(read)}), file=sys.stderr)
"""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--rewrite", action="store_true", help="rewrite a line instead of inserting one")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        project = build(Path(tmp))
        big = project / BIG
        original = big.read_text(encoding="utf-8")
        runs = []
        for n in range(args.rounds):
            base = with_probe(original, 1000, True) if args.rewrite else original
            big.write_text(base, encoding="utf-8")
            subprocess.run([sys.executable, "-m", "device_types", "check", CHECKED], cwd=project, capture_output=True)
            big.write_text(with_probe(base, n, not args.rewrite), encoding="utf-8")
            proc = subprocess.run([sys.executable, "-c", PROBE, CHECKED], cwd=project, capture_output=True, text=True)
            runs.append(json.loads(proc.stderr.strip().splitlines()[-1]))
    phases = runs[0]["ms"].keys()
    edit = "rewritten" if args.rewrite else "inserted"
    print(f"re-check after a one-line edit ({edit}), CPU ms, median of {args.rounds}:")
    for phase in phases:
        print(f"  {phase:<20} {statistics.median(r['ms'][phase] for r in runs):7.1f}")
    print(f"  files read from the cache: {statistics.median(r['read'] for r in runs):.0f} (the index included)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
