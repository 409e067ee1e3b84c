"""The journal of a change of several files (``device_types._journal``), in process: a rename
that fails after the commit puts every file back, and a rollback cut short is finished by the
next ``recover``. Kills at every step are in ``test_kill.py``."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from device_types import _journal
from device_types._files import JOURNAL, WriteError


def _tree(tmp_path: Path) -> tuple[dict[str, bytes], dict[str, bytes]]:
    (tmp_path / "docs").mkdir()
    before = {str(tmp_path / "docs/a.md"): b"old a\n", str(tmp_path / "b.py"): b"old b\n"}
    for path, data in before.items():
        Path(path).write_bytes(data)
    after = {**{path: data.replace(b"old", b"new") for path, data in before.items()},
             str(tmp_path / "docs/c.md"): b"new c\n"}  # and one file that did not exist
    return before, after


def _state(tmp_path: Path) -> dict[str, bytes]:
    return {str(p): p.read_bytes() for p in sorted(tmp_path.rglob("*")) if p.is_file()}


def _failing_second_rename(monkeypatch: pytest.MonkeyPatch) -> None:
    real, calls = os.replace, []

    def replace(source: str, target: str) -> None:
        if not str(target).endswith(JOURNAL):
            calls.append(target)
            if len(calls) == 2:
                raise PermissionError(13, "Permission denied")
        real(source, target)

    monkeypatch.setattr(os, "replace", replace)


def test_a_rename_that_fails_after_the_commit_puts_every_file_back(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    before, after = _tree(tmp_path)
    _failing_second_rename(monkeypatch)
    with pytest.raises(WriteError, match="cannot write .*b.py: Permission denied"):
        _journal.write_all(str(tmp_path), after)
    assert _state(tmp_path) == before  # nothing else: no journal, no temporary file, no c.md


def test_a_rollback_cut_short_is_finished_by_the_next_recover(tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    before, after = _tree(tmp_path)
    _failing_second_rename(monkeypatch)

    def cut_short(entries: list[object]) -> None:
        raise OSError(5, "killed here")

    monkeypatch.setattr(_journal, "_roll_back", cut_short)
    with pytest.raises(WriteError):
        _journal.write_all(str(tmp_path), after)
    assert b'"state": "rollback"' in (tmp_path / JOURNAL).read_bytes()
    monkeypatch.undo()
    assert _journal.recover(str(tmp_path)) == "a killed run's change of 3 files was undone: docs/a.md, b.py, docs/c.md"
    assert _state(tmp_path) == before
    assert _journal.recover(str(tmp_path)) is None


def test_a_change_is_all_new_and_leaves_nothing(tmp_path: Path) -> None:
    _, after = _tree(tmp_path)
    _journal.write_all(str(tmp_path), after)
    assert _state(tmp_path) == after


def test_a_file_outside_the_root_is_refused(tmp_path: Path) -> None:
    (tmp_path / "root").mkdir()
    outside = tmp_path / "x.md"
    with pytest.raises(WriteError, match="outside"):
        _journal.write_all(str(tmp_path / "root"), {str(outside): b"x"})
    assert not outside.exists() and list((tmp_path / "root").iterdir()) == []
