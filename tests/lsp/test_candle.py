"""The server's findings equal ``device-types check``'s on real backend code (candle-python
0.1.0a1 from the registry), at start and after an edit inside one function."""

from __future__ import annotations

import ast
import shutil
from pathlib import Path

from tests.check.candle_corpus import BACKENDS_TOML, candle_root
from tests.lsp.client import LspClient
from tests.lsp.test_server import cli_findings, server_findings

BIG = "candle/_backends/npu/ops.py"


def test_server_findings_equal_the_clis_on_candle_and_after_an_edit(tmp_path: Path) -> None:
    root = tmp_path / "candle-project"
    shutil.copytree(candle_root() / "candle", root / "candle", ignore=shutil.ignore_patterns("__pycache__"))
    (root / "pyproject.toml").write_text(BACKENDS_TOML + '\n[tool.device_types.check]\nenable = ["device-host-sync"]\n')
    client = LspClient(root)
    try:
        client.initialize(root)
        client.wait_runs(1, timeout=300)
        served = server_findings(client, root)
        assert len(served) > 400  # the wheel's backends hold hundreds of fallbacks
        assert served == cli_findings(root)

        # a statement inserted into the first function that has a finding: every later line shifts
        big = root / BIG
        text = big.read_text(encoding="utf-8")
        tree = ast.parse(text)
        lines = text.splitlines(keepends=True)
        first = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and len(n.body) > 1)
        at = first.body[0].lineno - 1
        indent = " " * first.body[0].col_offset
        edited = "".join(lines[:at] + [f"{indent}_probe = 0\n"] + lines[at:])
        client.open(big)
        client.wait_runs(2)
        client.change(big, edited)
        client.wait_runs(3)
        big.write_text(edited, encoding="utf-8")
        assert server_findings(client, root) == cli_findings(root)
    finally:
        assert client.close() == 0
