"""Time ``device-types audit`` on a generated tree of 10,000 backend files.

    .venv/bin/python benchmarks/audit_large_tree.py [--files N]

The tree has 600 guarded markers (one per open row, 200 ops x 3 backends) and thousands of
plain helper modules; it is written to a temporary directory and removed afterwards.
Prints the in-process audit time (best of 3) and one run of the console command
(interpreter start-up included).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import shutil
import subprocess
import sys
import tempfile
import time

from device_types._audit import main as audit_main

BACKENDS = ("mps", "cuda", "npu")
OPS = 200
HEADER = (
    "| Op name | Backend | Error description | Composite workaround | Platform version | Status |\n"
    "|---|---|---|---|---|---|\n"
)


def build(root: str, files: int) -> None:
    for i in range(files):
        device = BACKENDS[i % 3]
        op = f"op{i // 3 % OPS}"
        if i < OPS * 3:
            body = (
                f"def {op}(x):\n"
                f"    # TODO: re-enable native kernel when platform 1.0 fixes aten.{op} crash\n"
                "    if USE_NATIVE:\n"
                f"        return _native_{op}(x)\n"
                f"    return {op}_composite(x)\n"
            )
        else:
            body = f'"""Helper module {i}."""\n\n\ndef helper_{i}(x):\n    return x + {i}\n' * 5
        directory = os.path.join(root, "src", "candle", "_backends", device, f"sub{i % 50}")
        os.makedirs(directory, exist_ok=True)
        with open(os.path.join(directory, f"m{i}.py"), "w") as f:
            f.write(body)
    rows = "".join(
        f"| aten.op{k} | {device} | crash | composite | platform 1.0 | open (workaround active) |\n"
        for k in range(OPS)
        for device in BACKENDS
    )
    os.makedirs(os.path.join(root, "docs"), exist_ok=True)
    with open(os.path.join(root, "docs", "known-kernel-issues.md"), "w") as f:
        f.write("# Known kernel issues\n\n" + HEADER + rows)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=10_000)
    args = parser.parse_args()
    root = tempfile.mkdtemp(prefix="audit-bench-")
    try:
        build(root, args.files)
        timings = []
        for _ in range(3):
            out = io.StringIO()
            start = time.perf_counter()
            with contextlib.redirect_stdout(out):
                code = audit_main(["--root", root])
            timings.append(time.perf_counter() - start)
            if code != 0:
                print(out.getvalue(), file=sys.stderr)
                return 1
        command = os.path.join(os.path.dirname(sys.executable), "device-types")
        start = time.perf_counter()
        result = subprocess.run([command, "audit", "--root", root], capture_output=True, text=True)
        cli = time.perf_counter() - start
        print(result.stdout.strip())
        print(f"audit of {args.files} files: {min(timings):.2f} s in process (best of 3), {cli:.2f} s as a command")
        print(f"RESULT audit of {args.files} files (wall s, in process / command) | | {min(timings):.2f} / {cli:.2f} | | | measured")
        return result.returncode
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
