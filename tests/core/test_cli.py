"""The one command line: every sub-command in the usage, the shared flags, lazy imports."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _run(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "device_types", *args], cwd=cwd, capture_output=True, text=True,
                          env={"PYTHONPATH": str(ROOT), "COLUMNS": "200", "PATH": "/usr/bin:/bin"})


def test_usage_names_every_command_and_the_stubs_actions() -> None:
    top = _run("--help")
    assert top.returncode == 0
    for command in ("check", "audit", "explain", "stubs", "coverage"):
        assert re.search(rf"\n    {command}\s", top.stdout), command
    stubs = _run("stubs", "--help")
    for action in ("install", "check", "uninstall", "path"):
        assert re.search(rf"\n    {action}\s", stubs.stdout), action
    assert (_run().returncode, _run("frobnicate").returncode) == (2, 2)


def test_check_and_audit_share_the_report_flags() -> None:
    for command in ("check", "audit"):
        usage = " ".join(_run(command, "--help").stdout.split())
        assert "[--format {text,json,sarif,github}] [--output FILE] [--config FILE]" in usage, command


def test_check_audit_and_explain_import_neither_torch_mypy_nor_the_overlay(tmp_path: Path) -> None:
    (tmp_path / "pkg/_backends/mps").mkdir(parents=True)
    for init in ("pkg", "pkg/_backends", "pkg/_backends/mps"):
        (tmp_path / init / "__init__.py").write_text("")
    (tmp_path / "pkg/_backends/mps/ops.py").write_text("def relu(x):\n    return x\n")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs/known-kernel-issues.md").write_text(
        "| Op name | Backend | Error description | Composite workaround | Platform version | Status |\n|-|-|-|-|-|-|\n")
    probe = ("import sys; from device_types._cli import main; rc = main(sys.argv[1:]); "
             "heavy = sorted(m for m in sys.modules if m.split('.')[0] in {'torch', 'mypy', 'numpy'} "
             "or m.startswith('device_types_stubs.') and m != 'device_types_stubs.cli'); "
             "assert not heavy, heavy; sys.exit(rc)")
    for args, expected in ((["check", "--no-cache", "pkg"], 0), (["audit"], 0), (["explain", "device-numpy"], 0)):
        proc = subprocess.run([sys.executable, "-c", probe, *args], cwd=tmp_path, capture_output=True, text=True,
                              env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
        assert (proc.returncode, proc.stderr) == (expected, ""), args


def test_check_and_audit_find_the_same_backends_without_config(tmp_path: Path) -> None:
    """One rule (device_types._config.default_backend_device): xpu is a backend for both."""
    import json

    for init in ("pkg", "pkg/_backends", "pkg/_backends/xpu", "pkg/_backends/mps"):
        (tmp_path / init).mkdir(parents=True, exist_ok=True)
        (tmp_path / init / "__init__.py").write_text("")
    (tmp_path / "pkg/_backends/xpu/ops.py").write_text(
        "def addmm(x):\n    # TODO: re-enable native kernel when oneAPI 2025.1 fixes aten.addmm crash\n"
        "    if USE_NATIVE:\n        return _native_addmm(x)\n    return addmm_composite(x)\n")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs/known-kernel-issues.md").write_text(
        "| Op name | Backend | Error description | Composite workaround | Platform version | Status |\n|-|-|-|-|-|-|\n"
        "| aten.addmm | xpu | crash | mm + add | oneAPI 2025.1 | open (workaround active) |\n")
    check = json.loads(_run("check", "--no-cache", "--format", "json", "pkg", cwd=tmp_path).stdout)
    audit = json.loads(_run("audit", "--format", "json", cwd=tmp_path).stdout)
    assert check["summary"]["backends"] == {"pkg._backends.mps": "mps", "pkg._backends.xpu": "xpu"}
    assert audit["backends"] == {"mps": ["pkg/_backends/mps"], "xpu": ["pkg/_backends/xpu"]}
    assert (check["exit_code"], audit["exit_code"]) == (0, 0)
