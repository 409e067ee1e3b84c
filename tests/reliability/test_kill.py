"""SIGKILL in the middle of a write leaves the user's files as they were (issue 25: "under
SIGKILL during every write, no file the user had is changed or truncated").

Each case runs the CLI in a child whose ``os.write`` into a temporary file, or whose
``os.replace``, kills the process (``SIGKILL``: no handler, no ``finally``) at the Nth call:
a temporary file cut after half its bytes, or a complete one killed just before its rename.
``N`` counts up until the child is no longer killed (the command finished), so every write of
the command is hit. The target's bytes are then compared with what they were: the baseline
(``check --write-baseline``), the report (``--output``), the cache (``index.json``: the old
one or the new one, whole; and the next run prints what ``--no-cache`` prints), and the files
of ``audit --fix --write``, which changes three files: killed before its first rename, none
changed; killed before the Nth rename, the N-1 renamed files are whole and new, the rest old
(a kill leaves no chance to put them back). What a kill does leave is the temporary file it
cut, beside its target (``.NAME.PID.RANDOM.tmp``), and, in a change of several files, the
hard links that held the old content of those renamed (``.tmp.old``).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.reliability.conftest import ENGINE, ROOT, cli

SHAPES = ROOT / "tests" / "audit" / "real_shapes"

#: ``python -c KILLER ARGS``: the CLI, with a kill planted at ``DT_KILL`` ("write:N" or "replace:N").
KILLER = r"""
import os, signal, sys
kind, _, nth = os.environ["DT_KILL"].partition(":")
nth, seen, temps = int(nth), [0], set()
real_open, real_close, real_write, real_replace = os.open, os.close, os.write, os.replace

def opening(path, flags, mode=0o777, **kwargs):
    fd = real_open(path, flags, mode, **kwargs)
    if str(path).endswith(".tmp"):
        temps.add(fd)
    return fd

def closing(fd):
    temps.discard(fd)
    return real_close(fd)

