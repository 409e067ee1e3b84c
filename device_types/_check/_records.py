"""What the cache keeps of one function (``FunctionRecord``), and when things last changed
(``RunTokens``): the unit a re-check adopts instead of walking, and what tells it when not to.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from ._codec import CodecError
from ._walk import Facts
from ._summary import EMPTY_SUMMARY, Summary

if TYPE_CHECKING:
    from ._codec import Decoder, Encoder

__all__ = ["Deferred", "FunctionRecord", "Key", "Looked", "RunTokens"]

Key = tuple[str, str]
#: Names looked up, by module: ((module, (name, ...)), ...); see ``_project.meaning``.
Looked = tuple[tuple[str, tuple[str, ...]], ...]
#: A module left unopened unless needed: its file, every function its cached records saw,
#: every name they looked up, and the run that last found them all current.
Deferred = tuple[str, frozenset[Key], Looked, int]


class RunTokens:
    """When things last changed, by run: a record (or a module's findings) made in run N is
    stale where a name it looked up, or a summary it saw, changed in a later run. The cache
    keeps them, so that a module checked in an earlier run than its helper's change (another
    subset of the tree was checked in between) is not taken as current."""

    def __init__(self, run: int = 1, names: dict[str, dict[str, int]] | None = None,
                 summaries: dict[Key, int] | None = None) -> None:
        #: This run's number (the cache's last run + 1; a session counts on from there).
        self.run = run
        #: module -> name (as ``_project.meaning`` takes it; "*": every name) -> the run it
        #: last changed meaning in.
        self.names: dict[str, dict[str, int]] = names or {}
        #: function -> the run its summary last changed in.
        self.summaries: dict[Key, int] = summaries or {}

    def names_changed(self, module: str, names: frozenset[str] | None) -> None:
        changed = self.names.setdefault(module, {})
        for name in names if names is not None else ("*",):
            changed[name] = self.run

    def summaries_current(self, keys: Iterable[Key], since: int) -> bool:
        """Whether no summary of ``keys`` changed after run ``since``."""
        changed = self.summaries
        return all(changed.get(key, 0) <= since for key in keys)

    def name_current(self, module: str, names: tuple[str, ...], since: int) -> bool:
        changed = self.names.get(module)
        if not changed:
            return True
        return changed.get("*", 0) <= since and all(changed.get(name, 0) <= since for name in names)


class FunctionRecord:
    """What the cache keeps of one function: valid while its source and line are the same.

    A record read from a cache file keeps two documents of that file (``_codec``) undecoded
    until used: its *core* (its summary, the summaries it saw, the names it looked up) and its
    facts. A re-check decodes the cores of the records it adopts and the facts of the
    functions it walks, moves or reports anew, and the file that replaces this one copies
    each document that did not change as it was read: a record kept as it was, or moved by an
    edit above it (``origin``) without a change to that part."""

    __slots__ = ("source_hash", "line", "run", "_summary", "_seen", "_looked", "_facts", "_decoder", "_core",
                 "_facts_doc", "_origin")

    def __init__(self, source_hash: str, line: int, facts: Facts | None, summary: Summary, seen: dict[Key, Summary],
                 looked: Looked = (), run: int = 0, origin: FunctionRecord | None = None) -> None:
        self.source_hash = source_hash
        self.line = line
        #: The run that made it: walked it, or moved it and checked what it saw (``RunTokens``).
        self.run = run
        self._summary: Summary | None = summary
        self._seen: dict[Key, Summary] | None = seen
        self._looked: Looked | None = looked
        self._facts: Facts | None = facts
        #: The file it was read from, and its two documents there.
        self._decoder: Decoder | None = None
        self._core = self._facts_doc = -1
        #: The record it was moved from (an edit above it), whose documents it may share.
        self._origin = origin

    @property
    def from_file(self) -> bool:
        """Read from a cache file (its documents are there)."""
        return self._decoder is not None

    @property
    def origin(self) -> FunctionRecord | None:
        return self._origin

    @property
    def summary(self) -> Summary:
        if self._summary is None:
            self._read_core()
        assert self._summary is not None
        return self._summary

    @property
    def seen(self) -> dict[Key, Summary]:
        """The summary of each callee as this function's walk saw it."""
        if self._seen is None:
            self._read_core()
        assert self._seen is not None
        return self._seen

    @property
    def looked(self) -> Looked:
        """The names its walk looked up, by module (``_project.meaning``): valid while each
        means what it meant."""
        if self._looked is None:
            self._read_core()
        assert self._looked is not None
        return self._looked

    @property
    def facts(self) -> Facts:
        """The facts; a stored document that does not read back as ``Facts`` raises
        ``_codec.CodecError`` (the check then runs again without the cache)."""
        if self._facts is None:
            if self._decoder is None:
                raise CodecError("a record without facts")
            facts = self._decoder.document(self._facts_doc)
            if not isinstance(facts, Facts):
                raise CodecError("a record whose facts are not facts")
            self._facts = facts
        return self._facts

    def _read_core(self) -> None:
        """Decode the core document: ``[summary, [module, qualname, summary, ...], [module,
        [name, ...], ...]]`` (flat lists: no tag to decode for each key and name; each
        summary a text of its own, decoded once per file: ``_summary_text``)."""
        decoder = self._decoder
        if decoder is None:
            raise CodecError("a record without its summaries")
        core = decoder.document(self._core)
        if not (type(core) is list and len(core) == 3 and type(core[1]) is list and len(core[1]) % 3 == 0
                and type(core[2]) is list and len(core[2]) % 2 == 0):
            raise CodecError("a record whose core is not one")
        text, flat_seen, flat_looked = core
        summary = _summary_of(decoder, text)
        seen: dict[Key, Summary] = {}
        for at in range(0, len(flat_seen), 3):
            module, qualname, text = flat_seen[at:at + 3]
            if not (type(module) is str and type(qualname) is str):
                raise CodecError("a record whose seen summaries are not")
            seen[(module, qualname)] = _summary_of(decoder, text)
        looked = []
        shared = decoder.shared
        for at in range(0, len(flat_looked), 2):
            module, names = flat_looked[at], flat_looked[at + 1]
            if not (type(module) is str and type(names) is list and all(type(n) is str for n in names)):
                raise CodecError("a record whose looked-up names are not")
            looked.append(shared((module, shared(tuple(names)))))
        self._summary, self._seen, self._looked = summary, seen, shared(tuple(looked))

    def stored(self, encoder: Encoder) -> list[object]:
        """What the cache file holds of it (``from_stored`` reads it back): its documents
        copied where they are the ones read from the file ``encoder`` replaces."""
        seed = encoder.seed
        core = facts = -1
        if seed is not None:
            if self._decoder is seed:  # read from that file (and never changed: records are not)
                core, facts = encoder.copy(self._core), encoder.copy(self._facts_doc)
            else:
                origin = self._origin
                if origin is not None and origin._decoder is seed:  # moved: what the move left alone
                    if (self._summary is origin._summary and self._looked is origin._looked
                            and _same_summaries(self._seen, origin._seen)):
                        core = encoder.copy(origin._core)
                    if origin._facts is not None and self._facts == origin._facts:
                        facts = encoder.copy(origin._facts_doc)
        if core < 0:
            flat_seen: list[object] = []
            for (module, qualname), callee in self.seen.items():
                flat_seen += (module, qualname, _summary_text(encoder, callee))
            flat_looked: list[object] = []
            for module, names in self.looked:
                flat_looked += (module, list(names))
            core = encoder.document([_summary_text(encoder, self.summary), flat_seen, flat_looked])
        if facts < 0:
            facts = encoder.document(self.facts)
        return [self.source_hash, self.line, self.run, core, facts]

    @classmethod
    def from_stored(cls, state: object, decoder: Decoder) -> FunctionRecord | None:
        """A record read back from ``stored``'s list; None when the list is not one (its
        documents are checked when first read)."""
        if not (type(state) is list and len(state) == 5):
            return None
        source_hash, line, run, core, facts = state
        documents = len(decoder.documents)
        if not (type(source_hash) is str and type(line) is int and type(run) is int and type(core) is int
                and type(facts) is int and 0 <= core < documents and 0 <= facts < documents):
            return None
        record = cls.__new__(cls)
        record.source_hash, record.line, record.run = source_hash, line, run
        record._summary = record._seen = record._looked = record._facts = None
        record._decoder, record._core, record._facts_doc, record._origin = decoder, core, facts, None
        return record


def _summary_text(encoder: Encoder, summary: Summary) -> str:
    """"" for the summary of most functions (``EMPTY_SUMMARY``), else its JSON text."""
    return "" if summary is EMPTY_SUMMARY else encoder.text(summary)


def _summary_of(decoder: Decoder, text: object) -> Summary:
    if text == "":
        return EMPTY_SUMMARY
    summary = decoder.text(text)
    if not isinstance(summary, Summary):
        raise CodecError("a summary that is not one")
    return summary


def _same_summaries(one: dict[Key, Summary] | None, other: dict[Key, Summary] | None) -> bool:
    """The same callees, each with the same summary object (the cheap test: a moved record's
    summaries are its origin's, or new objects)."""
    if one is None or other is None or len(one) != len(other):
        return False
    return all(other.get(key) is summary for key, summary in one.items())
