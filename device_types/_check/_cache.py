"""The incremental cache: module outlines and per-function facts between runs.

A re-check after editing one file parses that file and walks only the functions whose
source changed, plus whatever depends on a summary that changed (``_solver``). The cache
lives under ``.device_types_cache/`` in the directory the check runs from, stamped with a
fingerprint of the engine, the configuration and Python; anything unreadable or from
another fingerprint is ignored (a cold run), never an error.

It is two pickles: the whole state (``check.pickle``), and the modules that changed since
it was written (``check-delta.pickle``: their outlines and every record of theirs), which a
load lays over it. A re-check after a one-file edit writes only the delta, a small part of
the whole; the whole is written again once the delta holds a quarter of the functions, or
when a run changed many modules. A delta names the whole it belongs to (``generation``), so
a delta left beside another whole is ignored.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import pickle
import sys
from dataclasses import dataclass, field

from .._config import Config
from .._finding import Finding
from ._project import Module
from ._solver import FunctionRecord, Key

__all__ = ["CACHE_DIR", "CacheData", "check_settings", "fingerprint", "load", "save"]

CACHE_DIR = ".device_types_cache"
_FILE = "check.pickle"
_DELTA = "check-delta.pickle"
#: The delta is folded into the whole once its modules hold this share of the functions.
_DELTA_SHARE = 0.25


@dataclass
class CacheData:
    fingerprint: str
    modules: dict[str, Module] = field(default_factory=dict)
    records: dict[Key, FunctionRecord] = field(default_factory=dict)
    #: Of the whole file: the delta written beside it carries the same.
    generation: str = ""
    #: Each checked module's findings, with what they were computed for (the host-sync
    #: option and the backends): valid while all of the module's records are kept.
    findings: dict[str, tuple[object, list[Finding]]] = field(default_factory=dict)
    #: Modules whose outline and records the delta holds (they changed since the whole).
    delta_modules: frozenset[str] = frozenset()


@dataclass
class _Delta:
    fingerprint: str
    generation: str
    modules: dict[str, Module]
    #: Every record of each of ``modules``.
    records: dict[Key, FunctionRecord]
    findings: dict[str, tuple[object, list[Finding]]] = field(default_factory=dict)


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
    engine = os.path.dirname(os.path.realpath(__file__))
    sources = [os.path.join(engine, n) for n in os.listdir(engine) if n.endswith(".py")]
    package = os.path.dirname(engine)
    for source in sorted([*sources, os.path.join(package, "_semantics.py"), os.path.join(package, "_vocabulary.py")]):
        with open(source, "rb") as handle:
            digest.update(handle.read())
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
    data = _read(os.path.join(directory, CACHE_DIR, _FILE))
    if not isinstance(data, CacheData) or data.fingerprint != expected:
        return CacheData(expected)
    delta = _read(os.path.join(directory, CACHE_DIR, _DELTA))
    if isinstance(delta, _Delta) and delta.fingerprint == expected and delta.generation == data.generation:
        names = frozenset(delta.modules)
        data.modules.update(delta.modules)
        data.records = {k: r for k, r in data.records.items() if k[0] not in names}
        data.records.update(delta.records)
        data.findings = {n: f for n, f in data.findings.items() if n not in names}
        data.findings.update(delta.findings)
        data.delta_modules = names
    return data


def _read(path: str) -> object:
    try:
        with open(path, "rb") as handle:
            return pickle.load(handle)
    except Exception:  # noqa: BLE001 - a missing or stale cache is a cold run, whatever went wrong
        return None


def save(directory: str, old: CacheData, modules: dict[str, Module], changed: set[str],
         records: dict[Key, FunctionRecord], updated: set[str] | None = None,
         findings: dict[str, tuple[object, list[Finding]]] | None = None) -> None:
    """Write the state after a run: ``old`` with the ``changed`` modules' records replaced by
    ``records``. ``updated`` names the modules whose outline, records or findings this run
    made new (None: unknown, write the whole, and no findings); with none, nothing is
    written. ``findings``: the modules' findings computed this run."""
    if updated is not None and not updated and not changed:
        return
    merged = {k: r for k, r in old.records.items() if k[0] not in changed}
    merged.update(records)
    all_modules = {**old.modules, **modules}
    # a module's findings stay only as long as the records they were computed from
    kept_findings = {} if updated is None else {
        n: f for n, f in old.findings.items() if n not in changed and n not in updated}
    kept_findings.update(findings or {})
    if updated is not None and old.generation:
        in_delta = old.delta_modules | updated | changed
        share = sum(len(all_modules[n].functions) for n in in_delta if n in all_modules)
        if share <= _DELTA_SHARE * max(1, sum(len(m.functions) for m in all_modules.values())):
            delta = _Delta(old.fingerprint, old.generation, {n: all_modules[n] for n in in_delta if n in all_modules},
                           {k: r for k, r in merged.items() if k[0] in in_delta},
                           {n: kept_findings[n] for n in in_delta if n in kept_findings})
            _write(directory, _DELTA, delta)
            return
    _write(directory, _FILE, CacheData(old.fingerprint, all_modules, merged, os.urandom(8).hex(), findings=kept_findings))
    try:
        os.remove(os.path.join(directory, CACHE_DIR, _DELTA))
    except OSError:
        pass


def _write(directory: str, name: str, data: object) -> None:
    target = os.path.join(directory, CACHE_DIR)
    try:
        os.makedirs(target, exist_ok=True)
        gitignore = os.path.join(target, ".gitignore")
        if not os.path.exists(gitignore):
            with open(gitignore, "w", encoding="utf-8") as handle:
                handle.write("# created by device-types check\n*\n")
        import tempfile  # only when writing: a re-check that changed nothing never imports it

        fd, temp = tempfile.mkstemp(dir=target, suffix=".tmp")
        with os.fdopen(fd, "wb") as handle:
            pickle.dump(data, handle, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(temp, os.path.join(target, name))
    except OSError:
        pass  # a read-only tree still gets its findings
