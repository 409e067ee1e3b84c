"""The cache on disk: a re-check that changed nothing writes nothing, a one-file edit writes
only the delta, and a delta beside another whole is ignored (never a wrong finding)."""

from __future__ import annotations

import os
import pickle
from pathlib import Path

from device_types._check import _cache, check_paths
from device_types._config import Config, load_config
from tests.check.test_lines import edit, shape, tree  # noqa: F401 - the fixture

CACHE = ".device_types_cache"


def grown(tree: Path) -> Config:
    """The tree with 48 functions more, so that one module's edit is a delta (under a quarter
    of the functions; else the whole is written again)."""
    for n in range(8):
        (tree / f"fw/_backends/mps/more_{n}.py").write_text(
            "".join(f"def op_{k}(a):\n    return a.abs()\n\n\n" for k in range(6)), encoding="utf-8")
    return load_config(str(tree / "pyproject.toml"))


def stamps(root: Path) -> dict[str, int]:
    return {p.name: p.stat().st_mtime_ns for p in (root / CACHE).glob("*.pickle")}


def test_nothing_changed_writes_nothing_and_an_edit_writes_the_delta(tree: Path) -> None:  # noqa: F811
    config = grown(tree)
    check_paths(["."], config)
    first = stamps(tree)
    assert list(first) == ["check.pickle"]
    check_paths(["."], config)
    assert stamps(tree) == first

    edit(tree / "fw/_backends/mps/sorting.py", "    return a.abs()\n", "    b = a\n    return b.abs()\n")
    edited = check_paths(["."], config)
    after = stamps(tree)
    assert after["check.pickle"] == first["check.pickle"] and "check-delta.pickle" in after
    delta = pickle.loads((tree / CACHE / "check-delta.pickle").read_bytes())
    assert set(delta.modules) == {"fw._backends.mps.sorting", "fw._backends.mps.ops"}  # ops: its caller, moved
    again = check_paths(["."], config)
    assert again.walks == 0 and shape(again) == shape(edited) == shape(check_paths(["."], config, use_cache=False))


def test_a_delta_of_another_whole_is_ignored(tree: Path) -> None:  # noqa: F811
    config = grown(tree)
    fingerprint = _cache.fingerprint(_cache.check_settings(config))
    check_paths(["."], config)
    edit(tree / "fw/_backends/mps/sorting.py", "    return a.abs()\n", "    return a.abs().neg()\n")
    check_paths(["."], config)
    assert _cache.load(str(tree), fingerprint).delta_modules == {"fw._backends.mps.sorting"}
    stale = (tree / CACHE / "check-delta.pickle").read_bytes()
    os.remove(tree / CACHE / "check.pickle")
    check_paths(["."], config)  # a new whole (another generation); it removes the delta
    assert not (tree / CACHE / "check-delta.pickle").exists()
    (tree / CACHE / "check-delta.pickle").write_bytes(stale)
    assert _cache.load(str(tree), fingerprint).delta_modules == frozenset()


def test_findings_are_kept_per_module_and_recomputed_for_another_option(tree: Path) -> None:  # noqa: F811
    config = grown(tree)
    fingerprint = _cache.fingerprint(_cache.check_settings(config))
    first = check_paths(["."], config)
    held = _cache.load(str(tree), fingerprint).findings
    assert shape(first) and {f.path for f in held["fw._backends.mps.sorting"][1]} == {"fw/_backends/mps/sorting.py"}
    (tree / "fw/_backends/mps/sync.py").write_text("def total(a):\n    return a.sum().item()\n", encoding="utf-8")
    plain = check_paths(["."], config)
    with_sync = check_paths(["."], config, host_sync=True)  # the same records, findings for another option
    assert shape(with_sync) == shape(check_paths(["."], config, host_sync=True, use_cache=False)) != shape(plain)
    assert shape(check_paths(["."], config)) == shape(plain) == shape(check_paths(["."], config, use_cache=False))
