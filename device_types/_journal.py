"""Several files replaced together, all or none, even when the process is killed between
two renames (``audit --fix --write``).

A rename replaces one file at once; nothing replaces two. So the change goes through a
write-ahead journal, ``ROOT/.device-types-journal.json`` (``JOURNAL``), itself always written
whole (a temporary file, fsynced, renamed):

1. ``prepare``: the journal lists each target with the temporary file that will hold its
   new content and, for a target that exists, a hard link that keeps its old content
   (``.tmp.old``). It is created only where none is (``os.link``), so two runs never share one.
2. The temporary files and the links are written and fsynced, with their directories.
3. ``commit``: the journal is rewritten with that state. This is the moment the change
   happens: before it, the next run undoes it (removes the temporary files; no target was
   touched); after it, the next run finishes it (renames what is not renamed yet).
4. Each temporary file is renamed over its target; the links and then the journal are removed.
   A rename that fails (rare: the files were all written) turns the journal into ``rollback``
   and puts the old contents back from the links.

``recover(root)`` reads a journal left by a run that is no longer running and rolls it forward
(``commit``) or back (``prepare``, ``rollback``); every step of it can be repeated, so a
recovery that is itself killed is finished by the next one. ``audit`` and ``check`` call it
before they read anything. A journal that is not ours to act on (a path out of the root, a
name not of our temporary-file form, not our format) is an error, and acts on nothing.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Mapping
from dataclasses import dataclass

from ._files import (
    JOURNAL,
    TEMP_SUFFIX,
    WriteError,
    _keep_mode,
    _remove,
    _temp_beside,
    _why,
    alive,
    read_regular,
    remove_leftovers,
    sync_dir,
    temp_name,
)

__all__ = ["JOURNAL", "JournalError", "recover", "write_all"]

_FORMAT = "device-types-journal"
_VERSION = 1
#: The most a journal is read (one line per file; far more than a fix writes).
_LIMIT = 4 * 1024 * 1024


class JournalError(WriteError):
    """A journal that cannot be acted on (another run is writing, or it is not ours); one line."""


@dataclass(frozen=True)
class _Entry:
    target: str  # absolute
    temp: str  # absolute, beside target
    backup: str | None  # absolute hard link to the old content; None: the target did not exist


def write_all(root: str, files: Mapping[str, bytes]) -> None:
    """Replace each of ``files`` (absolute paths under ``root``) with its bytes: all or none,
    even under a kill (the next ``recover(root)`` finishes or undoes it). ``WriteError``,
    one line, when nothing was changed."""
    import signal

    root = os.path.abspath(root)
    recover(root, writing=True)
    previous = None
    if hasattr(signal, "SIGXFSZ"):
        try:
            previous = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        except ValueError:  # not the main thread
            previous = None
    try:
        _write_all(root, files)
    finally:
        if previous is not None:
            signal.signal(signal.SIGXFSZ, previous)


def _write_all(root: str, files: Mapping[str, bytes]) -> None:
    entries: list[_Entry] = []
    for path, raw in files.items():
        path = os.path.abspath(path)
        _inside(root, path, path)
        try:
            info = os.stat(path)
        except FileNotFoundError:
            info = None
        except OSError as exc:
            raise WriteError(_why(path, exc)) from None
        if info is not None and not stat.S_ISREG(info.st_mode):
            raise WriteError(f"cannot write {path}: not a regular file")
        if info is not None and not info.st_mode & 0o222:
            raise WriteError(f"cannot write {path}: it is read-only")
        remove_leftovers(os.path.dirname(path), os.path.basename(path))
        temp = temp_name(path)
        entries.append(_Entry(path, temp, f"{temp}.old" if info is not None else None))
    if not entries:
        return
    journal = os.path.join(root, JOURNAL)
    try:
        _write_journal(root, "prepare", entries, exclusive=True)
    except FileExistsError:
        raise JournalError(f"cannot write: {journal} appeared while this run prepared its change "
                           "(another device-types run is writing); nothing was written") from None
    except OSError as exc:
        raise WriteError(f"cannot write the journal {journal}: {exc.strerror or exc}") from None
    try:
        for entry, raw in zip(entries, files.values()):
            try:
                _temp_beside(entry.target, raw, True, entry.temp)
                _keep_mode(entry.target, entry.temp)
                if entry.backup is not None:
                    _hold(entry.target, entry.backup)
            except OSError as exc:
                raise WriteError(_why(entry.target, exc)) from None
        for directory in sorted({os.path.dirname(e.target) for e in entries}):
            sync_dir(directory)
        try:
            _write_journal(root, "commit", entries)
        except OSError as exc:
            raise WriteError(f"cannot write the journal {journal}: {exc.strerror or exc}") from None
    except BaseException:
        _undo_prepare(entries)
        _remove(journal)
        raise
    # committed: from here on the change happens, now or in the next run
    done: list[_Entry] = []
    try:
        for entry in entries:
            os.replace(entry.temp, entry.target)
            done.append(entry)
    except OSError as exc:
        failed = entries[len(done)].target
        try:
            _write_journal(root, "rollback", entries)
            _roll_back(entries)
            _remove(journal)
        except OSError:
            pass  # the journal (commit or rollback) stays, for the next run
        raise WriteError(_why(failed, exc)) from None
    except BaseException:  # Ctrl-C between two renames: finish them (the change is committed)
        _roll_forward(entries)
        _finish(root, entries)
        raise
    _finish(root, entries)


def _hold(target: str, backup: str) -> None:
    """``backup`` keeps ``target``'s old content: a hard link, or a copy where links are refused."""
    try:
        os.link(target, backup)
    except OSError:
        _temp_beside(target, read_regular(target), True, backup)


