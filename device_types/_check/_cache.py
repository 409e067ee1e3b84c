"""The incremental cache: per module, its outline, its functions' records and its findings.

A re-check after editing one file parses that file and walks only the functions whose
source changed, plus whatever depends on a summary that changed (``_solver``). The cache
lives under ``.device_types_cache/`` in the directory the check runs from, stamped with a
fingerprint of the engine, the configuration and Python; anything unreadable or from
another fingerprint is ignored (a cold run), never an error.

It is an index (``index.json``) and one file per module (its outline and its functions'
records). The index has, for each module, what a run needs to leave the module unopened:
the file's stamp, its problems, its function count, its findings, and every function its
records saw. A re-check reads the index and opens only the modules it has to look into: an
unchanged file whose records saw no summary that changed this run is not opened
(``Analysis.run``'s ``deferred``). A run writes the files of the modules it changed, then
the index in one step (a reader sees the old one or the new one), then removes the files
that no index names.

The files are JSON (``_codec``), never ``pickle``: a cache directory that came with a
cloned repository or an archive cannot run code, whatever it holds. What is read is
checked (the classes it names, each field's type, the file names in the index): anything
unexpected is a cache miss, and a module's facts that turn out unreadable when first used
make the check run again without the cache (``CodecError``). A module's entry holds the
hash of the file's content (``_project.file_stamp``), not its modification time.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import re
import sys
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field

from .._config import Config
from .._finding import Finding
from .._files import read_regular, write_atomic
from ._codec import CodecError, Decoder, Encoder, dumps, loads
from ._project import Module, SourceProblem, changed_meanings
from ._records import FunctionRecord, Key, Looked, RunTokens

__all__ = ["CACHE_DIR", "CacheData", "CodecError", "ModuleEntry", "check_settings", "fingerprint", "load", "save"]

CACHE_DIR = ".device_types_cache"
_INDEX = "index.json"
_SUFFIX = ".json"
#: A module file's name as the index may give it: in the cache directory, nowhere else.
_BLOB = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*\.json")
#: No cache file is read past this (a file that grows without end is a miss).
_MAX_CACHE_FILE = 256 * 1024 * 1024
#: A module's findings, with what they were computed for (the host-sync option and the backends).
Findings = tuple[object, list[Finding]]


@dataclass
class ModuleEntry:
    """The index's line for one module: enough to use its findings without opening it."""

    path: str
    stamp: tuple[int, int]
    #: The file (in the cache directory) that holds the outline and the records.
    blob: str
    #: Functions the outline has (a run counts them without opening it).
    functions: int
    #: Every function a record of this module saw the summary of (its own included).
    saw: frozenset[Key]
    #: Every name a record of this module looked up, by module.
    looked: Looked = ()
    problems: tuple[SourceProblem, ...] = ()
    #: Valid while all of the module's records are kept.
    findings: Findings | None = None
    #: The last run that found its records and findings current (``RunTokens``).
    checked: int = 0


@dataclass
class _Index:
    fingerprint: str
    entries: dict[str, ModuleEntry]
    #: The last run's number, and when each name and summary last changed (``RunTokens``).
    run: int = 0
    names: dict[str, dict[str, int]] = field(default_factory=dict)
    summaries: dict[Key, int] = field(default_factory=dict)


class CacheData:
    """What a previous run left: the index read at once, each module's file on first use."""

    def __init__(self, fingerprint: str, directory: str = "", index: _Index | None = None) -> None:
        self.fingerprint = fingerprint
        self.directory = directory
        self.entries: dict[str, ModuleEntry] = index.entries if index is not None else {}
        self._index = index
        self._opened: dict[str, tuple[Module, dict[str, FunctionRecord]] | None] = {}
        #: The decoder of each module file read (its tables seed the file that replaces it).
        self.decoders: dict[str, Decoder] = {}
        #: The outlines and the records, opening a module's file when one of them is asked for.
        self.modules: Mapping[str, Module] = _Outlines(self)
        self.records: Mapping[Key, FunctionRecord] = _Records(self)

    def tokens(self) -> RunTokens:
        """The next run's: numbered after the cache's last, with what changed when."""
        index = self._index
        if index is None:
            return RunTokens()
        return RunTokens(index.run + 1, {m: dict(n) for m, n in index.names.items()}, dict(index.summaries))

    @property
    def findings(self) -> dict[str, Findings]:
        return {name: entry.findings for name, entry in self.entries.items() if entry.findings is not None}

    def opened(self, name: str) -> tuple[Module, dict[str, FunctionRecord]] | None:
        """The module's outline and records (None: not cached, or its file is unreadable)."""
        if name in self._opened:
            return self._opened[name]
        entry = self.entries.get(name)
        held = None
        if entry is not None:
            read = _read(os.path.join(self.directory, CACHE_DIR, entry.blob))
            if read is not None:
                data, decoder = read
                held = _module_and_records(data, name, decoder)
                if held is not None:
                    self.decoders[name] = decoder
        self._opened[name] = held
        return held

    def records_of(self, name: str) -> dict[str, FunctionRecord]:
        held = self.opened(name)
        return held[1] if held is not None else {}


