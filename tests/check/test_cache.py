"""The cache on disk: an index and one file per module. A re-check that changed nothing
writes nothing; a one-function edit writes the edited module's file and the index and opens
only the modules that depend on what changed; an edit that changes what a name means (a
helper renamed, added, or re-imported) walks what looked that name up again. Every re-check
prints what a cold check prints."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from device_types._check import CheckResult, _cache, check_paths
from device_types._config import Config, load_config
from tests.check.test_lines import edit, shape, tree  # noqa: F401 - the fixture

CACHE = ".device_types_cache"


def grown(tree: Path) -> Config:
    """The tree with 8 modules more that depend on nothing the tests edit."""
    for n in range(8):
        (tree / f"fw/_backends/mps/more_{n}.py").write_text(
            "".join(f"def op_{k}(a):\n    return a.abs()\n\n\n" for k in range(6)), encoding="utf-8")
    return load_config(str(tree / "pyproject.toml"))


def stamps(root: Path) -> dict[str, int]:
    return {p.name: p.stat().st_mtime_ns for p in (root / CACHE).glob("*.json")}


def blob_of(root: Path, module: str) -> str:
    from device_types._check._codec import loads

    body, decoder = loads((root / CACHE / "index.json").read_bytes())
    index = _cache._index_from(body, decoder, body[0])  # type: ignore[index]
    assert index is not None
    return index.entries[module].blob


@pytest.fixture
def opened(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The names of the module files each run reads from the cache."""
    names: list[str] = []
    real = _cache._read

    def reading(path: str) -> object:
        names.append(Path(path).name)
        return real(path)

    monkeypatch.setattr(_cache, "_read", reading)
    return names


def rechecked(config: Config) -> CheckResult:
    """A cached check of the tree, which must print what a cold check prints."""
    cached = check_paths(["."], config)
    assert shape(cached) == shape(check_paths(["."], config, use_cache=False))
    return cached


def topk_found(tree: Path) -> tuple[Config, CheckResult, Path]:
    """The grown tree checked once: ``topk`` falls back through ``sorting.sort``."""
    config = grown(tree)
    first = check_paths(["."], config)
    assert any(f.message.startswith('"topk" calls "sort()"') for f in first.findings)
    return config, first, tree / "fw/_backends/mps/sorting.py"


def modules_read(names: list[str]) -> set[str]:
    return {n.rsplit(".", 2)[0] for n in names if n != "index.json"}


def test_nothing_changed_writes_nothing_and_an_edit_writes_its_module(tree: Path) -> None:  # noqa: F811
    config = grown(tree)
    check_paths(["."], config)
    first = stamps(tree)
    assert "index.json" in first and blob_of(tree, "fw._backends.mps.more_0") in first
    check_paths(["."], config)
    assert stamps(tree) == first

    edit(tree / "fw/_backends/mps/sorting.py", "    return a.abs()\n", "    b = a\n    return b.abs()\n")
    edited = check_paths(["."], config)
    after = stamps(tree)
    rewritten = {name.rsplit(".", 2)[0] for name in set(after) - set(first)}
    assert rewritten == {"fw._backends.mps.sorting", "fw._backends.mps.ops"}  # ops: its caller, moved
    assert after["index.json"] != first["index.json"]
    # the other modules' files are the same files, untouched
    assert {n: t for n, t in after.items() if n in first and n != "index.json"} == {
        n: t for n, t in first.items() if n != "index.json" and n.rsplit(".", 2)[0] not in rewritten}
    again = check_paths(["."], config)
    assert again.walks == 0 and shape(again) == shape(edited) == shape(check_paths(["."], config, use_cache=False))
    assert len(list((tree / CACHE).glob("fw._backends.mps.sorting.*.json"))) == 1  # the old file removed


def test_a_recheck_opens_only_what_depends_on_the_edit(tree: Path, opened: list[str]) -> None:  # noqa: F811
    config = grown(tree)
    cold = check_paths(["."], config)
    edit(tree / "fw/_backends/mps/more_3.py", "def op_2(a):\n    return a.abs()\n",
         "def op_2(a):\n    b = a.neg()\n    return b.abs()\n")
    opened.clear()
    body_edit = check_paths(["."], config)
    assert modules_read(opened) == {"fw._backends.mps.more_3"}  # its summary is the same: no caller opened
    assert body_edit.walks == 1 and body_edit.functions == cold.functions
    assert shape(body_edit) == shape(check_paths(["."], config, use_cache=False))

    ops = tree / "fw/_backends/mps/ops.py"
    ops.write_text(ops.read_text(encoding="utf-8") + "\n\ndef extra(a):\n    return a.abs()\n", encoding="utf-8")
    opened.clear()
    added = check_paths(["."], config)
    # its other functions' records are adopted; the module of the helper they call is not opened for them
    assert modules_read(opened) == {"fw._backends.mps.ops"} and added.walks == 1
    assert shape(added) == shape(check_paths(["."], config, use_cache=False))

    edit(tree / "fw/_backends/common/helpers.py", "    return a.cpu().numpy()\n", "    return a.numpy()\n")
    opened.clear()
    helper_edit = check_paths(["."], config)
    # the helper's summary is the same (a host read either way): nothing of its callers is read
    assert modules_read(opened) == {"fw._backends.common.helpers"}
    assert shape(helper_edit) == shape(check_paths(["."], config, use_cache=False)) == shape(cold)


