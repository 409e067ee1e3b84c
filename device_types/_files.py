"""Reading and writing files safely: every front end reads and writes through here.

* ``read_regular``: only a regular file is read (a FIFO, a device or a directory named
  ``*.py`` is refused, never waited on), and never more than the limit, whatever the file
  grows to while it is read.
* ``write_atomic`` / ``write_all``: a file is written beside its target, flushed and synced,
  then renamed over it (``os.replace``). A full disk, ``ulimit -f``, a read-only directory
  or a kill at any moment leaves the old file as it was, byte for byte. ``write_all``
  writes every file before it replaces any, so that a failed run changes none (a rename can
  still fail, rarely: then the ones already replaced are put back).
* ``_journal.write_all``: several files that change together (``audit --fix --write``)
  survive a kill too: a journal beside them says which to finish or undo, and the next run
  does it (docs/audit.md, "How `--fix --write` writes, and after a crash").
* Temporary files are ``.NAME.device-types-PID-RANDOM.tmp``; a run removes those of runs
  that were killed (``remove_leftovers``), and nothing else.
* ``split_lines``: lines as Python and Markdown see them: ends are ``\\n``, ``\\r\\n`` and
  ``\\r`` only (``str.splitlines`` also splits on U+2028, U+0085, form feeds ...).
"""

from __future__ import annotations

import errno
import os
import re
import stat
from collections.abc import Mapping

__all__ = ["NotRegular", "TooLarge", "WriteError", "read_regular", "split_lines", "write_all", "write_atomic",
           "alive", "remove_leftovers", "sync_dir", "temp_name"]


class NotRegular(OSError):
    """The path is a FIFO, a device, a socket or a directory."""


class TooLarge(OSError):
    """The file is larger than the limit given."""

    def __init__(self, size: int) -> None:
        super().__init__(errno.EFBIG, f"{size} bytes, over the limit for this file")
        self.size = size


class WriteError(OSError):
    """A write that did not happen (the target is unchanged); ``str()`` is one line."""


def read_regular(path: str, limit: int | None = None) -> bytes:
    """The bytes of the regular file ``path``, at most ``limit`` of them (``TooLarge`` beyond).

    Opened without blocking (a FIFO's open would wait for a writer), then checked on the
    open descriptor, so a file swapped in between is still checked."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise NotRegular(0, "not a regular file", path)
        if limit is not None and info.st_size > limit:
            raise TooLarge(info.st_size)
        chunks = []
        left = limit + 1 if limit is not None else None
        while True:
            chunk = os.read(fd, 1 << 20 if left is None else min(1 << 20, left))
            if not chunk:
                break
            chunks.append(chunk)
            if left is not None:
                left -= len(chunk)
                if left <= 0:
                    raise TooLarge(limit + 1 if limit is not None else 0)
        return b"".join(chunks)
    finally:
        os.close(fd)


_LINE_END = re.compile(r"\r\n|\r|\n")


def split_lines(text: str) -> list[str]:
    """``text``'s lines without their ends; ends are ``\\n``, ``\\r\\n`` and ``\\r`` only."""
    # str.split is several times faster than the pattern, and the same where no line ends in "\r"
    lines = _LINE_END.split(text) if "\r" in text else text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def split_lines_keepends(text: str) -> list[str]:
    """``text``'s lines with their ends (``\\n``, ``\\r\\n``, ``\\r``): they join back to ``text``."""
    out: list[str] = []
    start = 0
    for match in _LINE_END.finditer(text):
        out.append(text[start:match.end()])
        start = match.end()
    if start < len(text):
        out.append(text[start:])
    return out


#: The write-ahead journal of a change of several files, in its root (``_journal``).
JOURNAL = ".device-types-journal.json"

#: What our temporary files are called, beside their target ``NAME``:
#: ``.NAME.device-types-PID-RANDOM.tmp`` (and ``...tmp.old``: a hard link holding a target's
#: old content while several files are replaced). Only names of this form whose process
#: ``PID`` has ended are ever removed as leftovers.
TEMP_SUFFIX = re.compile(r"\.device-types-(\d+)-[0-9a-f]{8}\.tmp(\.old)?\Z")


def temp_name(path: str) -> str:
    """A new name for a temporary file beside ``path`` (``TEMP_SUFFIX``)."""
    directory = os.path.dirname(os.path.abspath(path)) or "."
    return os.path.join(directory, f".{os.path.basename(path)}.device-types-{os.getpid()}-{os.urandom(4).hex()}.tmp")


def alive(pid: int) -> bool:
    """Whether process ``pid`` may still be running here (unsure: yes)."""
    if pid <= 0:
        return False
    if os.name == "nt":  # os.kill there would end the process: ask for it instead
        return _alive_windows(pid)
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # another user's, or no way to tell
        return True
    return True


def _alive_windows(pid: int) -> bool:
    import ctypes

    kernel32 = ctypes.windll.kernel32  # type: ignore[attr-defined,unused-ignore]
    handle = kernel32.OpenProcess(0x1000, False, pid)  # PROCESS_QUERY_LIMITED_INFORMATION
    if not handle:
        return bool(kernel32.GetLastError() != 87)  # ERROR_INVALID_PARAMETER: no such process
    try:
        code = ctypes.c_ulong()
        if not kernel32.GetExitCodeProcess(handle, ctypes.byref(code)):
            return True
        return code.value == 259  # STILL_ACTIVE
    finally:
        kernel32.CloseHandle(handle)


