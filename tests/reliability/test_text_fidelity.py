"""``audit --fix --write`` changes only what it fixes: a table cell holding U+2028, U+0085 or a
form feed stays in its row and column, a BOM stays, and a latin-1 source (PEP 263) is fixed
and written back in latin-1."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.reliability.conftest import ROOT, cli, no_traceback

SHAPES = ROOT / "tests" / "audit" / "real_shapes"
DOCS = "docs/known-kernel-issues.md"
POOL = "src/acme/_backends/npu/ops/pool.py"
ROW = "| `logaddexp` | `aclnnLogAddExp` | 561103 | composite: `m + log(exp(a-m) + exp(b-m))` | CANN 8.x |"


@pytest.fixture
def shapes(tmp_path: Path) -> Path:
    target = tmp_path / "shapes"
    shutil.copytree(SHAPES, target)
    return target


@pytest.mark.parametrize("odd", ["\u2028", "\x85", "\x0c", "\x1c"])
def test_a_cell_with_a_character_splitlines_splits_on_stays_in_its_row(shapes: Path, odd: str) -> None:
    docs = shapes / DOCS
    text = docs.read_text(encoding="utf-8")
    assert ROW in text
    odd_row = ROW.replace("561103", f"561103{odd}(see log)")
    docs.write_bytes(text.replace(ROW, odd_row).encode("utf-8"))
    run = cli("audit", "--fix", "--write", cwd=shapes)
    no_traceback(run)
    assert run.returncode == 0, run.output
    after = docs.read_bytes().decode("utf-8")
    rows = [line for line in after.split("\n") if "aclnnLogAddExp" in line]
    assert len(rows) == 1
    cells = [c.strip() for c in rows[0].strip().strip("|").split("|")]
    assert f"561103{odd}(see log)" in cells  # the cell is whole, in the Error column
    assert cells[cells.index(f"561103{odd}(see log)") - 1] == "`aclnnLogAddExp`"
    assert cli("audit", "--fix", cwd=shapes).returncode == 0  # converged


def test_fix_keeps_the_docs_bom(shapes: Path) -> None:
    docs = shapes / DOCS
    docs.write_bytes(b"\xef\xbb\xbf" + docs.read_bytes())
    run = cli("audit", "--fix", "--write", cwd=shapes)
    assert run.returncode == 0, run.output
    assert docs.read_bytes().startswith(b"\xef\xbb\xbf# Known Kernel Issues")


def test_fix_writes_a_latin_1_source_in_latin_1(shapes: Path) -> None:
    pool = shapes / POOL
    text = pool.read_text(encoding="utf-8")
    pool.write_bytes(("# -*- coding: latin-1 -*-\n# Pool ops, d\xe9j\xe0 vu.\n" + text).encode("latin-1"))
    run = cli("audit", "--fix", "--write", cwd=shapes)
    no_traceback(run)
    assert run.returncode == 0, run.output
    after = pool.read_bytes()
    assert after.startswith(b"# -*- coding: latin-1 -*-\n# Pool ops, d\xe9j\xe0 vu.\n")
    assert b"    # TODO: re-enable native kernel when CANN fixes aclnnMaxPool2d 161002 on 910C\n" in after
    assert cli("audit", "--fix", cwd=shapes).returncode == 0