def test_a_renamed_helper_takes_its_callers_findings_with_it(tree: Path) -> None:  # noqa: F811
    config, first, sorting = topk_found(tree)
    edit(sorting, "def sort(a, stable=False):", "def sort_values(a, stable=False):")
    assert not any(f.message.startswith('"topk"') for f in rechecked(config).findings)  # its call names nothing
    edit(sorting, "def sort_values(a, stable=False):", "def sort(a, stable=False):")  # and back
    assert shape(rechecked(config)) == shape(first)


def test_a_helper_defined_after_its_caller_is_seen(tree: Path) -> None:  # noqa: F811
    config = grown(tree)
    ops = tree / "fw/_backends/mps/ops.py"
    edit(ops, "def topk(a, k):", "def host_topk(a, k):\n    return sorting.host_sort(a)[:k]\n\n\ndef topk(a, k):")
    before = check_paths(["."], config)
    assert not any(f.message.startswith('"host_topk"') for f in before.findings)
    edit(tree / "fw/_backends/mps/sorting.py", "def unrelated(a):",
         "def host_sort(a):\n    return from_numpy(np.sort(to_numpy(a)), a.dtype, a.device)\n\n\ndef unrelated(a):")
    after = check_paths(["."], config)
    assert shape(after) == shape(check_paths(["."], config, use_cache=False))
    assert any(f.message.startswith('"host_topk" calls "host_sort()"') for f in after.findings)


def test_an_unreadable_module_file_is_read_from_source(tree: Path) -> None:  # noqa: F811
    config = grown(tree)
    cold = check_paths(["."], config)
    (tree / CACHE / blob_of(tree, "fw._backends.mps.sorting")).write_bytes(b"\x80\x05garbage")
    edit(tree / "fw/_backends/mps/sorting.py", "    return a.abs()\n", "    return a.abs().neg()\n")
    assert shape(check_paths(["."], config)) == shape(cold)


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


def test_a_helper_changed_while_only_its_file_was_checked_reaches_its_callers_later(tree: Path) -> None:  # noqa: F811
    config, first, sorting = topk_found(tree)
    # the helper's host path goes; only its own file is checked, so its caller's module is not in the run
    edit(sorting, "    return from_numpy(np.sort(to_numpy(a)), a.dtype, a.device)\n", "    return a.sort(stable=False)\n")
    check_paths(["fw/_backends/mps/sorting.py"], config)
    assert not any(f.message.startswith('"topk"') for f in rechecked(config).findings)
    # the same for a name: renamed while only its file was checked
    edit(sorting, "    return a.sort(stable=False)\n", "    return from_numpy(np.sort(to_numpy(a)), a.dtype, a.device)\n")
    assert shape(check_paths(["."], config)) == shape(first)
    edit(sorting, "def sort(a, stable=False):", "def sort_values(a, stable=False):")
    check_paths(["fw/_backends/mps/sorting.py"], config)
    assert not any(f.message.startswith('"topk"') for f in rechecked(config).findings)


