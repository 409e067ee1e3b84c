"""How much walking a cold check of candle's backends does, in steps that do not depend on
the machine's load (no target; the counts behind the cold check's account in
docs/ci-and-ide.md).

    .venv/bin/python benchmarks/walk_steps.py [--engine PATH]

Runs ``check_paths`` on candle-python 0.1.0a1's backends (``lsp_bench.build``: the registry's
wheel, unzipped into a temporary project) with ``--no-cache`` and counts the walk's
expressions (``_Walker.expr`` calls), statements (``_Walker.stmt``), the functions walked,
and, where the engine has them, the loop walks (``_Walker.loop``) and the second or third
passes over a loop body (``_Walker._carried`` answering yes). ``--engine`` puts another
checkout of this repository first on the path (``git worktree add``), to compare engines.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from benchmarks.lsp_bench import CHECKED, build  # noqa: E402

PROBE = """import json, sys
sys.path.insert(0, sys.argv[2])
from device_types._check import check_paths
from device_types._config import find_config, load_config
try:  # the walk as parts (``_walk``), or an older engine's one class
    from device_types._check._walk import expressions, statements
    owners = {"expr": expressions.Expressions, "stmt": statements.Statements, "loop": statements.Statements,
              "carried": statements.Statements}
    engine = statements.__file__
except ImportError:
    from device_types._check import _interpret
    owners = {name: _interpret._Walker for name in ("expr", "stmt", "loop", "_carried")}
    engine = _interpret.__file__
counts = {"expressions": 0, "statements": 0, "loop walks": 0, "extra loop passes": 0}

def counted(name, key, when=lambda result: True):
    walker = owners.get(name)
    real = getattr(walker, name, None)
    if real is None:  # an engine without it
        counts[key] = None
        return
    def wrapper(*args):
        result = real(*args)
        if when(result):
            counts[key] += 1
        return result
    setattr(walker, name, wrapper)

counted("expr", "expressions")
counted("stmt", "statements")
counted("loop", "loop walks")
counted("carried" if "carried" in owners else "_carried", "extra loop passes", bool)
result = check_paths([sys.argv[1]], load_config(find_config(".")), use_cache=False)
counts["functions walked"] = result.walks
counts["findings"] = len(result.findings)
counts["engine"] = engine
print(json.dumps(counts))
"""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engine", default=str(REPO), help="a checkout whose device_types is counted")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        project = build(Path(tmp))
        proc = subprocess.run([sys.executable, "-c", PROBE, CHECKED, str(Path(args.engine).resolve())], cwd=project,
                              capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(proc.stderr[-2000:])
    counts = json.loads(proc.stdout.strip().splitlines()[-1])
    print(f"cold check of {CHECKED}, engine {counts.pop('engine')}:")
    for key, value in counts.items():
        print(f"  {key:<20} {'-' if value is None else format(value, ','):>9}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
