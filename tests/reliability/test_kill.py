"""SIGKILL in the middle of a write leaves the user's files as they were (issue 25: "under
SIGKILL during every write, no file the user had is changed or truncated").

Each case runs the CLI in a child whose ``os.write`` into a temporary file, or whose
``os.replace`` (or ``os.link``, ``os.remove``), kills the process (``SIGKILL``: no handler,
no ``finally``) at the Nth call: a temporary file cut after half its bytes, or a complete one
killed just before its rename. ``N`` counts up until the child is no longer killed (the
command finished), so every write of the command is hit. The target's bytes are then compared
with what they were: the baseline (``check --write-baseline``), the report (``--output``), the
cache (``index.json``: the old one or the new one, whole; and the next run prints what
``--no-cache`` prints), and the files of ``audit --fix --write``, which changes three files
through a journal (``device_types._journal``): after the next run, they are all old (killed
before the journal's commit) or all new (after it), and nothing of ours is left (journal,
``.NAME.device-types-PID-RANDOM.tmp``, ``.tmp.old``); the recovery is killed at each step too.
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

from device_types._files import JOURNAL
from tests.reliability.conftest import ENGINE, ROOT, cli, no_traceback

SHAPES = ROOT / "tests" / "audit" / "real_shapes"

#: ``python -c KILLER ARGS``: the CLI, with a kill planted at ``DT_KILL`` ("write:N" or "replace:N").
KILLER = r"""
import os, signal, sys
kind, _, nth = os.environ["DT_KILL"].partition(":")
nth, seen, temps = int(nth), [0], set()
real_open, real_close, real_write, real_replace = os.open, os.close, os.write, os.replace
real_link, real_remove, real_unlink = os.link, os.remove, os.unlink
counts = {}
import atexit, json
atexit.register(lambda: sys.stderr.write("DT_COUNTS " + json.dumps(counts) + "\n"))

def count(name):
    counts[name] = counts.get(name, 0) + 1

def opening(path, flags, mode=0o777, **kwargs):
    fd = real_open(path, flags, mode, **kwargs)
    if str(path).endswith(".tmp"):
        temps.add(fd)
    return fd

def closing(fd):
    temps.discard(fd)
    return real_close(fd)