def _finish(root: str, entries: list[_Entry]) -> None:
    """After every rename: flush them, drop the old contents, then the journal."""
    for directory in sorted({os.path.dirname(e.target) for e in entries}):
        sync_dir(directory)
    for entry in entries:
        if entry.backup is not None:
            _remove(entry.backup)
    _remove(os.path.join(root, JOURNAL))
    sync_dir(root)


def _undo_prepare(entries: list[_Entry]) -> None:
    """Before the commit no target was touched: remove what was written beside them."""
    for entry in entries:
        _remove(entry.temp)
        if entry.backup is not None:
            _remove(entry.backup)


def _roll_forward(entries: list[_Entry]) -> None:
    for entry in entries:
        if os.path.lexists(entry.temp):  # not renamed yet (a renamed one is gone)
            os.replace(entry.temp, entry.target)


def _roll_back(entries: list[_Entry]) -> None:
    """Each target as it was before the commit; safe to repeat."""
    for entry in entries:
        if entry.backup is None:
            if os.path.lexists(entry.temp):
                _remove(entry.temp)  # never renamed: the target was never created
            elif os.path.isfile(entry.target) and not os.path.islink(entry.target):
                os.remove(entry.target)  # created by the rename: the file did not exist before
        else:
            if os.path.lexists(entry.backup):
                os.replace(entry.backup, entry.target)  # a no-op where both are still one file
                _remove(entry.backup)
            _remove(entry.temp)


def _write_journal(root: str, state: str, entries: list[_Entry], exclusive: bool = False) -> None:
    """The journal, whole: a temporary file, fsynced, then linked (``exclusive``: only where
    there is none) or renamed into place, and the directory flushed."""
    journal = os.path.join(root, JOURNAL)
    data = json.dumps({
        "format": _FORMAT, "version": _VERSION, "pid": os.getpid(), "state": state,
        "files": [{"target": _rel(root, e.target), "temp": _rel(root, e.temp),
                   "backup": None if e.backup is None else _rel(root, e.backup)} for e in entries],
    }, indent=1).encode("utf-8") + b"\n"
    temp = _temp_beside(journal, data, True)
    try:
        if exclusive:
            try:
                os.link(temp, journal)
            except FileExistsError:
                raise
            except OSError:  # no hard links here: a rename (runs are then told apart by the pid only)
                if os.path.lexists(journal):
                    raise FileExistsError(journal) from None
                os.replace(temp, journal)
            else:
                os.remove(temp)
        else:
            os.replace(temp, journal)
    except BaseException:
        _remove(temp)
        raise
    sync_dir(root)


def _rel(root: str, path: str) -> str:
    return os.path.relpath(path, root).replace(os.sep, "/")


