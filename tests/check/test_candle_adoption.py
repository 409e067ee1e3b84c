"""Adoption on real code: the baseline and the inventory on candle's own backends.

One copy of the wheel's ``candle/`` serves both; runs after the first use the check's cache,
as a CI job with a cached ``.device_types_cache`` would."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.check.candle_corpus import BACKENDS_TOML
from tests.check.conftest import run_cli

NEW_FALLBACK = '''

def logaddexp_new(a, b):
    return _from_numpy(np.logaddexp(_to_numpy(a), _to_numpy(b)), a.dtype, a.device)
'''


@pytest.fixture(scope="module")
def tree(candle: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("adopt")
    shutil.copytree(candle / "candle", root / "candle")
    (root / "pyproject.toml").write_text(BACKENDS_TOML, encoding="utf-8")
    return root


def test_a_new_fallback_in_a_baselined_tree_is_reported_exactly_once(tree: Path) -> None:
    written = run_cli("--write-baseline", "baseline.json", "candle/_backends", cwd=tree)
    assert written.returncode == 0, written.stderr
    entries = json.loads((tree / "baseline.json").read_text())["entries"]
    assert len(entries) > 350  # the wheel's fallbacks, recorded (400 at this writing)
    assert run_cli("--baseline", "baseline.json", "candle/_backends", cwd=tree).returncode == 0

    ops = tree / "candle/_backends/mps/ops.py"
    original = ops.read_text()
    # an unrelated edit moves every line, and one new fallback arrives
    ops.write_text("# moved by an unrelated edit\n\n" + original + NEW_FALLBACK)
    try:
        run = run_cli("--baseline", "baseline.json", "--format", "json", "candle/_backends", cwd=tree)
        data = run.json()
        assert [(f["function"], f["code"]) for f in data["findings"]] == [("logaddexp_new", "device-readback")]
        assert data["fixed_baseline_entries"] == []
        assert run.returncode == 1
    finally:
        ops.write_text(original)


def test_inventory_against_a_chip_sectioned_table(tree: Path) -> None:
    docs = tree / "docs"
    docs.mkdir(exist_ok=True)
    (docs / "known-kernel-issues.md").write_text(
        "# Known kernel issues\n\n"
        "## MPS\n\n"
        "| Op | Metal kernel | Error | Workaround | Verified on |\n"
        "|---|---|---|---|---|\n"
        "| `matmul` / `mm` (float64) | MPSMatrixMultiplication | no float64 | host BLAS | macOS 15.3 |\n"
        "| `erf` | erf_f32 | wrong tail | numpy vectorize | macOS 15.3 |\n",
        encoding="utf-8")
    config = tree / "pyproject.toml"
    config.write_text(BACKENDS_TOML + 'platforms = { "MPS" = "mps" }\n', encoding="utf-8")
    try:
        run = run_cli("--inventory", "json", "candle/_backends/mps", cwd=tree)
        data = json.loads(run.stdout)
        mps = data["backends"]["mps"]
        assert mps["matmul"]["row"] == 7 and mps["mm"]["row"] == 7 and mps["erf"]["row"] == 8
        assert mps["matmul"]["codes"] == ["device-readback"]
        assert mps["mm"]["codes"] == ["device-indirect-fallback"]
        assert data["ops_without_row"] == data["ops"] - 3 > 100
        assert run.returncode == 1  # Rule 4: fallback ops without a row
        markdown = run_cli("--inventory", "markdown", "candle/_backends/mps", cwd=tree).stdout
        assert "| `erf` | `erf` | 1 | candle/_backends/mps/ops.py:" in markdown
        assert "| line 8 |" in markdown
    finally:
        config.write_text(BACKENDS_TOML, encoding="utf-8")
