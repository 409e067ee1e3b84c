"""The session re-parses only an edited function (``_project._patch``) and the CLI's cache
does the same: after each kind of edit, both give exactly what a cold check gives."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from device_types._check import check_paths
from device_types._check._session import CheckSession
from device_types._config import load_config

KERNELS = '''\
import functools

from ..common.helpers import from_numpy, to_numpy


def traced(f):
    return f


class Kernels:
    scale = 2

    @traced
    def relu(self, a):
        return a.relu()

    def sort(self, a):
        def inner(x):
            return x.sort()
        return inner(a)

    def mean(self, a):
        return a.mean()


def use(k, a):
    return k.sort(a)
'''

EDITS = [
    ("a line rewritten in a method", "        return a.mean()", "        return a.mean(dim=0)"),
    ("a readback in a nested function", "            return x.sort()",
     "            return from_numpy(to_numpy(x) * 2, x.dtype, x.device)"),
    ("a line inserted (later defs move)", "    def mean(self, a):\n", "    def mean(self, a):\n        b = a\n"),
    ("a decorator removed", "    @traced\n", ""),
    ("a method renamed", "def mean(self, a)", "def average(self, a)"),
    ("module-level code", "    scale = 2", "    scale = 3"),
    ("a syntax error", "return a.relu()", "return a.relu("),
    ("the syntax error fixed, a readback", "return a.relu(", "return from_numpy(to_numpy(a), a.dtype, a.device)"),
]


def shape(findings: list, problems: list) -> list[tuple]:
    return [(f.path, f.line, f.column, f.code, f.message) for f in findings] + \
        [(p.path, p.line, p.message) for p in problems]


@pytest.fixture
def tree(project: Path) -> Path:
    (project / "fw/_backends/mps/kernels.py").write_text(KERNELS, encoding="utf-8")
    return project


def test_each_kind_of_edit_gives_what_a_cold_check_gives(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tree)
    config = load_config(str(tree / "pyproject.toml"))
    kernels = tree / "fw/_backends/mps/kernels.py"
    session = CheckSession(str(tree), config, use_disk_cache=False)
    session.run()
    check_paths(["."], config)  # the CLI's cache, warm
    text = KERNELS
    for what, old, new in EDITS:
        assert old in text, what
        text = text.replace(old, new, 1)
        session.set_text(str(kernels), text)
        served = session.run()
        kernels.write_text(text, encoding="utf-8")
        os.utime(kernels, ns=(os.stat(kernels).st_mtime_ns + 10**9,) * 2)  # a new stamp, even within a tick
        cold = check_paths(["."], config, use_cache=False)
        cached = check_paths(["."], config)
        assert shape(served.findings, served.problems) == shape(cold.findings, cold.problems), what
        assert shape(cached.findings, cached.problems) == shape(cold.findings, cold.problems), what
    assert any(f.path.endswith("kernels.py") for f in cold.findings)  # the edits did reach findings


def test_only_the_edited_function_is_walked(tree: Path) -> None:
    config = load_config(str(tree / "pyproject.toml"))
    kernels = tree / "fw/_backends/mps/kernels.py"
    session = CheckSession(str(tree), config, use_disk_cache=False)
    assert session.run().walks > 5
    assert session.project is not None
    before = session.project.modules["fw._backends.mps.kernels"].tree
    session.set_text(str(kernels), KERNELS.replace("return a.mean()", "return a.mean(dim=1)"))
    assert session.run().walks == 1
    assert session.project is not None
    module = session.project.modules["fw._backends.mps.kernels"]
    assert module.tree is before  # the new def took the old one's place: the file was not parsed again
    assert (module.nodes or {})["Kernels.mean"].body[0].value.keywords[0].arg == "dim"


def test_the_cache_fingerprint_is_the_same_in_every_process(project: Path) -> None:
    """Sets in the settings (the host vocabulary) print in an order that changes with each
    process's string hashing; the fingerprint must not, or the cache never hits."""
    import subprocess
    import sys

    code = ("import sys; from device_types._config import load_config; from device_types._check import _cache; "
            "print(_cache.fingerprint(_cache.check_settings(load_config(sys.argv[1]))))")
    prints = {subprocess.run([sys.executable, "-c", code, str(project / "pyproject.toml")], capture_output=True,
                             text=True, env={**os.environ, "PYTHONHASHSEED": seed}, check=True).stdout
              for seed in ("1", "2", "3")}
    assert len(prints) == 1
