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

Each file is a body and documents (``_codec``). A module's file: its outline (tables as flat
lists, ``_outline_state``) and, for each function, ``[source hash, line, run, core, facts]``
where the core (summaries, names looked up) and the facts are documents, decoded when first
used. The index: the fingerprint, the run, and for each module its document and its last
check; the tables of when names and summaries changed are documents too. A run that rewrites
a file copies the documents that did not change from the file it replaces (a kept record,
an unchanged module's entry), so an edit pays for what it changed, not for the whole file.
"""

from __future__ import annotations

import ast
import dataclasses
import os
import re
import sys
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field

try:  # hashlib's blake2b itself, without hashlib's loading of OpenSSL (about 3 ms of every run)
    from _blake2 import blake2b
except ImportError:  # another Python than CPython
    from hashlib import blake2b

from .._config import Config
from .._finding import Finding
from .._files import leftover, read_regular, write_atomic
from ._codec import CodecError, Decoder, Encoder, dumps, loads
from ._project import Def, FunctionInfo, Module, SourceProblem, changed_meanings
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
    """The index file as read: each module's entry, and when names and summaries last changed."""

    fingerprint: str
    entries: dict[str, ModuleEntry]
    #: The last run's number, and when each name and summary last changed (``RunTokens``).
    run: int = 0
    names: dict[str, dict[str, int]] = field(default_factory=dict)
    summaries: dict[Key, int] = field(default_factory=dict)
    #: The file it was read from, and where in it each part is (``_write_index`` copies the
    #: parts that did not change): each entry's document, the names', the summaries'.
    decoder: Decoder | None = field(default=None, repr=False, compare=False)
    documents: dict[str, tuple[ModuleEntry, int]] = field(default_factory=dict, repr=False, compare=False)
    tables: tuple[int, int] = field(default=(-1, -1), repr=False, compare=False)


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

    @property
    def index(self) -> _Index | None:
        """The index as read (None: there was none, or it was not this engine's)."""
        return self._index

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
    digest = blake2b(digest_size=16)
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
    try:
        index = _index_from(read[0], read[1], expected) if read is not None else None
    except CodecError:
        index = None
    if index is None:
        return CacheData(expected, directory)
    return CacheData(expected, directory, index)


def _index_from(body: object, decoder: Decoder, expected: str) -> _Index | None:
    """The index file read back (``_write_index``); None when it is another engine's (its
    fingerprint) or anything in it is not what that writes."""
    if not (type(body) is list and len(body) == 5 and body[0] == expected and type(body[1]) is int
            and type(body[4]) is list and len(body[4]) % 3 == 0):
        return None
    _, run, names_doc, summaries_doc, flat = body
    entries: dict[str, ModuleEntry] = {}
    documents: dict[str, tuple[ModuleEntry, int]] = {}
    for at in range(0, len(flat), 3):
        name, doc, checked = flat[at:at + 3]
        if not (type(name) is str and type(checked) is int):
            return None
        entry = _entry_from(decoder.document(doc), checked)
        if entry is None:
            return None
        entries[name] = entry
        documents[name] = (entry, doc)
    names = _names_from(decoder.document(names_doc))
    summaries = _summaries_from(decoder.document(summaries_doc))
    if names is None or summaries is None:
        return None
    return _Index(expected, entries, run, names, summaries, decoder, documents, (names_doc, summaries_doc))


def _entry_state(entry: ModuleEntry) -> list[object]:
    """A module's line of the index as a document (its ``checked`` is in the index's body: it
    changes with every run, the rest only when the module does)."""
    saw: list[object] = []
    for module, qualname in entry.saw:
        saw += (module, qualname)
    looked: list[object] = []
    for module, names in entry.looked:
        looked += (module, list(names))
    return [entry.path, entry.stamp[0], entry.stamp[1], entry.blob, entry.functions, saw, looked,
            tuple(entry.problems), entry.findings]


def _entry_from(state: object, checked: int) -> ModuleEntry | None:
    if not (type(state) is list and len(state) == 9):
        return None
    path, size, digest, blob, functions, saw, looked, problems, findings = state
    if not (type(path) is str and type(size) is int and type(digest) is int and type(blob) is str
            and _BLOB.fullmatch(blob) and type(functions) is int and type(saw) is list and len(saw) % 2 == 0
            and all(type(x) is str for x in saw) and type(looked) is list and len(looked) % 2 == 0
            and type(problems) is tuple and all(isinstance(p, SourceProblem) for p in problems)
            and (findings is None or (type(findings) is tuple and len(findings) == 2 and type(findings[1]) is list
                                      and all(isinstance(f, Finding) for f in findings[1])))):
        return None
    parts = []
    for at in range(0, len(looked), 2):
        module, names = looked[at], looked[at + 1]
        if not (type(module) is str and type(names) is list and all(type(n) is str for n in names)):
            return None
        parts.append((module, tuple(names)))
    return ModuleEntry(path, (size, digest), blob, functions, frozenset(zip(saw[::2], saw[1::2])), tuple(parts),
                       problems, findings, checked)


def _names_from(state: object) -> dict[str, dict[str, int]] | None:
    """``[module, [name, run, ...], ...]``: when each name of each module last changed."""
    if not (type(state) is list and len(state) % 2 == 0):
        return None
    names: dict[str, dict[str, int]] = {}
    for at in range(0, len(state), 2):
        module, flat = state[at], state[at + 1]
        if not (type(module) is str and type(flat) is list and len(flat) % 2 == 0
                and all(type(n) is str and type(r) is int for n, r in zip(flat[::2], flat[1::2]))):
            return None
        names[module] = dict(zip(flat[::2], flat[1::2]))
    return names


def _summaries_from(state: object) -> dict[Key, int] | None:
    """``[module, qualname, run, ...]``: when each function's summary last changed."""
    if not (type(state) is list and len(state) % 3 == 0):
        return None
    summaries: dict[Key, int] = {}
    for at in range(0, len(state), 3):
        module, qualname, run = state[at:at + 3]
        if not (type(module) is str and type(qualname) is str and type(run) is int):
            return None
        summaries[(module, qualname)] = run
    return summaries


def _write_index(target: str, old: CacheData, entries: dict[str, ModuleEntry], tokens: RunTokens) -> None:
    """The index: its body (the fingerprint, the run, each module's document and last check),
    a document per module (copied from the old index where the entry is the one read), the
    names' and the summaries' runs (copied where they did not change)."""
    index = old.index
    seed = index.decoder if index is not None else None
    encoder = Encoder(seed)
    flat: list[object] = []
    for name, entry in entries.items():
        held = index.documents.get(name) if index is not None and seed is not None else None
        doc = encoder.copy(held[1]) if held is not None and held[0] is entry else encoder.document(_entry_state(entry))
        flat += (name, doc, entry.checked)
    if index is not None and seed is not None and tokens.names == index.names:
        names_doc = encoder.copy(index.tables[0])
    else:
        names_flat: list[object] = []
        for module, changed in tokens.names.items():
            runs: list[object] = []
            for name, run in changed.items():
                runs += (name, run)
            names_flat += (module, runs)
        names_doc = encoder.document(names_flat)
    if index is not None and seed is not None and tokens.summaries == index.summaries:
        summaries_doc = encoder.copy(index.tables[1])
    else:
        summaries_flat: list[object] = []
        for (module, qualname), run in tokens.summaries.items():
            summaries_flat += (module, qualname, run)
        summaries_doc = encoder.document(summaries_flat)
    _write(target, _INDEX, [old.fingerprint, tokens.run, names_doc, summaries_doc, flat], encoder)


def _read(path: str) -> tuple[object, Decoder] | None:
    """What a cache file holds (and its decoder); None for anything unexpected: a cache miss."""
    try:
        return loads(read_regular(path, _MAX_CACHE_FILE))
    except (OSError, CodecError, MemoryError):
        return None


def _module_and_records(data: object, name: str, decoder: Decoder) -> tuple[Module, dict[str, FunctionRecord]] | None:
    if not (type(data) is tuple and len(data) == 2 and type(data[1]) is dict):
        return None
    module = _outline_from(data[0], name)
    if module is None:
        return None
    records: dict[str, FunctionRecord] = {}
    for qualname, state in data[1].items():
        record = FunctionRecord.from_stored(state, decoder)
        if type(qualname) is not str or record is None:
            return None
        records[qualname] = record
    return module, records


def _outline_state(module: Module) -> list[object]:
    """What a module file holds of ``module``'s outline: its tables as flat lists of plain
    values (a function is a row, not an object to rebuild with its fields tested one by
    one), its defs, aliases and problems as the codec writes them, the text it was outlined
    from (so that the next run finds an edit by a diff)."""
    rows: list[object] = []
    for info in module.functions.values():
        defaults: list[object] = []
        for parameter, value in info.defaults:
            defaults += (parameter, value)
        rows += (info.qualname, info.class_name, list(info.params), info.vararg, info.kwarg, info.line,
                 info.source_hash, list(info.kwonly), defaults)
    spans: list[object] = []
    for qualname, (first, last) in module.spans.items():
        spans += (qualname, first, last)
    imports: list[object] = []
    for local, target in module.imports.items():
        imports += (local, target)
    source = module.source if module.source is not None or module.lines is None else "\n".join(module.lines)
    return [module.name, module.path, module.is_package, list(module.stamp), imports, module.defs, module.aliases,
            list(module.star_imports), rows, tuple(module.problems), source, spans]


_ROW = 9
_LITERAL = (str, int, float, bool, type(None))


def _outline_from(state: object, name: str) -> Module | None:
    """``_outline_state`` read back; None when anything in it is not what it writes."""
    if not (type(state) is list and len(state) == 12):
        return None
    (module_name, path, is_package, stamp, imports, defs, aliases, star_imports, rows, problems, source,
     spans) = state
    if not (module_name == name and type(path) is str and type(is_package) is bool and type(stamp) is list
            and len(stamp) == 2 and all(type(n) is int for n in stamp) and type(imports) is list
            and len(imports) % 2 == 0 and all(type(x) is str for x in imports)
            and type(defs) is dict and all(type(k) is str and isinstance(v, Def) for k, v in defs.items())
            and type(aliases) is dict and all(type(k) is str and isinstance(v, ast.expr) for k, v in aliases.items())
            and type(star_imports) is list and all(type(x) is str for x in star_imports)
            and type(rows) is list and len(rows) % _ROW == 0 and type(problems) is tuple
            and all(isinstance(p, SourceProblem) for p in problems) and (source is None or type(source) is str)
            and type(spans) is list and len(spans) % 3 == 0):
        return None
    functions: dict[str, FunctionInfo] = {}
    for at in range(0, len(rows), _ROW):
        qualname, class_name, params, vararg, kwarg, line, source_hash, kwonly, flat = rows[at:at + _ROW]
        if not (type(qualname) is str and (class_name is None or type(class_name) is str)
                and type(params) is list and all(type(p) is str for p in params)
                and (vararg is None or type(vararg) is str) and (kwarg is None or type(kwarg) is str)
                and type(line) is int and type(source_hash) is str and type(kwonly) is list
                and all(type(p) is str for p in kwonly) and type(flat) is list and len(flat) % 2 == 0
                and all(type(flat[i]) is str and type(flat[i + 1]) in _LITERAL for i in range(0, len(flat), 2))):
            return None
        defaults = tuple((flat[i], flat[i + 1]) for i in range(0, len(flat), 2))
        functions[qualname] = FunctionInfo(name, qualname, path, class_name, tuple(params), vararg, kwarg, line,
                                           source_hash, tuple(kwonly), defaults)
    table: dict[str, tuple[int, int]] = {}
    for at in range(0, len(spans), 3):
        qualname, first, last = spans[at:at + 3]
        if not (type(qualname) is str and type(first) is int and type(last) is int):
            return None
        table[qualname] = (first, last)
    module = Module(name, path, is_package, (stamp[0], stamp[1]), dict(zip(imports[::2], imports[1::2])), defs,
                    aliases, star_imports, functions, problems)
    module.source, module.spans = source, table
    return module


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
        _write_index(target, old, entries, tokens)
    except OSError:
        return  # a read-only tree still gets its findings
    named = {entry.blob for entry in entries.values()}
    try:
        for stale in os.listdir(target):  # and the pickles of versions before 0.x (never read)
            if (stale.endswith((_SUFFIX, ".pickle")) and stale != _INDEX and stale not in named
                    and not os.path.islink(os.path.join(target, stale))):
                os.remove(os.path.join(target, stale))
            elif stale.endswith(".tmp") and leftover(stale):  # cut by a run that was killed
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
    _write(target, blob, (_outline_state(module), {q: r.stored(encoder) for q, r in records.items()}), encoder)
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
        write_atomic(gitignore, "# created by device-types check\n*\n", sync=False, clean=False)


def _write(target: str, name: str, data: object, encoder: Encoder | None = None) -> None:
    """``data`` into ``target/name`` in one step (``_files.write_atomic``)."""
    try:
        raw = dumps(data, encoder)
    except (CodecError, RecursionError) as exc:
        raise OSError(f"cannot store {name}: {exc}") from None
    write_atomic(os.path.join(target, name), raw, sync=False, clean=False)  # save() sweeps the directory
