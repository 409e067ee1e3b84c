"""The README's first example: what each checker reports on its ``softplus`` line is what
the README's table says, word for word (mypy with the plugin in a backend module, mypy
with the overlay alone, pyright and basedpyright)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from ..checkers import run_mypy, run_pyright
from .test_plugin import CACHE, REPO, needs_overlay

pytestmark = needs_overlay


def readme_example() -> tuple[str, int, dict[str, str]]:
    """(the example's code, the softplus line's number in it, checker -> the README's error)."""
    text = (REPO / "README.md").read_text()
    code = re.search(r"```python\n(.*?)```", text, re.DOTALL)
    assert code is not None
    line = next(n for n, t in enumerate(code[1].splitlines(), 1) if "softplus(x.cpu())" in t)
    table = text[text.index("<!-- readme-softplus"):]
    rows = dict(re.findall(r"^\| ([^|`]+?) \| `(.+)` \|$", table[: table.index("\n\n")], re.MULTILINE))
    return code[1], line, rows


def test_each_checker_reports_what_the_readme_says(tmp_path: Path) -> None:
    code, line, rows = readme_example()
    assert set(rows) == {"mypy with the plugin, in a backend module", "mypy with the overlay alone",
                         "pyright, basedpyright"}
    root = CACHE / "readme"
    if root.exists():
        shutil.rmtree(root)
    for package in ("pkg", "pkg/_backends", "pkg/_backends/mps"):
        (root / package).mkdir(parents=True, exist_ok=True)
        (root / package / "__init__.py").write_text("")
    (root / "pkg/_backends/mps/example.py").write_text(code)
    (root / "pkg/example.py").write_text(code)  # outside the backend: the overlay alone decides
    (root / "pyproject.toml").write_text(
        '[tool.mypy]\nplugins = ["device_types_mypy"]\n\n[tool.device_types]\nbackends = { "pkg._backends.mps" = "mps" }\n')
    (root / "plain.ini").write_text("[mypy]\n")
    (root / "pyrightconfig.json").write_text('{"typeCheckingMode": "standard"}\n')

    def errors(found: list, path: str) -> list[str]:
        return [f"{d.message}  [{d.code}]" for d in found if d.path == root / path and d.line == line]

    plugin = run_mypy([root / "pkg/_backends/mps/example.py"], "--config-file", str(root / "pyproject.toml"),
                      "--no-pretty", cache="readme-plugin")
    assert errors(plugin, "pkg/_backends/mps/example.py") == [rows["mypy with the plugin, in a backend module"]]
    overlay = run_mypy([root / "pkg/example.py"], "--config-file", str(root / "plain.ini"), "--no-pretty",
                       cache="readme-overlay")
    assert errors(overlay, "pkg/example.py") == [rows["mypy with the overlay alone"]]
    wanted = rows["pyright, basedpyright"]
    for tool in ("pyright", "basedpyright"):
        found = run_pyright(tool, [root / "pkg/example.py"], config=root / "pyrightconfig.json")
        # pyright's message has further lines (why the types differ); the README quotes the first
        assert [f"{d.message.splitlines()[0]}  ({d.code})" for d in found if d.line == line] == [wanted], tool
        assert len(found) == 1, tool
