"""What the cache keeps of one function (``FunctionRecord``), and when things last changed
(``RunTokens``): the unit a re-check adopts instead of walking, and what tells it when not to.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from ._walk import Facts
from ._summary import Summary

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

    Its facts are stored as a document of their own (``_codec``) and read on first use: a
    re-check reads the facts only of the functions it walks, moves or reports anew, a small
    part of them."""

    __slots__ = ("source_hash", "line", "summary", "seen", "looked", "run", "_facts", "_stored", "_decoder")

    def __init__(self, source_hash: str, line: int, facts: Facts | None, summary: Summary, seen: dict[Key, Summary],
                 looked: Looked = (), run: int = 0, stored: str | None = None, decoder: Decoder | None = None) -> None:
        self.source_hash = source_hash
        self.line = line
        self.summary = summary
        #: The summary of each callee as this function's walk saw it.
        self.seen = seen
        #: The names its walk looked up, by module (``_project.meaning``): valid while each
        #: means what it meant.
        self.looked = looked
        #: The run that made it: walked it, or moved it and checked what it saw (``RunTokens``).
        self.run = run
        self._facts: Facts | None = facts
        #: The facts as the cache file holds them, and the file's decoder (when read from one).
        self._stored = stored
        self._decoder = decoder

    @property
    def facts(self) -> Facts:
        """The facts; a stored document that does not read back as ``Facts`` raises
        ``_codec.CodecError`` (the check then runs again without the cache)."""
        if self._facts is None:
            from ._codec import CodecError

            if self._stored is None or self._decoder is None:
                raise CodecError("a record without facts")
            facts = self._decoder.decode(self._stored)
            if not isinstance(facts, Facts):
                raise CodecError("a record whose facts are not facts")
            self._facts = facts
        return self._facts

    def stored(self, encoder: Encoder) -> tuple[object, ...]:
        """What the cache file holds of it (``from_stored`` reads it back)."""
        if self._stored is not None and self._decoder is not None and self._decoder is encoder.seed:
            facts = self._stored  # as read (facts are never changed in place): the new file keeps the old one's tables
        else:
            facts = encoder.encode(self.facts)
        return self.source_hash, self.line, self.summary, self.seen, self.looked, self.run, facts

    @classmethod
    def from_stored(cls, state: object, decoder: Decoder) -> FunctionRecord | None:
        """A record read back from ``stored``'s tuple; None when the tuple is not one."""
        if not (type(state) is tuple and len(state) == 7):
            return None
        source_hash, line, summary, seen, looked, run, facts = state
        if not (type(source_hash) is str and type(line) is int and isinstance(summary, Summary)
                and type(seen) is dict and all(type(k) is tuple and len(k) == 2 and type(k[0]) is str
                                               and type(k[1]) is str and isinstance(v, Summary)
                                               for k, v in seen.items())
                and type(looked) is tuple and type(run) is int and type(facts) is str):
            return None
        if not all(type(m) is tuple and len(m) == 2 and type(m[0]) is str and type(m[1]) is tuple
                   and all(type(n) is str for n in m[1]) for m in looked):
            return None
        return cls(source_hash, line, None, summary, seen, looked, run, facts, decoder)