class _Outlines(Mapping[str, Module]):
    def __init__(self, cache: CacheData) -> None:
        self._cache = cache

    def __getitem__(self, name: str) -> Module:
        held = self._cache.opened(name)
        if held is None:
            raise KeyError(name)
        return held[0]

    def __contains__(self, name: object) -> bool:
        """Whether the cache knew the module, read or not (its file may turn out unreadable,
        and ``get`` then gives None): what ``Project.rewritten`` asks of a module that is gone."""
        return name in self._cache.entries

    def get(self, name: str, default: Module | None = None) -> Module | None:  # type: ignore[override]
        held = self._cache.opened(name)
        return held[0] if held is not None else default

    def stamp_of(self, name: str) -> tuple[str, tuple[int, int]] | None:
        """The cached file and stamp of ``name``, without opening its file."""
        entry = self._cache.entries.get(name)
        return None if entry is None else (entry.path, entry.stamp)

    def __iter__(self) -> Iterator[str]:
        return (name for name in list(self._cache.entries) if self._cache.opened(name) is not None)

    def __len__(self) -> int:
        return len(self._cache.entries)


class _Records(Mapping[Key, FunctionRecord]):
    def __init__(self, cache: CacheData) -> None:
        self._cache = cache

    def __getitem__(self, key: Key) -> FunctionRecord:
        return self._cache.records_of(key[0])[key[1]]

    def get(self, key: Key, default: FunctionRecord | None = None) -> FunctionRecord | None:  # type: ignore[override]
        return self._cache.records_of(key[0]).get(key[1], default)

    def __iter__(self) -> Iterator[Key]:
        return ((name, qualname) for name in list(self._cache.entries) for qualname in self._cache.records_of(name))

    def __len__(self) -> int:
        return sum(entry.functions for entry in self._cache.entries.values())


def check_settings(config: Config) -> tuple[object, ...]:
    """What the facts depend on besides the sources: one list for the CLI and the server."""
    check = config.check
    return (sorted(config.backends.items()), check.cpu_backends, check.readbacks, check.uploads,
            getattr(check, "vocabulary", None))


def fingerprint(settings: object) -> str:
    """Engine sources + ``settings`` (backends, declared helpers) + Python: what the facts depend on.

    The engine is every module of the package and of the check (the code registry's message
    templates, the op-semantics table and the host vocabulary included): a finding's text
    or a fact that any of them shapes is never taken from a cache an older engine wrote."""
    digest = hashlib.blake2b(digest_size=16)
    digest.update(repr(_canonical(settings)).encode())
    digest.update(sys.version.encode())
    engine = os.path.dirname(os.path.realpath(__file__))
    package = os.path.dirname(engine)
    # the check's subpackages (the walk, the rules) are engine too
    folders = [package] + [d for d, _, _ in os.walk(engine) if "__pycache__" not in d]
    sources = [os.path.join(d, n) for d in folders for n in os.listdir(d) if n.endswith(".py")]
    for source in sorted(sources):
        with open(source, "rb") as handle:
            digest.update(source[len(package):].encode())
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
    read = _read(os.path.join(directory, CACHE_DIR, _INDEX))
    index = read[0] if read is not None else None
    if not isinstance(index, _Index) or index.fingerprint != expected \
            or not all(_BLOB.fullmatch(e.blob) for e in index.entries.values()):
        return CacheData(expected, directory)
    return CacheData(expected, directory, index)


def _read(path: str) -> tuple[object, Decoder] | None:
    """What a cache file holds (and its decoder); None for anything unexpected: a cache miss."""
    try:
        return loads(read_regular(path, _MAX_CACHE_FILE))
    except (OSError, CodecError, MemoryError):
        return None


def _module_and_records(data: object, name: str, decoder: Decoder) -> tuple[Module, dict[str, FunctionRecord]] | None:
    if not (type(data) is tuple and len(data) == 2 and isinstance(data[0], Module) and data[0].name == name
            and type(data[1]) is dict):
        return None
    records: dict[str, FunctionRecord] = {}
    for qualname, state in data[1].items():
        record = FunctionRecord.from_stored(state, decoder)
        if type(qualname) is not str or record is None:
            return None
        records[qualname] = record
    return data[0], records