def leftover(name: str, base: str | None = None) -> bool:
    """Whether ``name`` is a temporary file of a device-types run that has ended (for the
    target named ``base``, when given): the name's form and a pid that no longer runs."""
    match = TEMP_SUFFIX.search(name)
    if match is None or not name.startswith(".") or match.start() < 2:
        return False
    if base is not None and name[1:match.start()] != base:
        return False
    pid = int(match.group(1))
    return pid != os.getpid() and not alive(pid)


def remove_leftovers(directory: str, base: str | None = None) -> int:
    """Remove our temporary files in ``directory`` left by runs that were killed (for the
    target ``base``, when given); how many. Never anything else, never a link."""
    removed = 0
    try:
        names = os.listdir(directory or ".")
    except OSError:
        return 0
    for name in names:
        if ".device-types-" in name and leftover(name, base):
            path = os.path.join(directory, name)
            if not os.path.islink(path) and os.path.isfile(path):
                try:
                    os.remove(path)
                    removed += 1
                except OSError:
                    pass
    return removed


def sync_dir(directory: str) -> None:
    """Flush ``directory``'s entries (a rename in it) to disk, where the system allows."""
    try:
        fd = os.open(directory or ".", os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _temp_beside(path: str, data: bytes, sync: bool = True, temp: str | None = None) -> str:
    """``data`` in a new file in ``path``'s directory (named ``temp``, or a new name),
    flushed to disk; its name."""
    if temp is None:
        temp = temp_name(path)
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o666)
    try:
        view = memoryview(data)
        while view:
            written = os.write(fd, view)
            view = view[written:]
        if sync:
            os.fsync(fd)
    except BaseException:
        os.close(fd)
        _remove(temp)
        raise
    os.close(fd)
    return temp


def _keep_mode(path: str, temp: str) -> None:
    """The new file gets the old one's permission bits (a new file: the umask's)."""
    try:
        os.chmod(temp, stat.S_IMODE(os.stat(path).st_mode))
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(temp, 0o666 & ~umask)


def _remove(path: str) -> None:
    try:
        os.remove(path)
    except OSError:
        pass


def _why(path: str, exc: BaseException) -> str:
    if isinstance(exc, OSError):
        kept = "it is unchanged" if os.path.lexists(path) else "nothing was written"
        return f"cannot write {path}: {exc.strerror or exc}; {kept}"
    return f"cannot write {path}: {exc}; it is unchanged"


def write_atomic(path: str, data: bytes | str, encoding: str = "utf-8", sync: bool = True,
                 clean: bool = True) -> None:
    """Replace ``path``'s content with ``data`` in one step; ``WriteError`` (the file unchanged).
    ``sync=False`` skips the fsync (a cache file: a file cut by a power loss is a miss).
    ``clean``: first remove the temporary files a killed run left beside ``path``
    (``remove_leftovers``; the cache sweeps its directory once instead)."""
    write_all({path: data}, encoding, sync, clean)


def write_all(files: Mapping[str, bytes | str], encoding: str = "utf-8", sync: bool = True,
              clean: bool = True) -> None:
    """Replace each file's content; ``WriteError`` names the first that failed. A failure
    leaves every file as it was; a kill between two renames can leave some replaced (a
    change of several files that must survive a kill goes through ``_journal.write_all``).

    ``SIGXFSZ`` (``ulimit -f``) is ignored while writing, so the write fails with ``EFBIG``
    instead of killing the process (the old file is kept either way)."""
    import signal

    previous = None
    if hasattr(signal, "SIGXFSZ"):
        try:
            previous = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        except ValueError:  # not the main thread
            previous = None
    temps: dict[str, str] = {}
    direct: dict[str, bytes] = {}
    try:
        for path, data in files.items():
            raw = data.encode(encoding) if isinstance(data, str) else data
            try:
                info = os.stat(path)
            except FileNotFoundError:
                info = None
            except OSError as exc:
                raise WriteError(_why(path, exc)) from None
            if info is not None and not stat.S_ISREG(info.st_mode):
                if stat.S_ISDIR(info.st_mode):
                    raise WriteError(f"cannot write {path}: it is a directory")
                direct[path] = raw  # /dev/stdout, a FIFO, a terminal: written as it is, never replaced
                continue
            if info is not None and not info.st_mode & 0o222:
                raise WriteError(f"cannot write {path}: it is read-only; nothing was written")
            if clean:
                remove_leftovers(os.path.dirname(os.path.abspath(path)), os.path.basename(path))
            try:
                temps[path] = _temp_beside(path, raw, sync)
                _keep_mode(path, temps[path])
            except OSError as exc:
                raise WriteError(_why(path, exc)) from None
        _replace_all(temps)
        for path, raw in direct.items():
            try:
                with open(path, "wb") as stream:
                    stream.write(raw)
            except OSError as exc:
                raise WriteError(f"cannot write {path}: {exc.strerror or exc}") from None
    finally:
        for temp in temps.values():
            _remove(temp)
        if previous is not None:
            signal.signal(signal.SIGXFSZ, previous)


def _replace_all(temps: dict[str, str]) -> None:
    """Rename each temporary over its target; on a failure put back the ones already renamed."""
    done: list[tuple[str, str | None]] = []  # (target, backup of its old content or None: it was new)
    try:
        for path, temp in temps.items():
            backup = None
            if len(temps) > 1 and os.path.lexists(path):
                backup = f"{temp}.old"
                os.link(path, backup)
            os.replace(temp, path)
            done.append((path, backup))
    except OSError as exc:
        failed = next(p for p in temps if p not in {d for d, _ in done})
        for path, backup in reversed(done):
            try:
                if backup is not None:
                    os.replace(backup, path)
                else:
                    os.remove(path)
            except OSError:
                pass
        raise WriteError(_why(failed, exc)) from None
    finally:
        for _, backup in done:
            if backup is not None:
                _remove(backup)
