"""What the cache keeps of one function (``FunctionRecord``), and when things last changed
(``RunTokens``): the unit a re-check adopts instead of walking, and what tells it when not to.
"""

from __future__ import annotations

import pickle
from collections.abc import Iterable
from typing import Any

from ._interpret import Facts
from ._summary import Summary

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

    Its facts are pickled on their own and unpickled on first use: a re-check reads the
    facts only of the functions it walks, moves or reports anew, a small part of them."""

    __slots__ = ("source_hash", "line", "summary", "seen", "looked", "run", "_facts", "_pickled")

    def __init__(self, source_hash: str, line: int, facts: Facts, summary: Summary, seen: dict[Key, Summary],
                 looked: Looked = (), run: int = 0) -> None:
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
        self._pickled: bytes | None = None

    @property
    def facts(self) -> Facts:
        if self._facts is None:
            assert self._pickled is not None
            self._facts = pickle.loads(self._pickled)
        return self._facts

    def __getstate__(self) -> tuple[object, ...]:
        if self._pickled is None:
            self._pickled = pickle.dumps(self._facts, protocol=pickle.HIGHEST_PROTOCOL)
        return self.source_hash, self.line, self.summary, self.seen, self.looked, self.run, self._pickled

    def __setstate__(self, state: tuple[Any, ...]) -> None:
        self.source_hash, self.line, self.summary, self.seen, self.looked, self.run, self._pickled = state
        self._facts = None
