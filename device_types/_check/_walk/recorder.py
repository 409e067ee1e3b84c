"""Where host data starts and where it goes, as the walk finds them: the one writer of ``Facts``.

A root (a readback, host-built data) is made once per site and remembered with the
conditions it is made under; a sink records that a root reaches the device or the op's
result, with the condition of the path. ``finish`` closes the walk: a result computed on the
host and returned, host-built uploads returned as the result, and each root's condition.
"""

from __future__ import annotations

import ast

from ... import _semantics as sem
from .. import _codes as codes
from .._conditions import ALWAYS, NEVER, Condition, conjoin, disjoin
from .._values import COMPUTED, HostOnly, LoopFilled, Pending, ReadOf, Root, Value, params, root_identity, roots
from .events import Facts
from .events import Sink
from .state import WalkState
from .syntax import shown

#: ``LoopFilled`` names of containers that are no variable: a comprehension, ``range()``.
COMPREHENSION = "<comprehension>"
RANGE = "<range>"


class Recorder:
    def __init__(self, state: WalkState) -> None:
        self.state = state
        self.info = state.info
        self.facts: Facts = state.facts
        self.root_ids: dict[tuple[int, int, str], Root] = {}
        #: Readbacks listed in ``facts.created``: those made on some path.
        self.listed: set[Root] = set()
        self.created_when: dict[Root, Condition] = {}
        self.sunk_when: dict[Root, Condition] = {}
        #: The paths on which a value computed on the host is returned.
        self.returned_when: Condition = NEVER
        #: The paths on which each root is returned.
        self.returned_paths: dict[Root, Condition] = {}
        #: When each upload of host-built data is returned (the op's result): a fallback path, then.
        self.returned_pending: dict[Pending, Condition] = {}
        #: Each root as it was made, by where and what it is (``_identity``).
        self.made: dict[tuple[object, ...], Root] = {}
        #: When a loop put something in each container it fills (``LoopFilled``, by line and
        #: column): a loop over an empty list fills nothing, whatever its container is used for.
        self.filled_when: dict[tuple[int, int], Condition] = {}

    def sunk(self, root: Root, how: Sink, when: Condition | None = None) -> None:
        """``root`` reaches the device as (part of) a result: a fallback path, taken when ``when``.
        The root as it was made, whatever the value that carried it made of it (a scalar item
        of it, ``items_of``; the same data no longer a scalar, ``accumulated``)."""
        root = self.made.get(root_identity(root), root)
        self.facts.sunk.append((root, how))
        self.sunk_when[root] = disjoin(self.sunk_when.get(root, NEVER), self.state.path if when is None else when)

    def upload(self, root: Root, how: Sink) -> None:
        """``root``'s data reaches the device. Data built from metadata alone (``weak``: a loop
        over shapes or ``range``) is the op's result only if what was uploaded is returned:
        until then the upload's value holds it as ``Pending``."""
        if root.weak:
            self.state.pending = self.state.pending | frozenset({Pending(root, how)})
        else:
            self.sunk(root, how)

    def created(self, root: Root) -> None:
        self.made.setdefault(root_identity(root), root)
        self.created_when[root] = disjoin(self.created_when.get(root, NEVER), self.state.path)

    def readback(self, node: ast.AST, receiver: Value, what: str | None, code: str,
                 chain: tuple[str, ...] = (), origin: tuple[str, int, str] | None = None,
                 steps: tuple[tuple[str, int, int, str], ...] = (), copy: bool = False,
                 scalar_items: bool = False) -> Value:
        """Host data read from ``receiver`` at ``node`` (``what`` defaults to the call as written);
        ``copy``: a private copy, not a view of the tensor's memory."""
        param_indices = params(receiver)
        self.facts.data_params |= param_indices
        if param_indices and all(on_the_cpu(self.state.path, index) for index in param_indices):
            # ``if pos.device.type == "cpu" and ...: pos.to("cpu", torch.float32)``: host memory
            # already, on every path that gets here: nothing is read from a device
            return receiver | frozenset({HostOnly("a tensor on the CPU")})
        key = (getattr(node, "lineno", 0), getattr(node, "col_offset", 0), what or "")
        root = self.root_ids.get(key)
        if root is None:
            what = what or shown(node)  # type: ignore[arg-type]
            root = Root("read", code, what, self.info.path, key[0], key[1], chain, origin,
                        min(param_indices) if param_indices else None, steps=steps, copy=copy,
                        scalar_items=scalar_items)
            self.root_ids[key] = root
        if self.state.path != NEVER and root not in self.listed:  # a readback on no path reads nothing
            self.listed.add(root)
            self.facts.created.append(root)
        self.created(root)
        value: Value = frozenset({root})
        for index in param_indices:
            value = value | frozenset({ReadOf(index)})
        return value

    def filled(self, atom: LoopFilled, when: Condition | None = None) -> LoopFilled:
        """A loop puts data in a container here, on the current path (or ``when``)."""
        key = (atom.line, atom.column)
        self.filled_when[key] = disjoin(self.filled_when.get(key, NEVER), self.state.path if when is None else when)
        return atom

    def root_at(self, line: int, column: int, kind: str, what: str) -> Root:
        key = (line, column, what)
        root = self.root_ids.get(key)
        if root is None:
            root = Root(kind, codes.NUMPY, what, self.info.path, line, column, weak=True)  # type: ignore[arg-type]
            self.root_ids[key] = root
        self.made.setdefault(root_identity(root), root)
        when = conjoin(self.state.path, self.filled_when.get((line, column), ALWAYS))
        self.created_when[root] = disjoin(self.created_when.get(root, NEVER), when)
        return root

    def built(self, node: ast.AST, what: str | None, chain: tuple[str, ...] = (),
              origin: tuple[str, int, str] | None = None, steps: tuple[tuple[str, int, int, str], ...] = (),
              weak: bool = False) -> Value:
        """Data built on the host at ``node``; ``weak``: from metadata alone (``np.arange(n)``),
        a finding only where it is uploaded as the op's result (``upload``)."""
        key = (getattr(node, "lineno", 0), getattr(node, "col_offset", 0), what or "")
        root = self.root_ids.get(key)
        if root is None:
            what = what or shown(node)  # type: ignore[arg-type]
            root = Root("built", codes.NUMPY, what, self.info.path, key[0], key[1], chain, origin, steps=steps,
                        weak=weak)
            self.root_ids[key] = root
        self.created(root)
        return frozenset({root})

    def loop_roots(self, value: Value) -> list[Root]:
        return [self.root_at(a.line, a.column, "built", filled_what(a.name)) for a in value if isinstance(a, LoopFilled)]

    def returned(self, value: Value) -> None:
        """``return value`` on the current path."""
        path = self.state.path
        self.facts.returned |= value
        for atom in value:
            if isinstance(atom, Pending):
                self.returned_pending[atom] = disjoin(self.returned_pending.get(atom, NEVER), path)
        if COMPUTED in value:
            self.returned_when = disjoin(self.returned_when, path)
        for root in roots(value):
            self.returned_paths[root] = disjoin(self.returned_paths.get(root, NEVER), path)

    def finish(self) -> Facts:
        """The walk is over: what it returned decides the last sinks, and each root's condition."""
        facts = self.facts
        if COMPUTED in facts.returned:  # an op whose (Python) result is computed on the host
            for root in roots(frozenset(facts.returned)):
                if root.kind == "read" and not root.scalar:
                    self.sunk(root, Sink("host_result"), self.returned_when)
        for pending, returned_when in self.returned_pending.items():  # host-built data returned as the result
            self.sunk(pending.root, pending.sink, returned_when)
        for root, sunk_when in self.sunk_when.items():
            facts.when[root] = conjoin(self.created_when.get(root, ALWAYS), sunk_when)
        for root, returned_when in self.returned_paths.items():
            when = conjoin(self.created_when.get(root, ALWAYS), returned_when)
            if when != ALWAYS:
                facts.returned_when[root] = when
        facts.assumed = frozenset(self.state.assumed)
        return facts


def on_the_cpu(path: Condition, index: int) -> bool:
    """Whether every way ``path`` holds has parameter ``index``'s device type be the CPU's."""
    return bool(path) and all(
        any(test.positive and test.values == frozenset({"cpu"}) and test.subject[0] == "p"
            and test.subject[1] == index and len(test.subject[2]) >= 2
            and test.subject[2][-2] in (sem.DEVICE_PARAMETER, f"{sem.DEVICE_PARAMETER}()")
            and test.subject[2][-1] in sem.DEVICE_TYPE_ATTRIBUTES
            for test in conjunction)
        for conjunction in path)


def filled_what(name: str) -> str:
    if name == COMPREHENSION:
        return "a list comprehension"
    if name == RANGE:
        return 'an index sequence "range()"'
    return f'a Python loop filling "{name}"'
