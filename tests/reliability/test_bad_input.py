"""Pathological sources (``pathological.py``) and hostile files: each is a finding, a
"not analysed" line with exit 2, never a traceback, a hang or a clean result."""

from __future__ import annotations

import json
import os
import resource
from pathlib import Path

import pytest

from tests.reliability import pathological as gen
from tests.reliability.conftest import cli, no_traceback

MPS = "fw/_backends/mps"
TAIL = "run device-types explain device-unanalysed [device-unanalysed]"


def _lines(run_stdout: str, path: str) -> list[str]:
    return [line for line in run_stdout.splitlines() if line.startswith(path)]


@pytest.mark.parametrize(("source", "name", "cached"), [
    (gen.elif_chain(1000), "chain", False),
    (gen.concatenation(600), "concat", False),
    (gen.elif_chain(1000), "chain", True),
])
def test_a_function_too_deep_to_walk_is_not_analysed_never_clean(project: Path, source: bytes, name: str,
                                                                 cached: bool) -> None:
    (project / MPS / "deep.py").write_bytes(source)
    args = ("check", "fw") if cached else ("check", "--no-cache", "fw")
    first = cli(*args, cwd=project)
    run = cli(*args, cwd=project)  # cached: the second run reads the first one's cache
    for outcome in (first, run):
        no_traceback(outcome)
        assert outcome.returncode == 2
        assert _lines(outcome.stdout, f"{MPS}/deep.py") == [
            f'{MPS}/deep.py:1: function "{name}" not analysed: nested too deeply for the analysis (split it up, or '
            f"see the limits); {TAIL}"]
        assert outcome.stdout.splitlines()[-1].startswith("check incomplete: 1 file not analysed; ")


def test_write_baseline_refuses_while_a_file_is_not_analysed(project: Path) -> None:
    (project / MPS / "deep.py").write_bytes(gen.elif_chain(1000))
    run = cli("check", "--no-cache", "--write-baseline", "baseline.json", "fw", cwd=project)
    assert run.returncode == 2 and not (project / "baseline.json").exists()
    assert run.stderr == (
        f"device-types check: error: not writing the baseline: {MPS}/deep.py was not analysed (function \"chain\" "
        "not analysed: nested too deeply for the analysis (split it up, or see the limits)); its findings would all "
        "look new once it is; fix it, or pass --allow-unanalysed\n")
    run = cli("check", "--no-cache", "--write-baseline", "baseline.json", "--allow-unanalysed", "fw", cwd=project)
    assert run.returncode == 0 and json.loads((project / "baseline.json").read_text())["entries"]


@pytest.mark.parametrize("separator", ["\n", "\r\n", "\r"])
def test_line_breaks_are_python_s_only(project: Path, separator: str) -> None:
    """U+2028, U+0085, a form feed and U+001C in a docstring do not end lines: the finding is on
    line 7, and its ignore comment on that line silences it."""
    (project / MPS / "breaks.py").write_bytes(gen.with_line_breaks(separator))
    run = cli("check", "--no-cache", f"{MPS}/breaks.py", cwd=project)
    assert run.returncode == 1
    assert [line.split(" reads")[0] for line in _lines(run.stdout, MPS)] == [f'{MPS}/breaks.py:7: "relu_host"']
    (project / MPS / "breaks.py").write_bytes(gen.with_line_breaks(separator, ignore=True))
    run = cli("check", "--no-cache", f"{MPS}/breaks.py", cwd=project)
    assert (run.returncode, _lines(run.stdout, MPS)) == (0, [])


def _memory_cap() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))  # an engine that reads /dev/zero stops here


def test_a_fifo_named_py_is_reported_not_waited_on(project: Path) -> None:
    os.mkfifo(project / MPS / "pipe.py")
    run = cli("check", "--no-cache", "fw", cwd=project, timeout=60)
    no_traceback(run)
    assert run.returncode == 2
    assert _lines(run.stdout, f"{MPS}/pipe.py") == [f"{MPS}/pipe.py:0: skipped: not a regular file; {TAIL}"]


def test_a_symlink_to_dev_zero_is_not_read(project: Path) -> None:
    (project / MPS / "zero.py").symlink_to("/dev/zero")
    run = cli("check", "--no-cache", "fw", cwd=project, timeout=60, preexec_fn=_memory_cap)
    no_traceback(run)
    assert run.returncode == 2
    assert _lines(run.stdout, f"{MPS}/zero.py") == [
        f"{MPS}/zero.py:0: skipped: a symlink that leaves fw (name the file itself to check it); {TAIL}"]
    run = cli("check", "--no-cache", f"{MPS}/zero.py", f"{MPS}/ops.py", cwd=project, timeout=60,
              preexec_fn=_memory_cap)  # named: followed, and refused as not a regular file
    assert run.returncode == 2
    assert _lines(run.stdout, f"{MPS}/zero.py") == [f"{MPS}/zero.py:0: skipped: not a regular file; {TAIL}"]


def test_a_symlink_leaving_the_tree_is_reported(project: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside.py"
    outside.write_bytes(gen.encoded("utf-8"))
    (project / MPS / "elsewhere.py").symlink_to(outside)
    run = cli("check", "--no-cache", "fw", cwd=project)
    assert run.returncode == 2
    assert _lines(run.stdout, f"{MPS}/elsewhere.py") == [
        f"{MPS}/elsewhere.py:0: skipped: a symlink that leaves fw (name the file itself to check it); {TAIL}"]


def test_the_audit_does_not_wait_on_a_fifo(project: Path) -> None:
    os.mkfifo(project / MPS / "pipe.py")
    run = cli("audit", cwd=project, timeout=60)
    no_traceback(run)
    assert "fw/_backends/mps/pipe.py:1: skipped: not a regular file" in run.stdout
