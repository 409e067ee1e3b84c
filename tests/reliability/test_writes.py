"""No file the user had is changed or cut by a write that fails: ``ulimit -f``, a read-only
file, a full disk (``/dev/full``) or a kill in the middle. Each write goes to a temporary file
beside its target and is renamed over it; ``audit --fix --write`` changes all of its files or
none. A failed write is one line and exit 2."""

from __future__ import annotations

import json
import os
import resource
import shutil
from pathlib import Path

import pytest

from tests.reliability.conftest import ROOT, cli, no_traceback

SHAPES = ROOT / "tests" / "audit" / "real_shapes"


def _fsize_limit(limit: int):  # noqa: ANN202 - a preexec_fn
    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    return apply


def _snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture
def shapes(tmp_path: Path) -> Path:
    """A project whose ``audit --fix`` rewrites three files (the table and two sources)."""
    target = tmp_path / "shapes"
    shutil.copytree(SHAPES, target)
    planned = cli("audit", "--fix", cwd=target)
    assert planned.returncode == 1 and planned.stdout.count("+++ b/") == 3
    return target


def test_fix_write_under_ulimit_f_changes_nothing(shapes: Path) -> None:
    before = _snapshot(shapes)
    run = cli("audit", "--fix", "--write", cwd=shapes, preexec_fn=_fsize_limit(1024))
    no_traceback(run)
    assert run.returncode == 2
    assert run.stderr.count("\n") == 1 and "cannot write" in run.stderr and "no file was changed" in run.stderr
    assert _snapshot(shapes) == before


def test_fix_write_with_a_read_only_source_changes_nothing(shapes: Path) -> None:
    """The second of three files is read-only: the first is not rewritten either."""
    pool = shapes / "src/acme/_backends/npu/ops/pool.py"
    pool.chmod(0o444)
    before = _snapshot(shapes)
    run = cli("audit", "--fix", "--write", cwd=shapes)
    no_traceback(run)
    assert run.returncode == 2
    assert "pool.py: it is read-only" in run.stderr and run.stderr.count("\n") == 1
    assert _snapshot(shapes) == before
    pool.chmod(0o644)
    assert cli("audit", "--fix", "--write", cwd=shapes).returncode == 0  # then it all goes in
    assert cli("audit", "--fix", cwd=shapes).returncode == 0


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into a read-only directory")
def test_fix_write_in_a_read_only_directory_changes_nothing(shapes: Path) -> None:
    ops = shapes / "src/acme/_backends/npu/ops"
    before = _snapshot(shapes)
    ops.chmod(0o555)
    try:
        run = cli("audit", "--fix", "--write", cwd=shapes)
    finally:
        ops.chmod(0o755)
    assert run.returncode == 2 and run.stderr.count("\n") == 1
    assert _snapshot(shapes) == before


def test_write_baseline_under_ulimit_f_keeps_the_old_baseline(project: Path) -> None:
    old = json.dumps({"format": "device-types-baseline", "version": 1, "entries": []}, indent=1) + "\n"
    baseline = project / "baseline.json"
    baseline.write_text(old, encoding="utf-8")
    run = cli("check", "--no-cache", "--write-baseline", "baseline.json", "fw", cwd=project,
              preexec_fn=_fsize_limit(512))
    no_traceback(run)
    assert run.returncode == 2
    assert run.stderr.startswith("device-types check: error: cannot write baseline.json: File too large")
    assert run.stderr.count("\n") == 1
    assert baseline.read_text(encoding="utf-8") == old


def test_output_to_a_full_disk_is_one_line_and_exit_2(project: Path) -> None:
    run = cli("check", "--no-cache", "--output", "/dev/full", "fw", cwd=project)
    assert (run.returncode, run.stderr) == (
        2, "device-types check: error: --output: cannot write /dev/full: No space left on device\n")
    with open("/dev/full", "w") as full:
        run = cli("check", "--no-cache", "fw", cwd=project, stdout=full.fileno())
    assert (run.returncode, run.stderr) == (
        2, "device-types: error: cannot write the report to standard output: No space left on device\n")


def test_output_under_ulimit_f_keeps_the_old_report(project: Path) -> None:
    report = project / "report.txt"
    report.write_text("the last report\n", encoding="utf-8")
    run = cli("check", "--no-cache", "--output", "report.txt", "fw", cwd=project, preexec_fn=_fsize_limit(256))
    assert run.returncode == 2 and run.stderr.count("\n") == 1, run.stderr
    assert report.read_text(encoding="utf-8") == "the last report\n"
    assert not [p for p in project.iterdir() if p.name.endswith(".tmp")]  # no temporary file left behind
