"""Reading and writing files safely: every front end reads and writes through here.

* ``read_regular``: only a regular file is read (a FIFO, a device or a directory named
  ``*.py`` is refused, never waited on), and never more than the limit, whatever the file
  grows to while it is read.
* ``write_atomic`` / ``write_all``: a file is written beside its target, flushed and synced,
  then renamed over it (``os.replace``). A full disk, ``ulimit -f``, a read-only directory
  or a kill at any moment leaves the old file as it was, byte for byte. ``write_all``
  writes every file before it replaces any, so that a run either changes all of them or
  none (a rename can still fail, rarely: then the ones already replaced are put back).
* ``split_lines``: lines as Python and Markdown see them: ends are ``\\n``, ``\\r\\n`` and
  ``\\r`` only (``str.splitlines`` also splits on U+2028, U+0085, form feeds ...).
"""

from __future__ import annotations

import errno
import os
import re
import stat
from collections.abc import Mapping

__all__ = ["NotRegular", "TooLarge", "WriteError", "read_regular", "split_lines", "write_all", "write_atomic"]


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


def _temp_beside(path: str, data: bytes, sync: bool = True) -> str:
    """``data`` in a new file in ``path``'s directory, flushed to disk; its name."""
    directory = os.path.dirname(os.path.abspath(path)) or "."
    base = os.path.basename(path)
    temp = os.path.join(directory, f".{base}.{os.getpid()}.{os.urandom(4).hex()}.tmp")
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


def write_atomic(path: str, data: bytes | str, encoding: str = "utf-8", sync: bool = True) -> None:
    """Replace ``path``'s content with ``data`` in one step; ``WriteError`` (the file unchanged).
    ``sync=False`` skips the fsync (a cache file: a file cut by a power loss is a miss)."""
    write_all({path: data}, encoding, sync)


def write_all(files: Mapping[str, bytes | str], encoding: str = "utf-8", sync: bool = True) -> None:
    """Replace each file's content, all of them or none; ``WriteError`` names the first that failed.

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
