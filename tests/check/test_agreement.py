"""Where backend code is typed, the check and the mypy plugin never contradict each other.

The plugin's case files and the example project state the plugin's verdict on every line
(``# E:`` comments, ``examples/expected/mypy.txt``). A line the check reports as a fallback
must be one the plugin reports too, and the files the plugin finds clean (composites) must
be clean for the check. No mypy run is needed: the plugin's expected output is asserted by
its own tests."""

from __future__ import annotations

import re
from pathlib import Path

from tests.check.conftest import ROOT, run_cli
from tests.plugin.test_plugin import CASES, expected_messages

EXAMPLE = ROOT / "examples" / "candle"


def _check_lines(project: Path, *paths: str) -> set[tuple[str, int]]:
    run = run_cli("--no-cache", "--format", "json", *paths, cwd=project)
    assert run.returncode in (0, 1), run.stderr
    return {(f["path"], f["line"]) for f in run.json()["findings"]}


def test_plugin_cases() -> None:
    plugin = {(path, line) for path, line, severity, _, _ in expected_messages(CASES) if severity == "error"}
    check = _check_lines(CASES, "pkg")
    assert check, "the check found nothing in the plugin's case files: the comparison would prove nothing"
    assert check <= plugin, f"reported by the check, fine for the plugin: {sorted(check - plugin)}"
    assert not {p for p, _ in check} & {"pkg/_backends/mps/clean.py", "pkg/outside.py"}


def test_example_project() -> None:
    """The example's mypy run enables the host-sync code; so does the check here. Its
    untyped legacy module is excluded from mypy (that is its point) and so from the comparison."""
    expected = (ROOT / "examples" / "expected" / "mypy.txt").read_text()
    plugin = {(m[1], int(m[2])) for m in re.finditer(r"^(src/[^:]+):(\d+): error:", expected, re.MULTILINE)}
    check = _check_lines(EXAMPLE, "--enable", "device-host-sync", "src/candle/_backends")
    typed = {(p, line) for p, line in check if not p.startswith("src/candle/_backends/npu/")}
    # normalize's .item() (a host sync), and nonzero_indices's .tolist() filtered into the list
    # of indices it returns (computed on the host: the plugin's device-readback there too)
    assert typed == {("src/candle/_backends/mps/fallbacks.py", 17), ("src/candle/_backends/mps/fallbacks.py", 42)}
    assert typed <= plugin, f"reported by the check, fine for the plugin: {sorted(typed - plugin)}"
