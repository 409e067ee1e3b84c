"""The incremental cache: module outlines and per-function facts between runs.

A re-check after editing one file parses that file and walks only the functions whose
source changed, plus whatever depends on a summary that changed (``_solver``). The cache is
one pickle under ``.device_types_cache/`` in the directory the check runs from, stamped with
a fingerprint of the engine, the configuration and Python; anything unreadable or from
another fingerprint is ignored (a cold run), never an error.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import pickle
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from .._config import Config
from ._project import Module
from ._solver import FunctionRecord, Key

__all__ = ["CACHE_DIR", "CacheData", "check_settings", "fingerprint", "load", "save"]

CACHE_DIR = ".device_types_cache"
_FILE = "check.pickle"


@dataclass
class CacheData:
    fingerprint: str
    modules: dict[str, Module] = field(default_factory=dict)
    records: dict[Key, FunctionRecord] = field(default_factory=dict)


def check_settings(config: Config) -> tuple[object, ...]:
    """What the facts depend on besides the sources: one list for the CLI and the server."""
    check = config.check
    return (sorted(config.backends.items()), check.cpu_backends, check.readbacks, check.uploads,
            getattr(check, "vocabulary", None))


def fingerprint(settings: object) -> str:
    """Engine sources + ``settings`` (backends, declared helpers) + Python: what the facts depend on."""
    digest = hashlib.blake2b(digest_size=16)
    digest.update(repr(_canonical(settings)).encode())
    digest.update(sys.version.encode())
    engine = Path(__file__).resolve().parent
    for source in sorted([*engine.glob("*.py"), engine.parent / "_semantics.py"]):
        digest.update(source.read_bytes())
    return digest.hexdigest()


def _canonical(value: object) -> object:
    """``value`` with its sets sorted: a set's order (and so its repr) changes with each
    process's string hashing, which would make every run's fingerprint new."""
    if isinstance(value, (set, frozenset)):
        return ("set", sorted((_canonical(v) for v in value), key=repr))
    if isinstance(value, dict):
        return ("dict", sorted(((repr(_canonical(k)), _canonical(v)) for k, v in value.items()), key=repr))
    if isinstance(value, (list, tuple)):
        return type(value).__name__, [_canonical(v) for v in value]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return type(value).__name__, [(f.name, _canonical(getattr(value, f.name))) for f in dataclasses.fields(value)]
    return value


def load(directory: str, expected: str) -> CacheData:
    path = os.path.join(directory, CACHE_DIR, _FILE)
    try:
        with open(path, "rb") as handle:
            data = pickle.load(handle)
    except Exception:  # noqa: BLE001 - a missing or stale cache is a cold run, whatever went wrong
        return CacheData(expected)
    if not isinstance(data, CacheData) or data.fingerprint != expected:
        return CacheData(expected)
    return data


def save(directory: str, old: CacheData, modules: dict[str, Module], changed: set[str],
         records: dict[Key, FunctionRecord]) -> None:
    merged = {k: r for k, r in old.records.items() if k[0] not in changed}
    merged.update(records)
    data = CacheData(old.fingerprint, {**old.modules, **modules}, merged)
    target = os.path.join(directory, CACHE_DIR)
    try:
        os.makedirs(target, exist_ok=True)
        gitignore = os.path.join(target, ".gitignore")
        if not os.path.exists(gitignore):
            with open(gitignore, "w", encoding="utf-8") as handle:
                handle.write("# created by device-types check\n*\n")
        fd, temp = tempfile.mkstemp(dir=target, suffix=".tmp")
        with os.fdopen(fd, "wb") as handle:
            pickle.dump(data, handle, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(temp, os.path.join(target, _FILE))
    except OSError:
        pass  # a read-only tree still gets its findings
