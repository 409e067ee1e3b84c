"""How general ``device-types check`` is: its verdicts on the variant project of issue 24.

    .venv/bin/python benchmarks/variants_score.py [--engine DIR] [--show-wrong]

Runs ``python -m device_types check --format json --no-cache --enable device-host-sync vfw``
in ``tests/check/variants/proj`` (with ``PYTHONPATH=DIR``, default: this checkout) and judges
every generated block (``tests/check/variants/generate.py``): a fallback variant is found when
each of its functions gets exactly its marked findings (the right code family at the root
line); a clean or host-sync variant is right when it gets exactly its marks (none, or only
``device-host-sync``). Support blocks (helpers a variant needs) are judged and listed, not
scored. Prints one summary line per label, then (``--show-wrong``) every wrong block with what
was expected and what was found. Exit 0 always: this is a measurement, the test is
``tests/check/test_variants.py``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.check.variants.generate import PROJ, collect, found_by_function, judge  # noqa: E402


def run(engine: Path) -> list[dict]:
    env = {**os.environ, "PYTHONPATH": str(engine)}
    proc = subprocess.run([sys.executable, "-m", "device_types", "check", "--format", "json", "--no-cache",
                           "--enable", "device-host-sync", "vfw"], cwd=PROJ, capture_output=True, text=True, env=env)
    if proc.returncode not in (0, 1):
        sys.exit(f"check failed ({proc.returncode}): {proc.stderr.strip()}")
    return json.loads(proc.stdout)["findings"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engine", type=Path, default=ROOT)
    parser.add_argument("--show-wrong", action="store_true")
    args = parser.parse_args()
    found = found_by_function(run(args.engine.resolve()))
    tally: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    wrong = []
    for variant in collect():
        problems = judge(variant, found)
        tally[variant.label][0] += not problems
        tally[variant.label][1] += 1
        if problems:
            wrong.append((variant, problems))
    fb_right, fb_all = tally["fallback"]
    print(f"fallback variants found (every function at its root): {fb_right} of {fb_all}")
    for label in ("clean", "host-sync"):
        right, total = tally[label]
        print(f"{label} variants flagged wrongly: {total - right} of {total}")
    right, total = tally["support"]
    print(f"support blocks (not scored) wrong: {total - right} of {total}")
    if args.show_wrong:
        for variant, problems in wrong:
            print(f"\n{variant.id} ({variant.path}:{variant.line}) [{variant.label}] {variant.seed} / {variant.transform}")
            for line in problems:
                print(f"    {line}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