@pytest.fixture
def documents(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """How many documents each run's writes encode anew, and how many they copy as read."""
    from device_types._check import _codec

    counts = {"encoded": 0, "copied": 0}
    encode, copy = _codec.Encoder.document, _codec.Encoder.copy

    def encoding(self: _codec.Encoder, value: object) -> int:
        counts["encoded"] += 1
        return encode(self, value)

    def copying(self: _codec.Encoder, index: int) -> int:
        counts["copied"] += 1
        return copy(self, index)

    monkeypatch.setattr(_codec.Encoder, "document", encoding)
    monkeypatch.setattr(_codec.Encoder, "copy", copying)
    return counts


def test_a_recheck_copies_the_documents_an_edit_left_alone(tree: Path, documents: dict[str, int]) -> None:  # noqa: F811
    """A record's summaries and its facts are documents of its module's file: the file that
    replaces it after an edit copies those of the records the edit did not change, as read."""
    config = grown(tree)
    check_paths(["."], config)
    sorting = tree / "fw/_backends/mps/sorting.py"
    edit(sorting, "def unrelated(a):\n    return a.abs()\n", "def unrelated(a):\n    return a.abs() * 1\n")
    documents.update(encoded=0, copied=0)
    rewritten = rechecked(config)
    assert rewritten.walks == 1
    # sorting.py's file: "unrelated" walked (2 documents), "sort" copied (2); the index: sorting.py's
    # entry new, the other 14 modules' entries and the tables of names and summaries copied
    assert documents == {"encoded": 3, "copied": 18}
    # a line inserted above "sort": it moves, and so do the lines its callers in ops.py name
    # (four records, two documents each); only what names none of the moved lines is copied
    edit(sorting, "def unrelated(a):\n", "def unrelated(a):\n    a = a\n")
    documents.update(encoded=0, copied=0)
    assert rechecked(config).walks == 1
    assert documents["encoded"] + documents["copied"] == 8 + 17 and documents["copied"] >= 1 + 13
    # nothing changed: nothing written
    documents.update(encoded=0, copied=0)
    assert rechecked(config).walks == 0 and documents == {"encoded": 0, "copied": 0}


def test_a_woken_module_whose_file_is_gone_is_parsed_and_checked(tree: Path) -> None:  # noqa: F811
    """ops.py is left unopened (its file did not change) until its records' helper changes;
    its cache file is gone by then: it is read from its source, every function of it."""
    config = grown(tree)
    check_paths(["."], config)
    for blob in (tree / CACHE).glob("fw._backends.mps.ops.*.json"):
        blob.unlink()
    edit(tree / "fw/_backends/mps/sorting.py", "    return from_numpy(np.sort(to_numpy(a)), a.dtype, a.device)\n",
         "    return a.sort()\n")
    woken = check_paths(["."], config)
    cold = check_paths(["."], config, use_cache=False)
    assert shape(woken) == shape(cold) and woken.functions == cold.functions


def test_a_field_of_the_wrong_type_is_named_when_its_class_is_first_read() -> None:
    """A class's test is made when an instance of it is first read, and a value that fails it
    is a ``CodecError`` naming the field (``_codec``); the same instance with the right types
    reads back."""
    from device_types._check._codec import CodecError, Encoder, dumps, loads
    from device_types._finding import Hop

    good = Hop("fw/ops.py", 12, 4, "f", "g()")
    data = dumps([good], Encoder())
    body, _ = loads(data)
    assert body == [good]
    magic, header, line = data.split(b"\n", 2)
    bad = line.replace(b'"fw/ops.py",12', b'"fw/ops.py","12"')
    assert bad != line
    with pytest.raises(CodecError, match=r"Hop\.line has the wrong type"):
        loads(b"\n".join([magic, header, bad]))


def test_an_edited_module_keeps_the_findings_of_its_functions_the_edit_left_alone(
        tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    """An edit in ``stable_topk`` (a line rewritten, then one inserted below ``topk``) computes
    that function's findings again; ``topk``, whose record is kept as the cache held it,
    keeps its finding from the cache, and the run prints what a cold check prints."""
    from device_types._check import _pipeline

    config, first, _ = topk_found(tree)
    computed: list[str] = []
    real = _pipeline.findings_for

    def finding(results: list, *args: object) -> object:
        results = list(results)
        computed.extend(r.info.qualname for r in results if r.info.module == "fw._backends.mps.ops")
        return real(results, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(_pipeline, "findings_for", finding)
    ops = tree / "fw/_backends/mps/ops.py"
    topk = [f for f in first.findings if f.function == "topk"]
    assert topk
    for old, new in (("stable=True)[:k]", "stable=True)[:k + 0]"),
                     ("    return sorting.sort(a, stable=True)", "    k = k\n    return sorting.sort(a, stable=True)")):
        edit(ops, old, new)
        computed.clear()
        cached = check_paths(["."], config)
        assert computed == ["stable_topk"]
        assert [f for f in cached.findings if f.function == "topk"] == topk
        computed.clear()
        assert shape(cached) == shape(check_paths(["."], config, use_cache=False))
        assert "topk" in computed  # the cold run computes it (the test sees the rules' calls)



def test_a_recheck_reads_each_unchanged_file_once(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    """An unchanged file is read and hashed for its stamp when the run leaves it unopened; a
    walk that asks later whether it changed gets that stamp (``Project.stamp``), not a second
    read. (The edited file is read twice: for its stamp, then for its text.)"""
    from device_types._check import _project

    config, _, sorting = topk_found(tree)
    read: list[str] = []
    real = _project.read_source

    def reading(path: str) -> tuple[bytes | None, str | None, tuple[int, int]]:
        read.append(os.path.abspath(path))
        return real(path)

    monkeypatch.setattr(_project, "read_source", reading)
    edit(sorting, "return a.sort()", "return a.sort(stable=True)")
    check_paths(["."], config)
    others = [path for path in read if path != str(sorting)]
    assert others and len(others) == len(set(others)), sorted(p for p in others if others.count(p) > 1)
    assert str(tree / "fw/_backends/mps/ops.py") in others  # woken by the edit's new summary: stamped, not read again
