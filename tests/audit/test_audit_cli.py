"""The command: exit codes, usage and configuration errors, JSON, and a 10k-file tree."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from audit_tree import DOCS, FIRST_ROW, OPEN, Project, guarded, row

from device_types._audit import main

MPS = "src/candle/_backends/mps/ops.py"


def test_exit_codes(project: Project) -> None:
    project.write(MPS, guarded("baddbmm"))
    project.docs(row("aten.baddbmm"))
    assert project.run().code == 0
    project.docs()
    assert project.run().code == 1


def test_help_and_usage_errors(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--help"]) == 0
    usage = " ".join(capsys.readouterr().out.split())  # argparse wraps to the terminal's width
    assert usage.startswith("usage: device-types audit [-h] [--root DIR] [--format {text,json,sarif,github}] "
                            "[--output FILE] [--config FILE] [--strict] [--fix] [--write]")
    assert main(["--format", "xml"]) == 2
    assert capsys.readouterr().err.splitlines() == [  # two lines: the error and where the options are
        "device-types audit: error: argument --format: invalid choice: 'xml' (choose from 'text', 'json', 'sarif', "
        "'github')",
        "run 'device-types audit --help' for the options",
    ]


def test_missing_root(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--root", str(tmp_path / "nope")]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == (
        f"device-types audit: error: root '{tmp_path / 'nope'}' does not exist; pass --root DIR with the project root\n"
    )
    (tmp_path / "file").write_text("")
    assert main(["--root", str(tmp_path / "file")]) == 2
    assert "is not a directory" in capsys.readouterr().err


def test_configuration_error_is_one_line(project: Project) -> None:
    project.write("pyproject.toml", '[tool.device_types]\nbackends = { "candle._backends.tpu" = "tpu" }\n')
    outcome = project.run()
    assert outcome.code == 2
    assert outcome.lines == []
    assert outcome.stderr == (
        f"device-types audit: error: {project.root / 'pyproject.toml'}: [tool.device_types] "
        "backends.'candle._backends.tpu': unknown backend device 'tpu'; use one of cuda, mps, npu, xpu\n"
    )


def test_configured_backend_that_is_not_there(project: Project) -> None:
    project.write("pyproject.toml", '[tool.device_types]\nbackends = { "candle._backends.mps" = "mps" }\n')
    project.docs()
    outcome = project.run()
    assert outcome.code == 2
    assert outcome.stderr == (
        f"device-types audit: error: pyproject.toml: backend 'candle._backends.mps' (mps) is not under "
        f"{project.root} (looked for candle/_backends/mps/ and src/candle/_backends/mps/); fix the module "
        "prefix or pass --root\n"
    )


def test_configured_module_file_and_xpu_backend(project: Project) -> None:
    project.write(
        "setup.cfg",
        "[device_types]\nbackends =\n    candle.xpu_ops = xpu\nknown_issues = docs/kernels.md\n",
    )
    project.write("src/candle/xpu_ops.py", guarded("baddbmm"))
    project.write("docs/kernels.md", "| Op | Backend | Error | Workaround | Version | Status |\n|-|-|-|-|-|-|\n"
                  f"| baddbmm | xpu | crash | bmm | oneAPI 2025.1 | {OPEN} |\n")
    outcome = project.run()
    assert outcome.lines == ["audit clean: 1 marker in 1 backend file (xpu) against 1 row of docs/kernels.md"]


def test_docs_that_is_a_directory(project: Project) -> None:
    (project.root / DOCS).mkdir(parents=True)
    outcome = project.run()
    assert (outcome.code, outcome.lines) == (2, [])
    assert outcome.stderr == (
        f"device-types audit: error: {DOCS} is a directory; the known-issues document must be a markdown file\n"
    )


def test_docs_that_is_not_utf8(project: Project) -> None:
    project.write(DOCS, "")
    (project.root / DOCS).write_bytes(b"| Op name |\n|---|\n| caf\xe9 |\n")
    outcome = project.run()
    assert outcome.code == 2
    assert outcome.stderr == (
        f"device-types audit: error: {DOCS} is not valid UTF-8 (byte 0xe9 on line 3); save it as UTF-8\n"
    )


@pytest.mark.skipif(hasattr(os, "geteuid") and os.geteuid() == 0, reason="root reads mode-000 files")
def test_docs_without_read_permission(project: Project) -> None:
    path = project.docs()
    path.chmod(0)
    try:
        outcome = project.run()
    finally:
        path.chmod(0o644)
    assert outcome.code == 2
    assert outcome.stderr == f"device-types audit: error: {DOCS}: cannot read the file (Permission denied)\n"


@pytest.mark.skipif(hasattr(os, "geteuid") and os.geteuid() == 0, reason="root reads mode-000 files")
def test_backend_file_without_read_permission(project: Project) -> None:
    path = project.write(MPS, guarded("baddbmm"))
    project.docs()
    path.chmod(0)
    try:
        outcome = project.run()
    finally:
        path.chmod(0o644)
    assert outcome.lines[0] == (
        f"{MPS}:1: cannot read the file (Permission denied); markers in this file were not checked"
        "; run device-types explain audit-unreadable-source [audit-unreadable-source]"
    )


def test_json_output(project: Project) -> None:
    project.write(MPS, guarded("baddbmm"))
    project.docs(row("aten.baddbmm"), row("aten.addmm"))
    outcome = project.run("--format", "json")
    assert outcome.code == 1
    report = json.loads("\n".join(outcome.lines))
    assert report == {
        "version": 1,
        "tool": "audit",
        "root": str(project.root),
        "docs": DOCS,
        "backends": {"mps": ["src/candle/_backends/mps"]},
        "findings": [
            {
                "path": DOCS,
                "line": FIRST_ROW + 1,
                "column": None,
                "code": "audit-orphan-row",
                "message": report["findings"][0]["message"],
                "function": "", "backend": "", "chain": [], "anchor": "", "hops": [], "condition": None,
            }
        ],
        "problems": [],
        "summary": {"findings": 1, "files_with_findings": 1, "markers": 1, "backend_files": 1, "rows": 2},
        "exit_code": 1,
    }
    assert report["findings"][0]["message"].startswith("addmm on mps is open, but no marker")


def test_json_error(project: Project) -> None:
    (project.root / DOCS).mkdir(parents=True)
    outcome = project.run("--format", "json")
    assert outcome.code == 2
    assert json.loads("\n".join(outcome.lines)) == {
        "version": 1,
        "tool": "audit",
        "error": f"{DOCS} is a directory; the known-issues document must be a markdown file",
        "exit_code": 2,
    }


def test_console_command_runs_without_torch(project: Project) -> None:
    project.write(MPS, guarded("baddbmm"))
    project.docs(row("aten.baddbmm"))
    code = (
        "import sys; from device_types._cli import main; rc = main(['audit', '--root', sys.argv[1]]); "
        "assert 'torch' not in sys.modules and 'mypy' not in sys.modules, 'audit imported torch or mypy'; "
        "sys.exit(rc)"
    )
    result = subprocess.run([sys.executable, "-c", code, str(project.root)], capture_output=True, text=True)
    assert (result.returncode, result.stderr) == (0, "")
    assert result.stdout.startswith("audit clean: 1 marker in 1 backend file")


def test_large_tree(project: Project) -> None:
    """10,000 backend files; timing is measured by benchmarks/audit_large_tree.py, not here."""
    ops = [f"op{i}" for i in range(200)]
    for i in range(10_000):
        device = ("mps", "cuda", "npu")[i % 3]
        body = guarded(ops[i // 3 % 200]) if i < 600 else f"def helper_{i}(x):\n    '''re-enable later'''\n    return x\n"
        project.write(f"src/candle/_backends/{device}/sub{i % 50}/m{i}.py", body)
    project.docs(*(row(op, device) for op in ops for device in ("mps", "cuda", "npu")))
    outcome = project.run()
    assert outcome.lines == [
        f"audit clean: 600 markers in 10000 backend files (cuda, mps, npu) against 600 rows of {DOCS}"
    ]


def test_docs_that_cannot_be_opened(project: Project) -> None:
    # A dangling symlink fails like a mode-000 file does for non-root users.
    (project.root / "docs").mkdir()
    (project.root / DOCS).symlink_to(project.root / "gone.md")
    outcome = project.run()
    assert outcome.code == 2
    assert outcome.stderr == (
        f"device-types audit: error: {DOCS}: cannot read the file (No such file or directory)\n"
    )


def test_backend_file_that_cannot_be_opened(project: Project) -> None:
    project.write(MPS, guarded("baddbmm"))
    (project.root / "src/candle/_backends/mps/gone.py").symlink_to(project.root / "gone.py")
    project.docs(row("baddbmm"))
    assert project.run().lines == [
        "src/candle/_backends/mps/gone.py:1: cannot read the file (No such file or directory); markers in "
        "this file were not checked; run device-types explain audit-unreadable-source [audit-unreadable-source]",
        f"audit failed: 1 finding in 1 file; checked 1 marker in 2 backend files (mps) against 1 row of {DOCS}",
    ]


def test_sarif_validates_against_the_schema(project: Project) -> None:
    from tests.sarif import sarif_errors

    project.write(MPS, guarded("baddbmm") + "\n\n" + guarded("addmm").replace("if USE_NATIVE:", "if True:"))
    project.docs(row("aten.baddbmm"), row("aten.index_put"))
    outcome = project.run("--format", "sarif")
    assert outcome.code == 1
    sarif = json.loads("\n".join(outcome.lines))
    assert sarif_errors(sarif) == []
    results = sarif["runs"][0]["results"]
    assert [(r["ruleId"], r["locations"][0]["physicalLocation"]["region"]) for r in results] == [
        ("audit-orphan-row", {"startLine": FIRST_ROW + 1}),
        ("audit-missing-row", {"startLine": 9}),
    ]
    rules = sarif["runs"][0]["tool"]["driver"]["rules"]
    assert [r["id"] for r in rules] == ["audit-missing-row", "audit-orphan-row"]
    assert rules[1]["shortDescription"]["text"] == "An open row has no marker in its backend"
    assert sarif["runs"][0]["automationDetails"]["id"] == "device-types/audit/"


def test_github_annotations(project: Project) -> None:
    project.write(MPS, guarded("baddbmm"))
    project.docs(row("aten.baddbmm"), row("aten.addmm"))
    outcome = project.run("--format", "github")
    assert outcome.code == 1
    assert outcome.lines[0] == (
        f"::error file={DOCS},line={FIRST_ROW + 1},title=audit-orphan-row::addmm on mps is open, but no marker in the "
        "mps backend matches it; keep the native kernel behind a guard marked '# TODO: re-enable native kernel when "
        "<platform> fixes <issue>' (naming aten.addmm in the issue), or set Status to 'resolved (native kernel "
        "re-enabled)'; run device-types explain audit-orphan-row")
    assert outcome.lines[1].startswith("audit failed: 1 finding in 1 file")


def test_config_option_and_output_file(project: Project, tmp_path: Path) -> None:
    project.write(MPS, guarded("baddbmm"))
    project.docs(row("aten.baddbmm"))
    config = tmp_path / "other.toml"
    config.write_text('[tool.device_types]\nknown_issues = "docs/none.md"\n')
    outcome = project.run("--config", str(config), "--format", "json", "--output", str(tmp_path / "out.json"))
    assert outcome.code == 1
    report = json.loads((tmp_path / "out.json").read_text())
    assert [f["code"] for f in report["findings"]] == ["audit-docs-missing", "audit-missing-row"]
    summary = "audit failed: 2 findings in 2 files; checked 1 marker in 1 backend file (mps) against 0 rows of docs/none.md"
    assert report["summary"]["findings"] == 2
    assert outcome.lines == [summary]  # the report went to the file, the summary line to stdout
    missing = project.run("--config", str(tmp_path / "nope.toml"))
    assert (missing.code, missing.lines) == (2, [])
    assert missing.stderr == f"device-types audit: error: --config '{tmp_path / 'nope.toml'}': no such file\n"
