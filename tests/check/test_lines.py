"""Cached facts carried across an edit (``_check/_lines``): a caller whose helper only moved
is not walked again, and what the re-check prints is what a cold check prints."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

import pytest

from device_types._check import CheckResult, check_paths
from device_types._check._conditions import ALWAYS, NEVER
from device_types._check._conditions import Test as Condition_Test
from device_types._check._walk import Facts, Sink
from device_types._check._lines import LineMap, Unmappable
from device_types._check._project import Edit, FunctionInfo, edit_between
from device_types._check._summary import FallbackPath
from device_types._check._values import LoopFilled, Param, Root
from device_types._config import load_config

HELPERS = '''\
def to_numpy(a):
    return a.cpu().numpy()


def from_numpy(arr, dtype, device):
    return device.allocate_from(arr)
'''

SORTING = '''\
import numpy as np

from ..common.helpers import from_numpy, to_numpy


def unrelated(a):
    return a.abs()


def sort(a, stable=False):
    if stable:
        return a.sort()
    return from_numpy(np.sort(to_numpy(a)), a.dtype, a.device)
'''

OPS = '''\
from . import sorting


def topk(a, k):
    values = sorting.sort(a)
    return values[:k]


def stable_topk(a, k):
    return sorting.sort(a, stable=True)[:k]
'''


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    files = {
        "pyproject.toml": '[tool.device_types]\nbackends = { "fw._backends.mps" = "mps" }\n',
        "fw/__init__.py": "", "fw/_backends/__init__.py": "", "fw/_backends/common/__init__.py": "",
        "fw/_backends/mps/__init__.py": "",
        "fw/_backends/common/helpers.py": HELPERS,
        "fw/_backends/mps/sorting.py": SORTING,
        "fw/_backends/mps/ops.py": OPS,
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def shape(result: CheckResult) -> list[tuple[object, ...]]:
    return [(f.path, f.line, f.code, f.message, tuple((h.path, h.line) for h in f.hops)) for f in result.findings]


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    os.utime(path, ns=(os.stat(path).st_mtime_ns + 10**9,) * 2)  # a new stamp, even within a tick


def recheck(tree: Path) -> tuple[CheckResult, CheckResult]:
    config = load_config(str(tree / "pyproject.toml"))
    return check_paths(["."], config), check_paths(["."], config, use_cache=False)


def test_a_second_edit_above_a_helper_still_moves_its_callers_without_walking_them(tree: Path) -> None:
    """The callers moved by the first edit were checked against the moved summary in that
    run: the second edit, which moves it again, needs no walk of them either."""
    config = load_config(str(tree / "pyproject.toml"))
    check_paths(["."], config)
    edit(tree / "fw/_backends/mps/sorting.py", "    return a.abs()\n", "    b = a\n    return b.abs()\n")
    assert check_paths(["."], config).walks == 1
    edit(tree / "fw/_backends/mps/sorting.py", "    b = a\n    return b.abs()\n", "    return a.abs()\n")
    cached, cold = recheck(tree)
    assert cached.walks == 1  # "unrelated" alone again: "topk" and "stable_topk" moved back
    assert shape(cached) == shape(cold)
    topk = next(f for f in cached.findings if f.line == 5 and f.path.endswith("ops.py"))
    assert [(Path(h.path).name, h.line) for h in topk.hops] == [("ops.py", 5), ("sorting.py", 13)]


def test_a_line_inserted_above_a_helper_moves_its_callers_findings_without_walking_them(tree: Path) -> None:
    config = load_config(str(tree / "pyproject.toml"))
    first = check_paths(["."], config)
    assert first.walks > 3
    topk = next(f for f in first.findings if f.line == 5 and f.path.endswith("ops.py"))
    assert [(Path(h.path).name, h.line) for h in topk.hops] == [("ops.py", 5), ("sorting.py", 13)]

    edit(tree / "fw/_backends/mps/sorting.py", "    return a.abs()\n", "    b = a\n    return b.abs()\n")
    cached, cold = recheck(tree)
    assert cached.walks == 1  # "unrelated" only: "sort" moved, its caller "topk" kept its facts, moved
    assert shape(cached) == shape(cold)
    topk = next(f for f in cached.findings if f.line == 5 and f.path.endswith("ops.py"))
    assert [(Path(h.path).name, h.line) for h in topk.hops] == [("ops.py", 5), ("sorting.py", 14)]


def test_an_edit_of_the_root_line_walks_the_callers_again(tree: Path) -> None:
    config = load_config(str(tree / "pyproject.toml"))
    check_paths(["."], config)
    edit(tree / "fw/_backends/mps/sorting.py", "np.sort(to_numpy(a))", "np.sort(to_numpy(a.contiguous()))")
    cached, cold = recheck(tree)
    assert cached.walks >= 2  # "sort" and its caller "topk", whose finding names the edited line
    assert shape(cached) == shape(cold)
    assert any('"to_numpy(a.contiguous())" at' in f.message for f in cached.findings if f.path.endswith("ops.py"))


def test_lines_deleted_above_a_helper_move_its_callers_up(tree: Path) -> None:
    config = load_config(str(tree / "pyproject.toml"))
    check_paths(["."], config)
    edit(tree / "fw/_backends/mps/sorting.py", "import numpy as np\n\n", "import numpy as np\n")
    cached, cold = recheck(tree)
    assert cached.walks == 0  # no function's source changed
    assert shape(cached) == shape(cold)
    assert any(h.line == 12 and h.path.endswith("sorting.py") for f in cached.findings for h in f.hops)


def test_the_line_map() -> None:
    old = ["a", "b", "c", "d"]
    assert edit_between(old, ["a", "x", "b", "c", "d"]) == Edit(2, 1, 1)  # an insertion before old line 2
    assert edit_between(old, ["a", "B", "c", "d"]) == Edit(2, 2, 0)
    assert edit_between(old, ["a", "d"]) == Edit(2, 3, -2)
    lines = LineMap({"f.py": Edit(2, 3, -2), "g.py": None})
    assert (lines.line("f.py", 1), lines.line("f.py", 4), lines.line("h.py", 9)) == (1, 2, 9)
    for path, line in (("f.py", 2), ("f.py", 3), ("g.py", 1)):
        with pytest.raises(Unmappable):
            lines.line(path, line)


def test_every_field_of_the_facts_is_carried() -> None:
    """``LineMap.facts`` lists the fields of ``Facts`` one by one (each names lines its own
    way): a field added to ``Facts`` must be added there too, or cached facts lose it."""
    root = Root("read", "device-readback", '"to_numpy(a)"', "own.py", 7, 4)
    path = FallbackPath("device-readback", '"to_numpy(a)"', "other.py", 3, ("f", "g"))
    callee = FunctionInfo("m", "g", "other.py", None, ("a",), None, None, 2, "hash")
    samples = {
        "returned": {root, LoopFilled("idx", 8, 4), Param(0)}, "sunk": [(root, Sink("upload"))], "uploaded_params": {0},
        "array_uploads": {1}, "maybe_uploaded_params": {2}, "reads_into": {3}, "copy_params": {1, 2}, "created": [root],
        "escaped": {root}, "cpu_backend_calls": [(9, 0, "cpu_sort")], "indirect": [(10, 4, callee, path)],
        "callees": {("m", "g")}, "when": {root: ALWAYS}, "cpu_when": {(9, 0): ALWAYS},
        "returned_when": {root: NEVER}, "assumed": frozenset({Condition_Test(("p", 0, ("dtype",)), frozenset({"f32"}))}),
        "returns_literal": True, "returns_value": True, "meta_params": {1}, "data_params": {0}, "cpu_test": 2,
        "made_like": (0, frozenset({"device", "contiguous"})),
        "true_when": frozenset({Condition_Test(("p", 0, ("dtype",)), frozenset({"f32"}))}),
    }
    assert set(samples) == {f.name for f in dataclasses.fields(Facts)}
    facts = Facts(**samples)  # type: ignore[arg-type]
    carried = LineMap({"own.py": Edit(1, 0, 5), "other.py": Edit(1, 0, 1)}).facts(facts, "own.py")
    moved_root = dataclasses.replace(root, line=12)
    assert carried == Facts(
        returned={moved_root, LoopFilled("idx", 13, 4), Param(0)}, sunk=[(moved_root, Sink("upload"))], uploaded_params={0},
        array_uploads={1}, maybe_uploaded_params={2}, reads_into={3}, copy_params={1, 2}, created=[moved_root], escaped={moved_root},
        cpu_backend_calls=[(14, 0, "cpu_sort")],
        indirect=[(15, 4, dataclasses.replace(callee, line=3), dataclasses.replace(path, line=4))],
        callees={("m", "g")}, when={moved_root: ALWAYS}, cpu_when={(14, 0): ALWAYS},
        returned_when={moved_root: NEVER}, assumed=frozenset({Condition_Test(("p", 0, ("dtype",)), frozenset({"f32"}))}),
        returns_literal=True, returns_value=True, meta_params={1}, data_params={0}, cpu_test=2,
        made_like=(0, frozenset({"device", "contiguous"})),
        true_when=frozenset({Condition_Test(("p", 0, ("dtype",)), frozenset({"f32"}))}))
