"""How the walk takes a loop (``_walk.statements.Statements.loop``, ``_carried``): its body again only while one
iteration leaves the next a value it reads before assigning it, so a nest of loops that
carries nothing is walked once, not twice per level; the carried cases themselves are in
the case project (``running_max``, ``clear_previous``, ``accumulate_rows``)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from device_types._check import check_paths
from device_types._check._values import Value
from device_types._check._walk.statements import Statements
from device_types._check._carried import loop_reads
from device_types._config import load_config


def _reads(source: str) -> tuple[set[str], set[str]]:
    loop = ast.parse(source).body[0]
    assert isinstance(loop, (ast.For, ast.While))
    reads, bases = loop_reads(loop, frozenset({"append"}))
    return set(reads), set(bases)


@pytest.mark.parametrize(("source", "reads", "bases"), [
    # assigned before it is read, in the body's own sequence: nothing carried
    ("for i in r:\n    x = f(i)\n    g(x)\n", {"f", "g"}, set()),
    # read before the body assigns it: carried to the next iteration
    ("for i in r:\n    g(acc)\n    acc = f(i)\n", {"g", "acc", "f"}, set()),
    # assigned in one arm of a branch only: the join keeps what came in, so it is read
    ("for i in r:\n    if i:\n        y = f(i)\n    g(y)\n", {"f", "g", "y"}, set()),
    # only written into (an element, an attribute, a list appended to)
    ("for i in r:\n    out[i] = f(i)\n    self.n = i\n    parts.append(i)\n", {"f"}, {"out", "self", "parts"}),
    # written into and read: a read
    ("for i in r:\n    out[i] = out[i - 1]\n", {"out"}, set()),
    # a while loop's test is read at each iteration
    ("while n:\n    n = f(n)\n", {"n", "f"}, set()),
    # a nested for binds its target before its body reads it; a[i] as a target reads i
    ("for i in r:\n    for j in s:\n        g(j)\n    for a[k] in s:\n        pass\n", {"s", "g", "k"}, {"a"}),
])
def test_what_a_loop_iteration_reads_before_it_assigns(source: str, reads: set[str], bases: set[str]) -> None:
    assert _reads(source) == (reads, bases)


def test_a_nest_of_loops_that_carries_nothing_walks_its_innermost_body_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    depth = 10
    lines = ["def grid(a, n):", "    out = a"]
    for level in range(depth):
        lines.append("    " * (level + 1) + f"for i{level} in range(n):")
    lines.append("    " * (depth + 1) + "out = kernels.step(out, i0)")
    lines.append("    return out")
    package = tmp_path / "fw" / "_backends" / "mps"
    package.mkdir(parents=True)
    for init in (tmp_path / "fw", tmp_path / "fw" / "_backends", package):
        (init / "__init__.py").write_text("", encoding="utf-8")
    (package / "ops.py").write_text("from . import kernels\n\n\n" + "\n".join(lines) + "\n", encoding="utf-8")
    (package / "kernels.py").write_text("def step(a, i):\n    return a\n", encoding="utf-8")
    (tmp_path / "pyproject.toml").write_text('[tool.device_types]\nbackends = { "fw._backends.mps" = "mps" }\n',
                                             encoding="utf-8")
    innermost: list[int] = []
    real = Statements.stmt

    def counting(self: Statements, node: ast.stmt, env: dict[str, Value]) -> None:
        if isinstance(node, ast.Assign) and node.col_offset == 4 * (depth + 1):
            innermost.append(node.lineno)
        real(self, node, env)

    monkeypatch.setattr(Statements, "stmt", counting)
    monkeypatch.chdir(tmp_path)
    result = check_paths(["fw"], load_config(str(tmp_path / "pyproject.toml")), use_cache=False)
    assert result.findings == []
    # ``out`` is read before it is assigned, but never grows: one pass per level
    assert len(innermost) == 1