def _inside(root: str, path: str, shown: str) -> None:
    """``path`` (absolute) lies in ``root``, also once its directory's links are followed."""
    real_root = os.path.realpath(root)
    directory = os.path.realpath(os.path.dirname(path))
    if os.path.commonpath([real_root, directory]) != real_root or os.path.basename(path) in ("", ".", ".."):
        raise JournalError(f"cannot write {shown}: it is outside {root}; nothing was written")


def recover(root: str, writing: bool = False, sweep: bool = True) -> str | None:
    """Finish or undo the change a killed run left in ``root`` (see the module); a line
    saying what was done, or None. ``sweep``: also remove the journal's own temporary files
    that a killed run left (a listing of ``root``). A journal of a run still going is left
    alone (``writing``: ``JournalError``). ``JournalError`` for a journal that is not ours
    to act on."""
    journal = os.path.join(root, JOURNAL)
    if not os.path.lexists(journal):
        if sweep or writing:
            remove_leftovers(root, JOURNAL)
        return None
    state, pid, entries = _read(root, journal)
    if pid != os.getpid() and alive(pid):
        if writing:
            raise JournalError(f"another device-types run (pid {pid}) is writing the files listed in {journal}; "
                               "wait for it, or remove that file if no such run is going on; nothing was written")
        return None
    try:
        if state == "commit":
            _roll_forward(entries)
            done = "finished"
        elif state == "rollback":
            _roll_back(entries)
            done = "undone"
        else:
            _undo_prepare(entries)
            done = "undone"
        _finish(root, entries)
    except OSError as exc:
        raise JournalError(f"cannot recover from {journal} ({exc.strerror or exc}): the files it lists are "
                           "as a killed device-types run left them; fix the cause and run again") from None
    remove_leftovers(root, JOURNAL)
    names = ", ".join(_rel(root, e.target) for e in entries)
    return f"a killed run's change of {len(entries)} file{'s' if len(entries) != 1 else ''} was {done}: {names}"


def _read(root: str, journal: str) -> tuple[str, int, list[_Entry]]:
    def bad(why: str) -> JournalError:
        return JournalError(f"{journal} is not a journal device-types can act on ({why}); nothing was changed: "
                            "check the files it lists, then remove it")

    try:
        raw = read_regular(journal, _LIMIT)
    except OSError as exc:
        raise bad(exc.strerror or str(exc)) from None
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise bad("not JSON") from None
    if not isinstance(data, dict) or data.get("format") != _FORMAT:
        raise bad("another format")
    if data.get("version") != _VERSION:
        raise bad(f"version {data.get('version')!r}, not {_VERSION}")
    state, pid, files = data.get("state"), data.get("pid"), data.get("files")
    if state not in ("prepare", "commit", "rollback") or type(pid) is not int or not isinstance(files, list):
        raise bad("a field is missing or of the wrong type")
    entries = []
    for item in files:
        if not isinstance(item, dict) or not all(isinstance(item.get(k), str) for k in ("target", "temp")) \
                or not (item.get("backup") is None or isinstance(item.get("backup"), str)):
            raise bad("a file entry is malformed")
        target, temp, backup = item["target"], item["temp"], item.get("backup")
        if "\0" in target + temp + (backup or "") or os.path.isabs(target) or target.startswith("/"):
            raise bad(f"{target!r} is not a path in the root")
        target_path = os.path.normpath(os.path.join(root, target))
        try:
            _inside(root, target_path, target)
        except JournalError:
            raise bad(f"{target!r} is outside the root") from None
        directory, base = os.path.split(target_path)
        temp_path = os.path.normpath(os.path.join(root, temp))
        temp_base = os.path.basename(temp_path)
        match = TEMP_SUFFIX.search(temp_base)
        if (os.path.dirname(temp_path) != directory or match is None or match.group(2) is not None
                or temp_base[: match.start()] != f".{base}"):
            raise bad(f"{temp!r} is not a temporary file of ours for {target!r}")
        backup_path = None if backup is None else os.path.normpath(os.path.join(root, backup))
        if backup_path is not None and backup_path != temp_path + ".old":
            raise bad(f"{backup!r} is not the old content of {target!r}")
        entries.append(_Entry(target_path, temp_path, backup_path))
    return state, pid, entries
