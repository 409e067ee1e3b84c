"""The cached re-check after a one-line edit in instructions executed (valgrind's callgrind),
which other jobs on the machine do not change: this checkout against other engines, on
candle's backends as in ``lsp_bench.py``.

    .venv/bin/python benchmarks/recheck_instructions.py [--before REF ...] [--rewrite]

CPU time on a shared machine moves by 30-60 % with the load (docs/performance.md); the count
of instructions of one run moves by less than 0.1 % between runs (``PYTHONHASHSEED=0``), so a
change of a few milliseconds shows. It is a proxy, not a time: an instruction of the
interpreter's loop and one of a C hash cost differently. Needs ``valgrind`` (Debian's
package); each measured run takes 15-25 s under it.

For each engine (this checkout; each ``REF``, a commit exported with ``git archive``, or a
directory holding ``device_types/``): ``npu/ops.py`` as released, two unmeasured runs (the
cache, then the bytecode), one line inserted in the file's first function with two
statements (``--rewrite``: rewritten in place, after a cache of the file with that line),
then ``device-types check candle/_backends`` counted. ``python -c pass`` is counted too: the
interpreter's start, which issue 24's target is over.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from benchmarks.cache_bench import export  # noqa: E402
from benchmarks.lsp_bench import BIG, CHECKED, build, with_probe  # noqa: E402

COLLECTED = re.compile(r"Collected : (\d+)")


def instructions(command: list[str], cwd: Path, env: dict[str, str]) -> int:
    """Instructions the command executed, as callgrind counts them."""
    proc = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *command],
                          cwd=cwd, env=env, capture_output=True, text=True)
    found = COLLECTED.search(proc.stderr)
    if found is None:
        raise SystemExit(f"no count from valgrind: {proc.stderr[-2000:]}")
    return int(found.group(1))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", action="append", default=[], help="an engine to compare (a commit or a directory)")
    parser.add_argument("--rewrite", action="store_true", help="rewrite a line instead of inserting one")
    args = parser.parse_args(argv)
    if shutil.which("valgrind") is None:
        raise SystemExit("needs valgrind (apt-get install valgrind)")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}  # bytecode cached, as users'
    env["PYTHONHASHSEED"] = "0"
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        engines = {"this checkout": REPO}
        for ref in args.before:
            engines[ref] = export(ref, base / "engines" / Path(ref).name)
        floor = instructions([sys.executable, "-c", "pass"], base, env)
        print(f"python -c pass: {floor / 1e6:.1f} M instructions")
        edit = "rewritten" if args.rewrite else "inserted"
        print(f"re-check after a line {edit} in {BIG}, M instructions (over python -c pass):")
        counts = {}
        for name, engine in engines.items():
            project = build(base / f"project-{len(counts)}")
            big = project / BIG
            original = big.read_text(encoding="utf-8")
            start = with_probe(original, 1000, True) if args.rewrite else original
            big.write_text(start, encoding="utf-8")
            run_env = {**env, "PYTHONPATH": str(engine)}
            check = [sys.executable, "-m", "device_types", "check", CHECKED]
            for _ in range(2):
                subprocess.run(check, cwd=project, env=run_env, capture_output=True)
            big.write_text(with_probe(start, 7, not args.rewrite), encoding="utf-8")
            counts[name] = instructions(check, project, run_env)
            print(f"  {name:<24} {counts[name] / 1e6:8.1f} ({(counts[name] - floor) / 1e6:+.1f})")
        ours = counts["this checkout"]
        for name, count in counts.items():
            if name != "this checkout":
                print(f"  this checkout against {name}: {(ours - count) / count * 100:+.1f} %")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
