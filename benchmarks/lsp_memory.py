"""The language server's memory under edits (issue 25: bounded, stated, measured).

    python3 benchmarks/lsp_memory.py [--functions 10000] [--edits 30]

A backend module of ``--functions`` small functions (a third of them host fallbacks) is
opened as an editor buffer in a ``CheckSession`` (the server's engine, without the JSON-RPC
transport), then edited ``--edits`` times, each edit a changed line inside one function,
with a run after each, as the server does after a keystroke's debounce. The resident set
(``VmRSS``) is printed after the first run and after each edit. Bound (docs/ci-and-ide.md):
the first edit's run holds the buffer's syntax tree and its records (the session keeps both);
after it, RSS stays within 25 % of what it was then, whatever the number of edits. The exit
status is 1 when it does not.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
#: The engine measured: this checkout, or the one named by BENCH_ENGINE (an older export).
sys.path.insert(0, os.environ.get("BENCH_ENGINE", str(REPO)))

BOUND = 1.25


def rss_mb() -> float:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def module(functions: int, edit: int = -1) -> str:
    parts = ["import numpy as np\n\n\ndef _to_numpy(a):\n    return a.numpy()\n\n\n"]
    for i in range(functions):
        extra = f"    y = {edit}\n" if i == edit % functions else ""
        if i % 3 == 0:
            parts.append(f"def op_{i}(a):\n{extra}    return np.asarray(_to_numpy(a)) + {i}\n\n\n")
        else:
            parts.append(f"def op_{i}(a):\n{extra}    return a.abs() + {i}\n\n\n")
    return "".join(parts)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--functions", type=int, default=10000)
    parser.add_argument("--edits", type=int, default=30)
    args = parser.parse_args(argv)
    from device_types._check._session import CheckSession
    from device_types._config import load_config

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        package = root / "pkg" / "_backends" / "mps"
        package.mkdir(parents=True)
        for directory in (root / "pkg", root / "pkg" / "_backends", package):
            (directory / "__init__.py").write_text("")
        ops = package / "ops.py"
        ops.write_text(module(args.functions))
        (root / "pyproject.toml").write_text('[tool.device_types]\nbackends = { "pkg._backends.mps" = "mps" }\n')
        session = CheckSession(str(root), load_config(str(root / "pyproject.toml")), use_disk_cache=False)
        started = time.process_time()
        run = session.run()
        collect = getattr(session, "collect", lambda: None)  # an older engine has none
        collect()  # as the server does once the diagnostics are out
        first = rss_mb()
        print(f"{args.functions} functions: first run {len(run.findings)} findings, "
              f"{time.process_time() - started:.1f} s CPU, RSS {first:.0f} MB")
        peak = settled = 0.0
        for edit in range(args.edits):
            session.set_text(str(ops), module(args.functions, edit))
            started = time.process_time()
            run = session.run()
            collect()
            now = rss_mb()
            settled = settled or now
            peak = max(peak, now)
            print(f"  edit {edit + 1:3}: {run.walks} walked, {time.process_time() - started:.2f} s CPU, RSS {now:.0f} MB")
        print(f"RSS after the first run {first:.0f} MB, after the first edit {settled:.0f} MB, highest after an "
              f"edit {peak:.0f} MB ({peak / settled:.2f}x the first edit's; bound {BOUND:.2f}x)")
        return 0 if peak <= settled * BOUND else 1


if __name__ == "__main__":
    sys.exit(main())
