"""One diagnostic per mistake (issue 26): each planted mistake of ``mistakes/`` (a backend
package with one module per policy code) gives exactly one mypy diagnostic, with the
plugin and the strict block that docs/plugin.md recommends (read from that page), and at
most one in pyright and basedpyright, but for the one exception below (``standard``, the mode of docs/checkers.md's matrix;
``strict`` adds its consequential ``reportUnknown*`` rules).

Each function of a fixture module holds at most one mistake, marked on its line with
``# mistake: <code>; pyright: <rule or none>`` (and optionally ``; advice: <text>``, which
mypy's message must contain): in the function's lines mypy must report exactly that code on
that line and nothing else; pyright must report exactly one error of
that rule somewhere in the function, or none where only the plugin's policy sees the
mistake (bare ``torch.Tensor``, host syncs). The one exception is spelled ``rule+rule``: a
device mix in a namespace op, where pyright's overload model gives "No overloads" beside the
argument error (docs/limits.md says why no overload layout avoids it). A function without a
marker gets nothing from any checker. The typed example backend (``examples/candle``) gets
the same rule from its recorded mypy output and from pyright and basedpyright.
"""

from __future__ import annotations

import ast
import re
import shutil
import sys
from functools import cache
from pathlib import Path

import pytest

from ..checkers import Diagnostic, run_mypy, run_pyright
from .test_plugin import CACHE, REPO, needs_overlay

HERE = Path(__file__).resolve().parent
MISTAKES = HERE / "mistakes"
BACKEND = "proj._backends.mps"
MARK = re.compile(r"#\s*mistake:\s*(?P<code>[a-z-]+);\s*pyright:\s*(?P<pyright>\w+(?:\+\w+)*)(;\s*advice:\s*(?P<advice>.+))?")

pytestmark = needs_overlay


def strict_block() -> str:
    """The ``[[tool.mypy.overrides]]`` block of docs/plugin.md's "Strictness" section."""
    text = (REPO / "docs" / "plugin.md").read_text()
    section = text[text.index("## Strictness that backend modules need"):]
    match = re.search(r"```toml\n(\[\[tool\.mypy\.overrides\]\]\n.*?)```", section, re.DOTALL)
    assert match is not None, "docs/plugin.md has no strict block"
    block = match[1]
    assert 'module = ["pkg._backends.*"]' in block
    return block.replace("pkg._backends", "proj._backends")


@cache
def project() -> Path:
    root = CACHE / "one-per-mistake" / "project"
    if root.exists():
        shutil.rmtree(root)
    shutil.copytree(MISTAKES, root)
    (root / "pyproject.toml").write_text(
        '[tool.mypy]\nplugins = ["device_types_mypy"]\n\n'
        f"{strict_block()}\n"
        f'[tool.device_types]\nbackends = {{ "{BACKEND}" = "mps" }}\n'
    )
    (root / "pyrightconfig.json").write_text('{"typeCheckingMode": "standard", "pythonVersion": "3.11"}\n')
    return root


@cache
def diagnostics(checker: str) -> tuple[Diagnostic, ...]:
    root = project()
    if checker == "mypy":
        import os

        os.environ.setdefault("DEVICE_TYPES_MYPY_STRICT", "1")
        found = run_mypy([root / "proj"], "--config-file", str(root / "pyproject.toml"), "--no-pretty",
                         cache="one-per-mistake")
    else:
        found = run_pyright(checker, [root / "proj"], config=root / "pyrightconfig.json")
    return tuple(found)


def functions() -> list[tuple[str, str, int, int, tuple[int, str, str] | None]]:
    """(module file, function, first line, last line, (line, code, pyright rule) or None)."""
    return [(module, name, first, last, mark[:3] if mark else None) for module, name, first, last, mark in _marked()]


def _marked() -> list[tuple[str, str, int, int, tuple[int, str, str, str | None] | None]]:
    """As ``functions``, each mark with its advice (or None)."""
    out = []
    for path in sorted((MISTAKES / "proj" / "_backends" / "mps").glob("*.py")):
        lines = path.read_text().splitlines()
        for node in ast.parse(path.read_text()).body:
            if not isinstance(node, ast.FunctionDef):
                continue
            assert node.end_lineno is not None
            marks = [(n, m) for n in range(node.lineno, node.end_lineno + 1) if (m := MARK.search(lines[n - 1]))]
            assert len(marks) <= 1, f"{path.name}:{node.name}: one mistake per function"
            mark = (marks[0][0], marks[0][1]["code"], marks[0][1]["pyright"], marks[0][1]["advice"]) if marks else None
            out.append((path.name, node.name, node.lineno, node.end_lineno, mark))
    return out


FUNCTIONS = functions()
IDS = [f"{module}:{name}" for module, name, *_ in FUNCTIONS]


