"""Memory at scale (issue 25): a run holds few syntax trees, and prints what it printed when it
held them all.

``Project`` parses a given file only when ``Analysis.run`` reaches it, holds the trees of the
most recently used modules up to ``TREE_BUDGET`` bytes of their source, and parses a function
whose tree was let go again alone, from its own lines. These tests hold that to the output of a
run that keeps every tree (``TREE_BUDGET = None``): the same findings and problems, in the same
order, and the same def nodes, positions included. The peak on a 1M-line tree is measured in
``benchmarks/memory_large_tree.py``.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from device_types._check import CheckResult, _project, check_paths
from device_types._check._project import Project, _def_nodes
from device_types._config import load_config
from tests.reliability.pathological import elif_chain

BACKENDS = '[tool.device_types]\nbackends = { "fw._backends.mps" = "mps" }\n'

#: Defs in every shape a file may hold them: decorated, in classes and nested classes, defined
#: twice under a condition, nested, async, after a form feed, tab-indented, with a string that
#: spans lines, in a CRLF file.
SHAPES = (
    "import functools\n"
    "import numpy as np\n\n\n"
    "@functools.lru_cache(maxsize=None)\n"
    "def decorated(a):\n    return a.cpu().numpy()\n\n\n"
    "class Ops:\n"
    "    @staticmethod\n"
    "    def helper(a):\n        return np.asarray(a.tolist())\n\n"
    "    class Inner:\n"
    "        def deep(self, a):\n            text = '''one\ntwo\n'''\n            return a.numpy()\n\n"
    "    def method(self, a):\n"
    "        def nested(b):\n            return b.numpy()\n"
    "        return nested(a)\n\n\n"
    "if np is not None:\n"
    "    def twice(a):\n        return a.numpy()\nelse:\n"
    "    def twice(a):\n        return a\n\n\n"
    "async def waits(a):\n    return a.tolist()\n\n\n"
    "\f\ndef after_feed(a):\n    return np.zeros(3) + a.numpy()\n\n\n"
    "class Tabs:\n\tdef tabbed(self, a):\n\t\treturn a.numpy()\n\n\n"
    "def last(a): return a.numpy()\n"
)


def shapes_tree(root: Path) -> Path:
    package = root / "fw" / "_backends" / "mps"
    package.mkdir(parents=True)
    for directory in (root / "fw", root / "fw" / "_backends", package):
        (directory / "__init__.py").write_text("", encoding="utf-8")
    (package / "shapes.py").write_text(SHAPES, encoding="utf-8")
    (package / "crlf.py").write_bytes(SHAPES.replace("\n", "\r\n").encode())
    (package / "latin.py").write_bytes(b"# -*- coding: latin-1 -*-\n" + SHAPES.replace("np.zeros(3)", "'\xe9'").encode("latin-1"))
    # past _parse_def's blank lines: the def parsed at line 1, its nodes moved down
    (package / "deep.py").write_text("# a long header\n" * 10_050 + SHAPES, encoding="utf-8")
    (root / "pyproject.toml").write_text(BACKENDS, encoding="utf-8")
    return package


def dumped(node: ast.AST | None) -> str:
    assert node is not None
    return ast.dump(node, include_attributes=True)


def test_a_function_parsed_alone_is_the_def_of_the_whole_parse(tmp_path: Path) -> None:
    package = shapes_tree(tmp_path)
    for path in sorted(package.glob("[!_]*.py")):
        whole = Project(str(tmp_path))
        module = whole.opened(whole.add_file(str(path)))
        assert not module.problems
        nodes = dict(_def_nodes(whole.tree(module).body, ""))
        alone = Project(str(tmp_path))
        again = alone.opened(alone.add_file(str(path)))
        _project._let_go(again)
        for qualname in again.functions:
            assert dumped(alone.function_node(again, qualname)) == dumped(nodes[qualname]), (path.name, qualname)
        assert len(again.functions) == 10
        assert alone.parses == 1 and alone.function_parses == len(again.spans)  # never the whole file again


def test_every_candle_def_parsed_alone_is_the_def_of_the_whole_parse(candle: Path) -> None:
    files = sorted((candle / "candle" / "_backends").rglob("*.py"))
    assert len(files) > 20
    largest = max(files, key=lambda path: path.stat().st_size)
    files = sorted({*files[::8], largest})  # some of them (a few seconds), and the largest
    checked = 0
    for path in files:
        project = Project(str(candle))
        module = project.opened(project.add_file(str(path)))
        nodes = dict(_def_nodes(project.tree(module).body, ""))
        _project._let_go(module)
        for qualname in module.functions:
            assert dumped(project.function_node(module, qualname)) == dumped(nodes[qualname]), (path, qualname)
            checked += 1
        assert project.parses == 1
    assert checked > 500


def outcome(result: CheckResult) -> tuple[object, ...]:
    return (result.findings, result.problems, result.files, result.functions)


def test_a_check_that_lets_trees_go_prints_what_one_that_keeps_them_prints(
        candle: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    budget = 64 * 1024  # a few of candle's files: most functions walked again are parsed alone
    (tmp_path / "pyproject.toml").write_text(
        '[tool.device_types]\nbackends = { "candle._backends.mps" = "mps", "candle._backends.cuda" = "cuda", '
        '"candle._backends.npu" = "npu" }\n', encoding="utf-8")
    config = load_config(str(tmp_path / "pyproject.toml"))
    monkeypatch.chdir(candle)
    projects: list[Project] = []
    real_init = Project.__init__

    def init(self: Project, *args: object, **kwargs: object) -> None:
        real_init(self, *args, **kwargs)  # type: ignore[arg-type]
        projects.append(self)

    monkeypatch.setattr(Project, "__init__", init)
    monkeypatch.setattr(_project, "TREE_BUDGET", None)
    kept = check_paths(["candle/_backends"], config, use_cache=False, host_sync=True)
    assert not projects[-1]._held and projects[-1].function_parses == 0
    monkeypatch.setattr(_project, "TREE_BUDGET", budget)
    let_go = check_paths(["candle/_backends"], config, use_cache=False, host_sync=True)
    project = projects[-1]
    assert outcome(let_go) == outcome(kept)
    assert project.parses == len(project.modules)  # each file parsed whole once
    assert project.function_parses > 0
    held = [m for m in project.modules.values() if m.tree is not None or m.lines is not None or m.nodes is not None]
    assert sum(m.stamp[0] for m in held[:-1]) <= budget  # past the budget, only the last one used


def test_file_problems_keep_the_order_of_the_files_whatever_order_they_are_parsed_in(tmp_path: Path) -> None:
    package = tmp_path / "fw" / "_backends" / "mps"
    package.mkdir(parents=True)
    for directory in (tmp_path / "fw", tmp_path / "fw" / "_backends", package):
        (directory / "__init__.py").write_text("", encoding="utf-8")
    # a.py's walk opens c.py (a helper it calls) before b.py's turn
    (package / "a.py").write_text("from .c import helper\n\n\ndef op(x):\n    return helper(x)\n", encoding="utf-8")
    (package / "b.py").write_text("def broken(:\n", encoding="utf-8")
    (package / "c.py").write_bytes(b"def helper(x):\n    return x.numpy()\n\n\n" + elif_chain(1000, "deep_c")
                                   + b"\n\ndef later(:\n")
    (package / "d.py").write_bytes(elif_chain(1000, "deep_d") + b"\n\n" + elif_chain(1000, "deep_d2"))
    (tmp_path / "pyproject.toml").write_text(BACKENDS, encoding="utf-8")
    config = load_config(str(tmp_path / "pyproject.toml"))
    result = check_paths([str(tmp_path / "fw")], config, use_cache=False, display_root=str(tmp_path))
    assert [(Path(p.path).name, p.message.split(":")[0]) for p in result.problems] == [
        ("b.py", "syntax error, file not analysed"), ("c.py", "syntax error, file not analysed"),
        ("d.py", 'function "deep_d" not analysed'), ("d.py", 'function "deep_d2" not analysed')]
    (package / "a.py").write_text("from .d import deep_d2\n\n\ndef op(x):\n    return deep_d2(x)\n",
                                  encoding="utf-8")
    (package / "c.py").write_bytes(elif_chain(1000, "deep_c"))
    result = check_paths([str(tmp_path / "fw")], config, use_cache=False, display_root=str(tmp_path))
    # b.py's syntax error first (found when the files were read), then each function the walk
    # could not finish, by file and by function, though a.py's walk reached d.py's second first
    assert [(Path(p.path).name, p.message.split(" not analysed")[0]) for p in result.problems] == [
        ("b.py", "syntax error, file"), ("c.py", 'function "deep_c"'), ("d.py", 'function "deep_d"'),
        ("d.py", 'function "deep_d2"')]
