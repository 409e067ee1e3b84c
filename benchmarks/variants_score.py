"""How general ``device-types check`` is: its verdicts on the variant project of issue 24.

    .venv/bin/python benchmarks/variants_score.py [--engine DIR] [--show-wrong]

Runs ``python -m device_types check --format json --no-cache --enable device-host-sync vfw``
in ``tests/check/variants/proj`` (with ``PYTHONPATH=DIR``, default: this checkout) and judges
every generated block (``tests/check/variants/generate.py``): a fallback variant is found when
each of its functions gets exactly its marked findings (the right code family at the root
line); a clean or host-sync variant is right when it gets exactly its marks (none, or only
``device-host-sync``). Support blocks (helpers a variant needs) are judged and listed, not
scored. Prints one summary line per label: the verdict alone (flagged or not, as a held-out set
scores it) and exactly (the code family at the root line, as the test asserts). With
``--show-wrong``, every wrong block with what was expected and what was found, grouped by the
cause ``tests/check/test_variants.py`` gives it (``WRONG``), and the entries of ``WRONG`` that
are right now. Exit 0 always: this is a measurement, the test is ``tests/check/test_variants.py``.
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

from tests.check.test_variants import WRONG  # noqa: E402
from tests.check.variants.generate import PROJ, collect, flagged, found_by_function, judge  # noqa: E402


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
    tally: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])  # exact, flagged, total
    wrong = []
    for variant in collect():
        problems = judge(variant, found)
        tally[variant.label][0] += not problems
        tally[variant.label][1] += flagged(variant, found)
        tally[variant.label][2] += 1
        if problems:
            wrong.append((variant, problems))
    exact, hit, total = tally["fallback"]
    print(f"fallback variants: found {hit} of {total} (a finding other than a host sync); "
          f"{exact} of {total} exactly (every function, the code family at the root line)")
    exact, hit, total = tally["clean"]
    print(f"clean variants: flagged {hit} of {total}; {total - exact} of {total} with any finding")
    exact, hit, total = tally["host-sync"]
    print(f"host-sync variants: flagged as fallbacks {hit} of {total}; {total - exact} of {total} not exactly "
          f"their host-sync findings")
    exact, _hit, total = tally["support"]
    print(f"support blocks (not scored): {total - exact} of {total} wrong")
    if args.show_wrong:
        by_cause: dict[str, list] = defaultdict(list)
        for variant, problems in wrong:
            by_cause[WRONG.get(variant.id, "not in WRONG (a new miss, or a fix: update the test)")].append(
                (variant, problems))
        for cause, items in by_cause.items():
            print(f"\n== {cause} ({len(items)})")
            for variant, problems in items:
                print(f"{variant.id} ({variant.path}:{variant.line}) [{variant.label}] {variant.seed} / {variant.transform}")
                for line in problems:
                    print(f"    {line}")
        fixed = sorted(set(WRONG) - {variant.id for variant, _ in wrong})
        if fixed:
            print(f"\n== right now, still marked xfail in tests/check/test_variants.py: {', '.join(fixed)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