def _in(found: tuple[Diagnostic, ...], module: str, first: int, last: int) -> list[Diagnostic]:
    return [d for d in found if d.path.name == module and d.path.parent.name == "mps" and first <= d.line <= last]


def test_every_plugin_policy_code_has_a_planted_mistake() -> None:
    from device_types_mypy import errorcodes

    planted = {mark[1] for *_, mark in FUNCTIONS if mark is not None}
    assert planted == {code.code for code in errorcodes.ALL_CODES} - {"device-config"}


@pytest.mark.parametrize(("module", "name", "first", "last", "mark"), FUNCTIONS, ids=IDS)
def test_mypy_reports_each_mistake_once(module: str, name: str, first: int, last: int,
                                        mark: tuple[int, str, str] | None) -> None:
    found = [(d.line, d.code) for d in _in(diagnostics("mypy"), module, first, last)]
    assert found == ([(mark[0], mark[1])] if mark else [])


ADVISED = [(module, name, first, last, mark) for module, name, first, last, mark in _marked() if mark and mark[3]]


@pytest.mark.parametrize(("module", "name", "first", "last", "mark"), ADVISED, ids=[f"{m}:{n}" for m, n, *_ in ADVISED])
def test_mypy_gives_the_right_advice(module: str, name: str, first: int, last: int,
                                     mark: tuple[int, str, str, str]) -> None:
    """The one message says what the mistake is and what to do instead (issue 26: the
    softplus of a ``.cpu()`` result was told to "create it on mps")."""
    [found] = [d for d in _in(diagnostics("mypy"), module, first, last)]
    assert mark[3].strip() in found.message


@pytest.mark.parametrize("checker", ["pyright", "basedpyright"])
@pytest.mark.parametrize(("module", "name", "first", "last", "mark"), FUNCTIONS, ids=IDS)
def test_pyright_reports_each_mistake_at_most_once(checker: str, module: str, name: str, first: int, last: int,
                                                   mark: tuple[int, str, str] | None) -> None:
    found = sorted(d.code for d in _in(diagnostics(checker), module, first, last))
    expected = sorted(mark[2].split("+")) if mark and mark[2] != "none" else []
    assert found == expected


def test_nothing_outside_the_fixture_functions() -> None:
    spans = {(module, line) for module, _, first, last, _ in FUNCTIONS for line in range(first, last + 1)}
    for checker in ("mypy", "pyright", "basedpyright"):
        stray = [d for d in diagnostics(checker) if (d.path.name, d.line) not in spans]
        assert stray == [], checker


def test_the_typed_example_backend_has_one_diagnostic_per_function() -> None:
    """examples/candle's fallbacks.py plants one mistake per function; its recorded mypy
    output (tests/example keeps it true) has one line per function."""
    source = REPO / "examples" / "candle" / "src" / "candle" / "_backends" / "mps" / "fallbacks.py"
    spans = [(node.lineno, node.end_lineno or node.lineno) for node in ast.parse(source.read_text()).body
             if isinstance(node, ast.FunctionDef)]
    lines = [int(m[1]) for m in re.finditer(r"^src/candle/_backends/mps/fallbacks\.py:(\d+): error:",
                                            (REPO / "examples" / "expected" / "mypy.txt").read_text(), re.MULTILINE)]
    assert [sum(first <= line <= last for line in lines) for first, last in spans] == [1] * len(spans)


#: What pyright sees in examples/candle's fallbacks.py: the two mistakes typed Tensor[MPS]
#: against Tensor[CUDA]; the others take bare tensors, which only the plugin's policy judges.
EXAMPLE_PYRIGHT = {"borrow_a_gpu": ["reportArgumentType"], "weights_from_elsewhere": ["reportArgumentType"]}


@pytest.mark.parametrize("checker", ["pyright", "basedpyright"])
def test_the_typed_example_backend_has_at_most_one_pyright_diagnostic_per_function(checker: str) -> None:
    example = REPO / "examples" / "candle"
    source = example / "src" / "candle" / "_backends" / "mps" / "fallbacks.py"
    config = CACHE / "one-per-mistake" / "example-pyrightconfig.json"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text('{"typeCheckingMode": "standard", "pythonVersion": "3.11", '
                      f'"extraPaths": ["{example / "src"}"]}}\n')
    found = run_pyright(checker, [source], config=config)
    functions = [node for node in ast.parse(source.read_text()).body if isinstance(node, ast.FunctionDef)]
    per_function = {node.name: [d.code for d in found if node.lineno <= d.line <= (node.end_lineno or node.lineno)]
                    for node in functions}
    assert per_function == {node.name: EXAMPLE_PYRIGHT.get(node.name, []) for node in functions}
    assert len(found) == sum(map(len, per_function.values())), "a diagnostic outside the functions"


if __name__ == "__main__":  # pragma: no cover
    sys.exit(pytest.main([__file__, "-q"]))
