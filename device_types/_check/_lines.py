"""Where the lines of edited files went: cached facts and summaries carried across an edit.

A re-check after an edit finds, per changed file, the one block of lines that the edit
replaced (``_project.Edit``: a common prefix and suffix of the old and new text). Every line before
it is where it was, every line after it moved by the same amount, and the lines inside it
are gone. Facts and summaries in the cache name lines of many files (a caller's summary
carries its helpers' hops and roots), so an insertion above a helper changes the lines in
the summaries of all its callers without changing what any of them does. ``LineMap``
rewrites a cached record into the new lines, so that a caller whose callee only moved is
adopted instead of walked again; a record that names a replaced line cannot be rewritten
and is walked (what it names may be what was edited).
"""

from __future__ import annotations

from dataclasses import replace

from .._finding import Hop
from ._walk import Facts
from ._project import Edit, FunctionInfo
from ._summary import FallbackPath, Summary
from ._values import Atom, FromInputs, LoopFilled, Root

__all__ = ["LineMap", "Unmappable"]


class Unmappable(Exception):
    """A line that the edit replaced, or of a file whose old text is unknown."""


class LineMap:
    """Old (path, line) -> new line for every file that changed since the cache was written.

    ``edits[path]`` is the file's edit; None when the file changed but its old text is not
    known (nothing of it can be carried over)."""

    def __init__(self, edits: dict[str, Edit | None]) -> None:
        self.edits = edits
        #: id -> (the summary, the answer): the summary is held so that its id is not reused
        self._mentions: dict[int, tuple[Summary, bool]] = {}

    def __bool__(self) -> bool:
        return bool(self.edits)

    def line(self, path: str, line: int) -> int:
        if path not in self.edits:
            return line
        edit = self.edits[path]
        if edit is None:
            raise Unmappable(path)
        if line < edit.first:
            return line
        if line > edit.last:
            return line + edit.delta
        raise Unmappable(path, line)

    def keeps(self, path: str, line: int) -> bool:
        """Whether an unchanged function of ``path`` that starts at ``line`` kept its lines: its
        file did not change, or the edit is below it, or the edit moved nothing after it (a
        line rewritten in place). (An unchanged function holds no line the edit replaced.)"""
        if path not in self.edits:
            return True
        edit = self.edits[path]
        return edit is not None and (line < edit.first or (edit.delta == 0 and line > edit.last))

    def mentions(self, summary: Summary) -> bool:
        """Whether ``summary`` names a line of a changed file (memoised: cached records
        share their callees' summary objects)."""
        held = self._mentions.get(id(summary))
        if held is not None:
            return held[1]
        known = any(r.path in self.edits or (r.origin is not None and r.origin[0] in self.edits)
                    or any(step[0] in self.edits for step in r.steps)
                    for r in summary.returned_roots) or any(
            p.path in self.edits or any(h.path in self.edits for h in p.hops) for p in summary.fallbacks)
        self._mentions[id(summary)] = (summary, known)
        return known

    # --- rewriting; each raises Unmappable -----------------------------------------------------

    def root(self, root: Root) -> Root:
        origin = root.origin
        if origin is not None:
            origin = (origin[0], self.line(origin[0], origin[1]), origin[2])
        steps = tuple((path, self.line(path, line), column, what) for path, line, column, what in root.steps)
        return replace(root, line=self.line(root.path, root.line), origin=origin, steps=steps)

    def atom(self, atom: Atom, own: str) -> Atom:
        if isinstance(atom, Root):
            return self.root(atom)
        if isinstance(atom, (LoopFilled, FromInputs)):  # only ever in its own function's facts
            return replace(atom, line=self.line(own, atom.line))
        return atom

    def hop(self, hop: Hop) -> Hop:
        return replace(hop, line=self.line(hop.path, hop.line))

    def path(self, path: FallbackPath) -> FallbackPath:
        return replace(path, line=self.line(path.path, path.line), hops=tuple(self.hop(h) for h in path.hops))

    def info(self, info: FunctionInfo) -> FunctionInfo:
        return replace(info, line=self.line(info.path, info.line))

    def summary(self, summary: Summary) -> Summary:
        if not self.mentions(summary):
            return summary
        return replace(summary, returned_roots=frozenset(self.root(r) for r in summary.returned_roots),
                       returned_when=frozenset((self.root(r), when) for r, when in summary.returned_when),
                       fallbacks=tuple(self.path(p) for p in summary.fallbacks))

    def facts(self, facts: Facts, own: str) -> Facts:
        """Every field of ``Facts`` (``tests/check/test_lines.py`` fails when one is added
        without being handled here)."""
        line = self.line
        return Facts(
            returned={self.atom(a, own) for a in facts.returned},
            sunk=[(self.root(root), how) for root, how in facts.sunk],
            uploaded_params=set(facts.uploaded_params),
            array_uploads=set(facts.array_uploads),
            maybe_uploaded_params=set(facts.maybe_uploaded_params),
            reads_into=set(facts.reads_into),
            copy_params=set(facts.copy_params),
            created=[self.root(root) for root in facts.created],
            escaped={self.root(root) for root in facts.escaped},
            cpu_backend_calls=[(line(own, n), column, name) for n, column, name in facts.cpu_backend_calls],
            indirect=[(line(own, n), column, self.info(callee), self.path(path))
                      for n, column, callee, path in facts.indirect],
            callees=set(facts.callees),
            when={self.root(root): when for root, when in facts.when.items()},
            cpu_when={(line(own, n), column): when for (n, column), when in facts.cpu_when.items()},
            returned_when={self.root(root): when for root, when in facts.returned_when.items()},
            assumed=facts.assumed,
            returns_literal=facts.returns_literal,
            returns_value=facts.returns_value,
            meta_params=set(facts.meta_params),
            data_params=set(facts.data_params),
            cpu_test=facts.cpu_test,
            made_like=facts.made_like,
            true_when=facts.true_when,
        )
