"""Exit status CI can trust (docs/errors.md): 0 clean, 1 findings, 2 usage, configuration or
unreadable input, 3 internal error (one line and a crash report), 130 interrupted. Never a
traceback, never 1 without findings."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

from tests.reliability.conftest import ENGINE, cli


def test_an_unknown_option_is_two_lines(project: Path) -> None:
    run = cli("check", "--no-such-option", "fw", cwd=project)
    assert (run.returncode, run.stdout) == (2, "")
    assert run.stderr == ("device-types: error: unrecognized arguments: --no-such-option\n"
                          "run 'device-types --help' for the options\n")
    run = cli("check", "--format", "yaml", "fw", cwd=project)
    assert run.returncode == 2 and run.stderr.count("\n") == 2
    assert run.stderr.startswith("device-types check: error: argument --format: invalid choice: 'yaml'")


def test_config_naming_a_directory(project: Path) -> None:
    run = cli("check", "--config", "fw", "fw", cwd=project)
    assert (run.returncode, run.stderr) == (
        2, "device-types check: error: --config 'fw' is a directory; name the file (pyproject.toml, mypy.ini or "
           "setup.cfg)\n")


def test_a_toml_array_nested_500_deep(project: Path) -> None:
    (project / "deep.toml").write_text("[tool.device_types]\nx = " + "[" * 500 + "]" * 500 + "\n")
    run = cli("check", "--config", "deep.toml", "fw", cwd=project)
    assert (run.returncode, run.stderr) == (
        2, "device-types check: error: deep.toml: nested too deeply to be a configuration\n")


def test_a_baseline_nested_100000_deep(project: Path) -> None:
    (project / "deep.json").write_text("[" * 100_000 + "]" * 100_000)
    run = cli("check", "--no-cache", "--baseline", "deep.json", "fw", cwd=project)
    assert (run.returncode, run.stderr) == (
        2, "device-types check: error: baseline 'deep.json' is nested too deeply to be a device-types baseline\n")


def test_a_baseline_of_another_version(project: Path) -> None:
    (project / "b.json").write_text(json.dumps({"format": "device-types-baseline", "version": 2, "entries": []}))
    run = cli("check", "--no-cache", "--baseline", "b.json", "fw", cwd=project)
    assert (run.returncode, run.stderr) == (
        2, "device-types check: error: baseline 'b.json' has version 2; this device-types reads version 1 "
           "(rewrite it with --write-baseline)\n")


def test_ctrl_c_is_one_line_and_exit_130(project: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ENGINE)}
    big = project / "fw/_backends/mps/big.py"
    big.write_text("".join(f"def op_{i}(a):\n    return a.abs() + {i}\n\n\n" for i in range(60000)))
    proc = subprocess.Popen([sys.executable, "-m", "device_types", "check", "--no-cache", "fw"], cwd=project, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    # interrupt once the run is past its imports (by its own CPU time, not the wall clock: a
    # loaded machine stretches the one, a faster engine shortens a fixed wait)
    _wait_for_cpu(proc.pid, 0.6)
    assert proc.poll() is None, "the check finished before it could be interrupted: give it more to do"
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert (proc.returncode, out, err) == (130, "", "device-types: interrupted\n")


def test_an_internal_error_is_one_line_exit_3_and_a_report(project: Path, tmp_path: Path) -> None:
    """A bug (here: the engine made to raise) is exit 3, one line naming a crash report that
    holds the traceback; never exit 1 (which CI reads as findings)."""
    code = ("import sys, device_types._check as c\n"
            "def boom(*a, **k): raise KeyError('planted')\n"
            "c.check_paths = boom\n"
            "from device_types._cli import main\n"
            "sys.exit(main(['check', '--no-cache', 'fw']))\n")
    proc = subprocess.run([sys.executable, "-c", code], cwd=project, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ENGINE), "TMPDIR": str(tmp_path)})
    assert proc.returncode == 3 and proc.stdout == ""
    match = re.fullmatch(r"device-types: internal error \(KeyError: 'planted'\); the report is in (\S+); "
                         r"please file an issue with it\n", proc.stderr)
    assert match, proc.stderr
    report = Path(match.group(1)).read_text(encoding="utf-8")
    assert "Traceback" in report and "KeyError: 'planted'" in report


def test_a_reader_that_leaves_is_not_findings(project: Path) -> None:
    """``device-types check | head -1``: the pipe closes early; never exit 1 (findings)."""
    read, write = os.pipe()
    os.close(read)
    try:
        proc = subprocess.run([sys.executable, "-m", "device_types", "check", "--no-cache", "fw"], cwd=project,
                              stdout=write, stderr=subprocess.PIPE, text=True,
                              env={**os.environ, "PYTHONPATH": str(ENGINE)})
    finally:
        os.close(write)
    assert (proc.returncode, proc.stderr) == (141, "")


def _wait_for_cpu(pid: int, seconds: float, limit: float = 60.0) -> None:
    """Until process ``pid`` has used ``seconds`` of CPU (``/proc/PID/stat``), or has ended."""
    ticks = os.sysconf("SC_CLK_TCK")
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
        except OSError:
            return
        if fields[0] == "Z" or (int(fields[11]) + int(fields[12])) / ticks >= seconds:
            return
        time.sleep(0.02)