def writing(fd, data):
    if kind == "write" and fd in temps:
        seen[0] += 1
        if seen[0] == nth:
            real_write(fd, bytes(data)[: max(1, len(data) // 2)])  # half of it on disk, then killed
            os.kill(os.getpid(), signal.SIGKILL)
    return real_write(fd, data)

def replacing(source, target, **kwargs):
    if kind == "replace":
        seen[0] += 1
        if seen[0] == nth:
            os.kill(os.getpid(), signal.SIGKILL)  # the new file complete, not renamed yet
    return real_replace(source, target, **kwargs)

os.open, os.close, os.write, os.replace = opening, closing, writing, replacing
from device_types._cli import main
sys.exit(main(sys.argv[1:]))
"""


def killed_at(kind: str, nth: int, args: tuple[str, ...], cwd: Path) -> int:
    """The exit status of ``device-types ARGS`` killed at the ``nth`` ``kind``
    (``-SIGKILL``: it was; otherwise the command finished first)."""
    env = {**os.environ, "PYTHONPATH": str(ENGINE), "DT_KILL": f"{kind}:{nth}"}
    proc = subprocess.run([sys.executable, "-c", KILLER, *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=120)
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc.returncode


def every_kill(args: tuple[str, ...], cwd: Path, prepare, check) -> dict[str, int]:  # noqa: ANN001
    """Kill ``args`` at each write and each rename in turn (``prepare()`` before each run,
    ``check(kind, n)`` after each killed one); how many of each there were."""
    counts = {}
    for kind in ("write", "replace"):
        nth = 1
        while True:
            prepare()
            status = killed_at(kind, nth, args, cwd)
            if status != -signal.SIGKILL:
                break
            check(kind, nth)
            nth += 1
        counts[kind] = nth - 1
    return counts


def snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and not p.name.endswith((".tmp", ".tmp.old")) and ".device_types_cache" not in p.parts}


def test_a_kill_while_writing_the_baseline_keeps_the_old_one(project: Path) -> None:
    baseline = project / "baseline.json"
    old = json.dumps({"format": "device-types-baseline", "version": 1, "entries": []}, indent=1) + "\n"
    sources = snapshot(project / "fw")

    def check(kind: str, nth: int) -> None:
        assert baseline.read_text(encoding="utf-8") == old, (kind, nth)
        assert snapshot(project / "fw") == sources

    counts = every_kill(("check", "--no-cache", "--write-baseline", "baseline.json", "fw"), project,
                        lambda: baseline.write_text(old, encoding="utf-8"), check)
    assert counts == {"write": 1, "replace": 1}
    assert baseline.read_text(encoding="utf-8") != old  # unkilled, it was written


def test_a_kill_while_writing_the_report_keeps_the_old_one(project: Path) -> None:
    report = project / "report.txt"

    def check(kind: str, nth: int) -> None:
        assert report.read_text(encoding="utf-8") == "the last report\n", (kind, nth)

    counts = every_kill(("check", "--no-cache", "--output", "report.txt", "fw"), project,
                        lambda: report.write_text("the last report\n", encoding="utf-8"), check)
    assert counts == {"write": 1, "replace": 1}
    assert "fw/_backends/mps/ops.py" in report.read_text(encoding="utf-8")


def test_a_kill_while_writing_the_cache_leaves_a_cache_that_prints_what_no_cache_prints(project: Path) -> None:
    from device_types._check._codec import loads

    ops = project / "fw/_backends/mps/ops.py"
    cli("check", "fw", cwd=project)  # a cache, for the text as it is
    cache = project / ".device_types_cache"
    kept = {p.name: p.read_bytes() for p in cache.iterdir()}
    edited = ops.read_text(encoding="utf-8") + "\n\ndef extra(x):\n    return x\n"
    ops.write_text(edited, encoding="utf-8")
    cold = cli("check", "--no-cache", "fw", cwd=project)
    assert cold.returncode == 1

    def prepare() -> None:  # the cache as the first run left it; the source edited since
        for path in cache.iterdir():
            path.unlink()
        for name, data in kept.items():
            (cache / name).write_bytes(data)

    def check(kind: str, nth: int) -> None:
        assert ops.read_text(encoding="utf-8") == edited
        index = (cache / "index.json").read_bytes()
        assert index == kept["index.json"] or loads(index), (kind, nth)  # the old one or a whole new one
        rerun = cli("check", "fw", cwd=project)  # whatever the kill left, the next run is right
        assert (rerun.returncode, rerun.stdout) == (1, cold.stdout), (kind, nth)

    counts = every_kill(("check", "fw"), project, prepare, check)
    assert counts["write"] >= 2 and counts["replace"] >= 2  # the module's file and the index, at least


@pytest.fixture
def shapes(tmp_path: Path) -> tuple[Path, dict[str, bytes], dict[str, bytes]]:
    """A project whose ``audit --fix --write`` rewrites three files: it, its files before, and after."""
    target = tmp_path / "shapes"
    shutil.copytree(SHAPES, target)
    before = snapshot(target)
    done = tmp_path / "done"
    shutil.copytree(SHAPES, done)
    assert cli("audit", "--fix", "--write", cwd=done).returncode == 0
    after = snapshot(done)
    assert len([name for name in before if before[name] != after[name]]) == 3
    return target, before, after


def test_a_kill_during_fix_write_never_leaves_a_file_cut_or_mixed(
        shapes: tuple[Path, dict[str, bytes], dict[str, bytes]]) -> None:
    root, before, after = shapes
    changed = [name for name in before if before[name] != after[name]]

    def prepare() -> None:
        for name, data in before.items():
            (root / name).write_bytes(data)

    def check(kind: str, nth: int) -> None:
        now = snapshot(root)
        assert set(now) == set(before)
        renamed = [name for name in changed if now[name] == after[name]]
        assert all(now[name] in (before[name], after[name]) for name in now), (kind, nth)  # whole: old or new
        # killed while writing the temporary files, or before the first rename: none changed;
        # before the Nth rename: the N-1 renamed before it
        assert len(renamed) == (nth - 1 if kind == "replace" else 0), (kind, nth, renamed)

    counts = every_kill(("audit", "--fix", "--write"), root, prepare, check)
    assert counts == {"write": 3, "replace": 3}
    assert snapshot(root) == after