def save(directory: str, old: CacheData, modules: dict[str, Module], changed: set[str],
         records: Mapping[Key, FunctionRecord], tokens: RunTokens, checked: Iterable[str],
         updated: set[str] | None = None, findings: dict[str, Findings] | None = None) -> None:
    """Write the state after a run: ``old`` with the ``changed`` modules' records replaced by
    ``records`` (the run's, of the modules it opened). ``updated`` names the modules whose
    outline, records or findings this run made new (None: unknown, write every module of
    ``modules``, with no findings); with none, nothing is written. ``findings``: the
    modules' findings computed this run; ``checked``: the modules whose records and
    findings this run found current (``tokens.run`` is then their last check)."""
    if updated is not None and not updated and not changed:
        return
    by_module: dict[str, dict[str, FunctionRecord]] = {}
    for (name, qualname), record in records.items():
        by_module.setdefault(name, {})[qualname] = record
    written = set(modules) if updated is None else {n for n in updated | changed if n in modules}
    entries = {n: e for n, e in old.entries.items() if n not in written}
    for name in written:  # what a name of a rewritten outline means now, for records made before
        before = old.opened(name)
        meanings = changed_meanings(before[0] if before is not None else None, modules[name])
        if meanings is None or meanings:
            tokens.names_changed(name, meanings)
    target = os.path.join(directory, CACHE_DIR)
    try:
        _prepare(target)
        for name in sorted(written):
            kept = {} if name in changed else old.records_of(name)
            held = {**kept, **by_module.get(name, {})}
            entries[name] = _write_module(target, modules[name], held, old, (findings or {}).get(name),
                                          name in changed)
        for name in checked:
            entry = entries.get(name)
            if entry is not None:
                entry.checked = tokens.run
        _write(target, _INDEX, _Index(old.fingerprint, entries, tokens.run, tokens.names, tokens.summaries))
    except OSError:
        return  # a read-only tree still gets its findings
    named = {entry.blob for entry in entries.values()}
    try:
        for stale in os.listdir(target):  # and the pickles of versions before 0.x (never read)
            if (stale.endswith((_SUFFIX, ".pickle")) and stale != _INDEX and stale not in named
                    and not os.path.islink(os.path.join(target, stale))):
                os.remove(os.path.join(target, stale))
    except OSError:
        pass


def _write_module(target: str, module: Module, records: dict[str, FunctionRecord], old: CacheData,
                  findings: Findings | None, changed: bool) -> ModuleEntry:
    """``module``'s file (its outline and ``records``), and its line for the index."""
    previous = old.entries.get(module.name)
    if findings is None and previous is not None and not changed and _same_records(old, module.name, records):
        findings = previous.findings  # a new stamp only: the findings still hold
    blob = f"{module.name}.{os.urandom(6).hex()}{_SUFFIX}"
    encoder = Encoder(old.decoders.get(module.name))
    _write(target, blob, (module, {q: r.stored(encoder) for q, r in records.items()}), encoder)
    saw = frozenset(key for record in records.values() for key in record.seen)
    return ModuleEntry(module.path, module.stamp, blob, len(module.functions), saw,
                       _merged(record.looked for record in records.values()), tuple(module.problems), findings,
                       previous.checked if previous is not None else 0)


def _merged(parts: Iterable[Looked]) -> Looked:
    names: dict[str, set[str]] = {}
    for looked in parts:
        for module, looked_up in looked:
            names.setdefault(module, set()).update(looked_up)
    return tuple((module, tuple(sorted(names[module]))) for module in sorted(names))


def _same_records(old: CacheData, name: str, held: dict[str, FunctionRecord]) -> bool:
    kept = old.records_of(name)
    return kept.keys() == held.keys() and all(kept[q] is r for q, r in held.items())


def _prepare(target: str) -> None:
    os.makedirs(target, exist_ok=True)
    gitignore = os.path.join(target, ".gitignore")
    if not os.path.lexists(gitignore):
        write_atomic(gitignore, "# created by device-types check\n*\n", sync=False)


def _write(target: str, name: str, data: object, encoder: Encoder | None = None) -> None:
    """``data`` into ``target/name`` in one step (``_files.write_atomic``)."""
    try:
        raw = dumps(data, encoder)
    except (CodecError, RecursionError) as exc:
        raise OSError(f"cannot store {name}: {exc}") from None
    write_atomic(os.path.join(target, name), raw, sync=False)
