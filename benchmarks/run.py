"""``make bench``: every benchmark, then one table of their results.

Each benchmark runs as its own process (its full output goes to
``benchmarks/out/<name>.log``) and prints its measurements as ``RESULT`` lines:
``RESULT <what> | <without> | <with> | <ratio> | <target> | <verdict>``. This script
collects them into one table. Ratios are CPU time (rusage) with the two conditions
interleaved; see docs/performance.md for what the numbers mean and their history.

    .venv/bin/python benchmarks/run.py            # everything (~25 min on 2 cores)
    .venv/bin/python benchmarks/run.py --quick    # one repetition each
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT = HERE / "out"


def benchmarks(reps: int) -> list[tuple[str, list[str]]]:
    r = str(reps)
    return [
        ("overlay, model tree", ["overlay_bench.py", "--reps", r, "--kernel-parts", "0", "--families", "40",
                                 "--tools", "mypy,pyright,basedpyright"]),
        ("overlay, real code", ["overlay_bench.py", "--reps", r, "--real", "torchmetrics==1.9.0:torchmetrics",
                                "--tools", "pyright,basedpyright"]),
        ("overlay variants, model tree", ["overlay_variants.py", "--reps", r]),
        ("overlay in the editor", ["editor_bench.py", "--rounds", str(3 * reps)]),
        ("plugin, backend tree", ["plugin_bench.py", "--repeat", r]),
        ("plugin, torch's own tree", ["plugin_torch_tree.py"]),
        ("audit, large tree", ["audit_large_tree.py"]),
        ("check, candle backends", ["check_bench.py", "--rounds", r, "--mypy-python", sys.executable]),
        ("check, engine choice", ["engine_choice.py"]),
        ("check, memory at scale (transformers)", ["memory_large_tree.py", "--rounds", r]),
        ("check, the cache", ["cache_bench.py", "--rounds", r]),
        ("lsp and check re-check, candle backends", ["lsp_bench.py", "--rounds", str(max(reps, 3))]),
        ("pre-commit hook environment", ["hook_env_size.py"]),
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="one repetition per benchmark")
    parser.add_argument("--only", help="run only the benchmarks whose name contains this")
    args = parser.parse_args()
    OUT.mkdir(exist_ok=True)
    sys.path.insert(0, str(HERE.parent))
    from benchmarks.machine import describe

    print(describe(), flush=True)
    rows: list[list[str]] = []
    failed = []
    for name, argv in benchmarks(1 if args.quick else 3):
        if args.only and args.only not in name:
            continue
        log = OUT / f"{name.replace(' ', '_').replace(',', '').replace(chr(39), '')}.log"
        print(f"running {name} ... (log: {log})", flush=True)
        start = time.perf_counter()
        proc = subprocess.run([sys.executable, str(HERE / argv[0]), *argv[1:]], cwd=HERE.parent,
                              capture_output=True, text=True)
        log.write_text(proc.stdout + proc.stderr)
        found = [[cell.strip() for cell in line[len("RESULT "):].split("|")] for line in proc.stdout.splitlines() if line.startswith("RESULT ")]
        if not found:  # a benchmark that prints its own table: its last line is the summary
            last = next((line for line in reversed(proc.stdout.splitlines()) if line.strip()), "no output")
            found = [[name, "", "", "", "", f"see log; last line: {last.strip()[:80]}"]]
        if proc.returncode not in (0, 1) or not found:
            failed.append(name)
        rows.extend(found)
        print(f"  done in {time.perf_counter() - start:.0f} s, exit {proc.returncode}", flush=True)
    header = ["measurement", "without", "with", "ratio", "target", "verdict"]
    widths = [max(len(str(row[i])) if i < len(row) else 0 for row in [header, *rows]) for i in range(len(header))]
    print()
    for row in [header, ["-" * w for w in widths], *rows]:
        print(" | ".join(str(cell).ljust(w) for cell, w in zip(row, widths)))
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
