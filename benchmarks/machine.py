"""One line that says when and where a benchmark ran: every timing in the docs carries it.

    measured 2026-12-02 01:40 UTC at 1a2b3c4, Intel(R) Xeon(R) ... (2 CPUs), load 3.1/2.7/1.9 (1/5/15 min), Python 3.11.7

Benchmarks print it first (``benchmarks/run.py``, which ``make bench`` runs, prints it above its
table), so a number copied into docs/ comes with its command's machine, load and date.
"""

from __future__ import annotations

import os
import platform
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _commit() -> str:
    run = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    dirty = subprocess.run(["git", "-C", str(REPO), "status", "--porcelain", "--untracked-files=no"],
                           capture_output=True, text=True).stdout.strip()
    return (run.stdout.strip() or "no commit") + ("+changes" if dirty else "")


def describe() -> str:
    load = "/".join(f"{x:.1f}" for x in os.getloadavg())
    when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    return (f"measured {when} at {_commit()}, {_cpu_model()} ({os.cpu_count()} CPUs), load {load} (1/5/15 min), "
            f"Python {sys.version.split()[0]}")


if __name__ == "__main__":
    print(describe())