def writing(fd, data):
    if fd in temps:
        count("write")
    if kind == "write" and fd in temps:
        seen[0] += 1
        if seen[0] == nth:
            real_write(fd, bytes(data)[: max(1, len(data) // 2)])  # half of it on disk, then killed
            os.kill(os.getpid(), signal.SIGKILL)
    return real_write(fd, data)

def replacing(source, target, real=None, **kwargs):
    count("replace")
    if kind == "replace":
        seen[0] += 1
        if seen[0] == nth:
            os.kill(os.getpid(), signal.SIGKILL)  # the new file complete, not renamed yet
    return (real or real_replace)(source, target, **kwargs)

def before(name, real):
    def call(*args, **kwargs):
        count(name)
        if kind == name:
            seen[0] += 1
            if seen[0] == nth:
                os.kill(os.getpid(), signal.SIGKILL)
        return real(*args, **kwargs)
    return call

os.open, os.close, os.write, os.replace = opening, closing, writing, replacing
os.link, os.remove, os.unlink = before("link", real_link), before("remove", real_remove), before("unlink", real_unlink)
from device_types._cli import main
if os.environ.get("DT_KILL_STUBS"):  # the overlay's swap of two directories counts as a rename
    import device_types_stubs.overlay as overlay
    exchange = overlay._exchange
    overlay._exchange = lambda new, target: replacing(new, target, real=exchange)
    if os.environ.get("DT_KILL_STUBS") == "no-exchange":  # a system without the swap
        overlay._exchange = lambda new, target: False
sys.exit(main(sys.argv[1:]))
"""


def killed_at(kind: str, nth: int, args: tuple[str, ...], cwd: Path, env: dict[str, str] | None = None) -> int:
    """The exit status of ``device-types ARGS`` killed at the ``nth`` ``kind``
    (``-SIGKILL``: it was; otherwise the command finished first)."""
    full_env = {**os.environ, "PYTHONPATH": str(ENGINE), "DT_KILL": f"{kind}:{nth}", **(env or {})}
    proc = subprocess.run([sys.executable, "-c", KILLER, *args], cwd=cwd, env=full_env, capture_output=True,
                          text=True, timeout=120)
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc.returncode


def calls(args: tuple[str, ...], cwd: Path, env: dict[str, str] | None = None) -> dict[str, int]:
    """How many writes, renames, links, removes and unlinks ``device-types ARGS`` makes (not killed)."""
    full_env = {**os.environ, "PYTHONPATH": str(ENGINE), "DT_KILL": "none:0", **(env or {})}
    proc = subprocess.run([sys.executable, "-c", KILLER, *args], cwd=cwd, env=full_env, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    line = next(line for line in proc.stderr.splitlines() if line.startswith("DT_COUNTS "))
    return dict(json.loads(line.split(" ", 1)[1]))


def every_kill(args: tuple[str, ...], cwd: Path, prepare, check,  # noqa: ANN001
               kinds: tuple[str, ...] = ("write", "replace")) -> dict[str, int]:
    """Kill ``args`` at each write and each rename (and each of ``kinds``: ``link``,
    ``remove``) in turn (``prepare()`` before each run, ``check(kind, n)`` after each killed
    one); how many of each there were."""
    counts = {}
    for kind in kinds:
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
            if p.is_file() and not p.name.endswith((".tmp", ".tmp.old")) and p.name != JOURNAL
            and ".device_types_cache" not in p.parts}


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


def ours(root: Path) -> list[str]:
    """What a run of ours left in ``root``: its journal, temporary files and old contents."""
    return sorted(str(p.relative_to(root)) for p in root.rglob("*")
                  if p.name == JOURNAL or ".device-types-" in p.name and p.name.endswith((".tmp", ".tmp.old")))


def old_or_new(root: Path, before: dict[str, bytes], after: dict[str, bytes]) -> str:
    """"old" or "new": the whole set of files is one or the other (never some of each)."""
    now = snapshot(root)
    assert set(now) == set(before)
    if now == before:
        return "old"
    assert now == after, [name for name in now if now[name] not in (before[name], after[name])] or \
        [name for name in now if now[name] != after[name]]
    return "new"


def test_a_kill_during_fix_write_is_all_or_none_once_the_next_run_recovers(
        shapes: tuple[Path, dict[str, bytes], dict[str, bytes]]) -> None:
    """Killed anywhere in ``--fix --write``, each file is whole (old or new) at once; the next
    ``audit`` finishes or undoes the change (all new, or all old), says so in one line, and
    leaves nothing of ours behind. Killed before the journal says ``commit`` (its writes and
    links, and the rename that commits it): all old; after: all new."""
    root, before, after = shapes
    outcomes: dict[tuple[str, int], str] = {}

    def prepare() -> None:
        for name, data in before.items():
            (root / name).write_bytes(data)

    def check(kind: str, nth: int) -> None:
        now = snapshot(root)
        assert all(now[name] in (before[name], after[name]) for name in now), (kind, nth)  # each file whole
        left = ours(root)
        rerun = cli("audit", cwd=root)
        no_traceback(rerun)
        if JOURNAL in left:
            assert "audit: a killed run's change of 3 files was" in rerun.stderr, (kind, nth, rerun.stderr)
        outcomes[kind, nth] = old_or_new(root, before, after)
        assert ours(root) == [], (kind, nth, left)
        again = cli("audit", cwd=root)  # recovery is done once: the next run finds nothing to do
        assert "killed run" not in again.stderr and (again.returncode, again.stdout) == (rerun.returncode, rerun.stdout)

    counts = every_kill(("audit", "--fix", "--write"), root, prepare, check, ("write", "replace", "link", "remove"))
    # writes: the journal (prepare), the three new files, the journal (commit); renames: the
    # journal (commit), the three files; links: the journal (prepare), the three old contents;
    # removes: the journal's first temporary file (its link is the journal), then after the
    # renames the three old contents and the journal
    assert counts == {"write": 5, "replace": 4, "link": 4, "remove": 5}, counts
    committed = {key for key, outcome in outcomes.items() if outcome == "new"}
    assert committed == {("replace", 2), ("replace", 3), ("replace", 4), ("remove", 2), ("remove", 3),
                         ("remove", 4), ("remove", 5)}, outcomes
    assert snapshot(root) == after and ours(root) == []


@pytest.mark.parametrize(("first", "recovery"), [("replace:2", ("audit",)), ("replace:3", ("check", ".")),
                                                  ("replace:3", ("audit", "--fix", "--write")),
                                                  ("write:3", ("audit",))])
def test_a_kill_during_recovery_is_recovered_by_the_run_after(
        shapes: tuple[Path, dict[str, bytes], dict[str, bytes]], first: str, recovery: tuple[str, ...]) -> None:
    """A fix killed after its commit (``first``: before its first rename, or after it), or
    before it (``write:3``), then the recovering run killed at each of its renames and
    removes: every next run finishes the job; the files end all new (all old), and nothing
    of ours is left."""
    root, before, after = shapes
    expected = "old" if first.startswith("write") else "new"

    def prepare() -> None:
        for leftover in ours(root):
            (root / leftover).unlink()
        for name, data in before.items():
            (root / name).write_bytes(data)
        kind, _, nth = first.partition(":")
        assert killed_at(kind, int(nth), ("audit", "--fix", "--write"), root) == -signal.SIGKILL
        assert JOURNAL in ours(root)

    def check(kind: str, nth: int) -> None:
        snapshot(root)
        final = cli(*recovery, cwd=root)
        no_traceback(final)
        assert old_or_new(root, before, after) == expected, (first, kind, nth)
        assert ours(root) == [], (first, kind, nth)

    counts = every_kill(recovery, root, prepare, check, ("replace", "remove"))
    assert counts["remove"] >= 3 and counts["replace"] >= (0 if expected == "old" else 1), counts


def test_a_journal_that_is_not_ours_changes_nothing_and_exits_2(
        shapes: tuple[Path, dict[str, bytes], dict[str, bytes]], tmp_path: Path) -> None:
    """A crafted journal (from a cloned repository, say) cannot rename or remove a file out of
    the tree, nor one that is not our temporary file: it is one line and exit 2, and acts on nothing."""
    root, before, _ = shapes
    outside = tmp_path / "precious.txt"
    outside.write_text("keep me\n", encoding="utf-8")
    crafted = [
        {"target": "../precious.txt", "temp": "../.precious.txt.device-types-1-0000abcd.tmp", "backup": None},
        {"target": "docs/known-kernel-issues.md", "temp": "pyproject.toml", "backup": None},
        {"target": "/etc/hostname", "temp": "/etc/.hostname.device-types-1-0000abcd.tmp", "backup": None},
    ]
    for entry in crafted:
        (root / JOURNAL).write_text(json.dumps({"format": "device-types-journal", "version": 1, "pid": 999999999,
                                                 "state": "rollback", "files": [entry]}), encoding="utf-8")
        for args in (("audit",), ("audit", "--fix", "--write"), ("check", ".")):
            run = cli(*args, cwd=root)
            no_traceback(run)
            assert run.returncode == 2 and "is not a journal device-types can act on" in run.stderr, (entry, run)
            assert len(run.stderr.strip().splitlines()) == 1
        assert snapshot(root) == before and outside.read_text(encoding="utf-8") == "keep me\n"
    (root / JOURNAL).write_text("{not json", encoding="utf-8")
    run = cli("audit", cwd=root)
    assert run.returncode == 2 and "not JSON" in run.stderr


def test_a_journal_of_a_run_still_going_is_left_to_it(
        shapes: tuple[Path, dict[str, bytes], dict[str, bytes]]) -> None:
    """Two ``--fix --write`` at once: the second does not touch the first's journal; it exits 2."""
    root, before, _ = shapes
    journal = {"format": "device-types-journal", "version": 1, "pid": os.getppid(), "state": "commit", "files": []}
    (root / JOURNAL).write_text(json.dumps(journal), encoding="utf-8")
    run = cli("audit", "--fix", "--write", cwd=root)
    assert run.returncode == 2 and f"another device-types run (pid {os.getppid()})" in run.stderr, run
    assert snapshot(root) == before and (root / JOURNAL).exists()
    assert cli("audit", cwd=root).returncode in (0, 1) and (root / JOURNAL).exists()  # a reader leaves it alone


def test_our_leftover_temporary_files_are_removed_and_nothing_else(
        shapes: tuple[Path, dict[str, bytes], dict[str, bytes]]) -> None:
    """Temporary files of ours whose run is gone are removed by the next write beside them;
    a file that only looks like one (a running pid, another name, a user's ``.tmp``) stays."""
    root, _, after = shapes
    docs = root / "docs"
    dead = 999999999
    gone = [docs / f".known-kernel-issues.md.device-types-{dead}-0123abcd.tmp",
            docs / f".known-kernel-issues.md.device-types-{dead}-0123abcd.tmp.old",
            root / f".{JOURNAL}.device-types-{dead}-89abcdef.tmp"]
    kept = [docs / f".known-kernel-issues.md.device-types-{os.getpid()}-0123abcd.tmp",  # its run is going
            docs / "known-kernel-issues.md.tmp", docs / f".notes.md.{dead}.0123abcd.tmp",
            docs / f".other.md.device-types-{dead}-0123abcdef.tmp"]
    for path in gone + kept:
        path.write_text("x\n", encoding="utf-8")
    assert cli("audit", "--fix", "--write", cwd=root).returncode == 0
    assert [p for p in gone if p.exists()] == [] and all(p.exists() for p in kept)


def test_a_killed_baseline_or_cache_write_leaves_nothing_after_the_next_run(project: Path) -> None:
    """The temporary files cut by a kill beside the baseline, the report and in the cache are
    removed by the next run that writes there (the same command, or any cached check)."""
    dead = 999999999
    cut = [project / f".baseline.json.device-types-{dead}-0123abcd.tmp",
           project / f".report.txt.device-types-{dead}-0123abcd.tmp"]
    for path in cut:
        path.write_text("{", encoding="utf-8")
    assert cli("check", "--no-cache", "--write-baseline", "baseline.json", "fw", cwd=project).returncode == 0
    assert cli("check", "--no-cache", "--output", "report.txt", "fw", cwd=project).returncode == 1
    assert [p for p in cut if p.exists()] == []
    ops = project / "fw/_backends/mps/ops.py"
    for kind, nth in (("write", 1), ("replace", 2)):
        ops.write_text(ops.read_text(encoding="utf-8") + f"\n# edited {kind}\n", encoding="utf-8")
        assert killed_at(kind, nth, ("check", "fw"), project) == -signal.SIGKILL
        assert killed_at("write", 1, ("check", "--no-cache", "--write-baseline", "baseline.json", "fw"),
                         project) == -signal.SIGKILL
        assert len(ours(project)) == 2, ours(project)  # one in the cache, one beside the baseline
        cli("check", "fw", cwd=project)  # the cache is written again (the killed run did not), and swept
        assert [Path(p).name.startswith(".baseline.json") for p in ours(project)] == [True], (kind, nth)
        cli("check", "--write-baseline", "baseline.json", "fw", cwd=project)
        assert ours(project) == [], (kind, nth)


def tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_a_kill_during_stubs_install_leaves_the_previous_overlay_or_the_new_one(tmp_path: Path) -> None:
    """``stubs install`` killed at its first write (staging), before its last rename (the swap of
    the two directories) and at its first unlink (removing the previous overlay, swapped
    aside): ``torch-stubs`` is at once the previous overlay or the new one, each whole; the
    next install (or ``stubs check``: ``overlay.recover``) leaves nothing else beside it.
    Where the system cannot swap, the previous overlay is renamed aside, then the new one into
    place: killed between the two, ``torch-stubs`` is missing until the next run puts the
    previous one back. (Each run here is ~3 s: the overlay is generated from torch.)"""
    pytest.importorskip("torch")
    from device_types_stubs.overlay import STAMP, recover

    site = tmp_path / "site"
    target = site / "torch-stubs"
    args = ("stubs", "install", "--target", str(target))
    old = {STAMP: b'{"torch": "0.0", "generator": "old"}\n', "_tensor.pyi": b"# an older overlay\n",
           "only/in-the-old-one.pyi": b"x: int\n"}

    def prepare() -> None:
        shutil.rmtree(site, ignore_errors=True)
        for name, data in old.items():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            (target / name).write_bytes(data)

    prepare()
    seen = calls(args, tmp_path, {"DT_KILL_STUBS": "1"})  # over the previous overlay, not killed
    new = tree(target)
    assert len(new) >= 40 and new[STAMP] != old[STAMP] and seen["replace"] == seen["write"] + 1, seen
    for kind, nth, outcome in (("write", 1, old), ("replace", seen["replace"], old), ("unlink", 1, new)):
        prepare()
        assert killed_at(kind, nth, args, tmp_path, {"DT_KILL_STUBS": "1"}) == -signal.SIGKILL, (kind, nth)
        assert tree(target) == outcome, (kind, nth)  # at once, before any recovery
        recover(target)  # as the next install or stubs check does first
        assert os.listdir(site) == ["torch-stubs"] and tree(target) == outcome, (kind, nth)

    prepare()  # no swap: the previous overlay aside, then killed before the new one is renamed in
    assert killed_at("replace", seen["replace"] + 1, args, tmp_path, {"DT_KILL_STUBS": "no-exchange"}) \
        == -signal.SIGKILL
    assert not target.exists() and len(os.listdir(site)) == 2  # the previous overlay aside, the new one staged
    assert cli(*args, cwd=tmp_path).returncode == 0  # the next install puts it back first, then installs
    assert os.listdir(site) == ["torch-stubs"] and tree(target) == new
    prepare()
    assert killed_at("replace", seen["replace"] + 1, args, tmp_path, {"DT_KILL_STUBS": "no-exchange"}) \
        == -signal.SIGKILL
    recover(target)
    assert os.listdir(site) == ["torch-stubs"] and tree(target) == old
