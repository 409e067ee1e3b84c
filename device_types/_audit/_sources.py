"""Backend code: which directories are backends, and what their Python files hold.

A backend is configured as a dotted module prefix (``[tool.device_types] backends``) and
found as a package directory or module file under the root or ``root/src``. Without a
configuration every ``*/_backends/{mps,cuda,npu}`` directory under the root is a backend,
named by its directory. Files are read once; only those whose bytes mention
"re-enable" are tokenized, which keeps a 10k-file tree to about a second.
"""

from __future__ import annotations

import io
import os
import re
import tokenize
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Final

from .._config import Config, default_backend_device
from .._files import NotRegular, TooLarge, read_regular
from ._findings import AuditError
from ._markers import Marker, find_markers, may_hold_marker

#: Backend directories looked for when no backends are configured.
#: Directories never walked: tool caches, environments and build copies of the package
#: (a build/lib copy of a backend would count every marker twice).
_SKIPPED_DIRS: Final = frozenset(
    {"__pycache__", "node_modules", "site-packages", "build", "dist", "venv", "env"}
)
# ``def name`` at the start of a line; a regex on bytes rather than a parse, because every
# backend file is looked at and only marker files are worth tokenizing.
_DEF: Final = re.compile(rb"^[ \t]*(?:async[ \t]+)?def[ \t]+([A-Za-z_][A-Za-z0-9_]*)", re.MULTILINE)


@dataclass(frozen=True)
class FoundMarker:
    path: str  # relative to the root, with forward slashes
    marker: Marker


@dataclass
class BackendCode:
    device: str
    #: Backend directories (or module files), relative to the root.
    locations: list[str] = field(default_factory=list)
    files: int = 0
    markers: list[FoundMarker] = field(default_factory=list)
    #: Names of every function defined in the backend (for the composite check).
    defined: set[str] = field(default_factory=set)
    #: (path, line, reason) of files that could not be read, decoded or parsed.
    unreadable: list[tuple[str, int, str]] = field(default_factory=list)


def locate_backends(root: str, config: Config) -> list[tuple[str, str]]:
    """(device, absolute path) of every backend directory or module file."""
    if config.backends:
        return [(device, _locate_module(root, prefix, device, config)) for prefix, device in config.backends.items()]
    found: list[tuple[str, str]] = []
    for directory, subdirectories, _ in _walk(root):
        parent = os.path.basename(directory)
        for name in subdirectories:
            device = default_backend_device(parent, name)
            if device is not None:
                found.append((device, os.path.join(directory, name)))
    return sorted(found, key=lambda item: item[1])


def scan_backends(root: str, locations: list[tuple[str, str]]) -> dict[str, BackendCode]:
    """Markers and function names of every backend, keyed by device."""
    backends: dict[str, BackendCode] = {}
    seen: set[str] = set()
    # Deepest location first, so a file in a nested backend belongs to that backend.
    for device, location in sorted(locations, key=lambda item: len(item[1]), reverse=True):
        code = backends.setdefault(device, BackendCode(device))
        code.locations.append(relative(root, location))
        for path in _python_files(location):
            if path in seen:
                continue
            seen.add(path)
            code.files += 1
            _scan_file(root, path, code)
    for code in backends.values():
        code.locations.sort()
    return backends


def relative(root: str, path: str) -> str:
    rel = os.path.relpath(path, root)
    return path if rel.startswith("..") else rel.replace(os.sep, "/")


#: The check's limit for one file (a generated table is not backend code).
MAX_SOURCE_BYTES = 4 * 1024 * 1024


def _scan_file(root: str, path: str, code: BackendCode) -> None:
    rel = relative(root, path)
    try:
        data = read_regular(path, MAX_SOURCE_BYTES)
    except TooLarge as exc:
        code.unreadable.append((rel, 1, f"skipped: {exc.size // 1024} KiB is over the "
                                        f"{MAX_SOURCE_BYTES // 1024 // 1024} MiB limit for one file"))
        return
    except NotRegular:
        code.unreadable.append((rel, 1, "skipped: not a regular file"))
        return
    except OSError as exc:
        code.unreadable.append((rel, 1, f"cannot read the file ({exc.strerror or exc})"))
        return
    code.defined.update(name.decode("ascii") for name in _DEF.findall(data))
    if not may_hold_marker(data):
        return
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError:
        encoding = "utf-8"  # a bad cookie or bad bytes: decoding says where it goes wrong
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        code.unreadable.append((rel, line, f"not valid {exc.encoding.upper()} (byte {data[exc.start]:#04x})"))
        return
    try:
        markers = find_markers(text.lstrip("\ufeff"))
    except SyntaxError as exc:
        code.unreadable.append((rel, exc.lineno or 1, f"not valid Python ({exc.msg})"))
        return
    except tokenize.TokenError as exc:
        message, (line, _) = exc.args
        code.unreadable.append((rel, line, f"not valid Python ({message})"))
        return
    except (RecursionError, MemoryError):
        code.unreadable.append((rel, 1, "nested too deeply to parse"))
        return
    code.markers.extend(FoundMarker(rel, m) for m in markers)


def _locate_module(root: str, prefix: str, device: str, config: Config) -> str:
    parts = prefix.split(".")
    tried = []
    for base in (root, os.path.join(root, "src")):
        candidate = os.path.join(base, *parts)
        if os.path.isdir(candidate):
            return candidate
        if os.path.isfile(candidate + ".py"):
            return candidate + ".py"
        tried.append(relative(root, candidate))
    source = relative(root, config.source) if config.source else "the configuration"
    raise AuditError(
        f"{source}: backend {prefix!r} ({device}) is not under {root} "
        f"(looked for {tried[0]}/ and {tried[1]}/); fix the module prefix or pass --root"
    )


def _python_files(location: str) -> list[str]:
    if os.path.isfile(location):
        return [location]
    return sorted(
        os.path.join(directory, name)
        for directory, _, files in _walk(location)
        for name in files
        if name.endswith(".py")
    )


def _walk(top: str) -> Iterator[tuple[str, list[str], list[str]]]:
    for directory, subdirectories, files in os.walk(top):
        subdirectories[:] = sorted(
            d for d in subdirectories if not d.startswith(".") and d not in _SKIPPED_DIRS
        )
        yield directory, subdirectories, files
