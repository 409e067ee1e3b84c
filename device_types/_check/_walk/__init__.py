"""One function, abstractly executed: where host data starts, where it goes.

The walk takes both arms of every branch (a loop's body again while what one iteration
leaves reaches the next), so a host path taken only for some dtypes or chips is seen; it also
keeps the condition under which the current statement runs (``_guards`` reads the ``if``
tests, ``assert``s and early returns over the parameters), and every root, sink and call of a
falling-back function records it, so a caller can tell which of a callee's paths its own
arguments reach (``_conditions``). Values are sets of origins (``_values``); calls into the
project are read through callee summaries (``_summary``); the host vocabulary comes from
``device_types._semantics`` and ``_vocabulary``.

The walk is parts with one job each, sharing ``WalkState``:

* ``statements``: blocks, branches, loops, assignments;
* ``expressions``: the host data each expression holds;
* ``calls``: a call's transfer, by what it calls; ``project_calls``: a project function's,
  through its summary;
* ``writes``: where host data goes (uploads, writes into tensors);
* ``uses``: whether a call takes a parameter as metadata or as data;
* ``recorder``: the typed events (``events.Facts``) that ``_solver`` summarises and
  ``rules`` turns into findings.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Sequence

from .._guards import GuardReader
from .._project import FunctionInfo
from .._values import Param, Value
from .calls import Calls
from .events import Facts, Sink
from .expressions import Expressions
from .project_calls import ProjectCalls
from .recorder import Recorder
from .state import Resolver, WalkState
from .statements import Statements
from .syntax import host_guard
from .uses import ArgumentUses
from .writes import Writes

__all__ = ["Facts", "FunctionInfo", "Resolver", "Sink", "Walk", "interpret"]


def interpret(info: FunctionInfo, node: ast.FunctionDef | ast.AsyncFunctionDef, resolver: Resolver,
              enclosing: Sequence[ast.FunctionDef | ast.AsyncFunctionDef] = ()) -> Facts:
    walk = Walk(info, node, resolver)
    for outer in enclosing:  # the imports of the functions a nested def is defined in
        for statement in _own_statements(outer):
            if isinstance(statement, (ast.Import, ast.ImportFrom)):
                walk.statements.local_import(statement)
    env: dict[str, Value] = {}
    for index, name in enumerate(info.params):
        env[name] = frozenset({Param(index)})
    if info.vararg:
        env[info.vararg] = frozenset({Param(len(info.params))})
    for offset, name in enumerate(info.kwonly):
        env[name] = frozenset({Param(len(info.params) + 1 + offset)})
    walk.statements.block(node.body, env, top=True)
    facts = walk.recorder.finish()
    facts.cpu_test = _cpu_test(info, node, walk.state)
    facts.made_like = walk.state.guards.made_like() if walk.state.guards is not None else None
    facts.true_when = walk.state.guards.true_when() if walk.state.guards is not None else None
    walk.close()
    return facts


def _made_like(resolver: Resolver, dotted: str) -> tuple[int, frozenset[str]] | None:
    callee = resolver.function(dotted)
    return resolver.summary(callee).made_like if callee is not None else None


def _cpu_test(info: FunctionInfo, node: ast.FunctionDef | ast.AsyncFunctionDef, state: WalkState) -> int | None:
    """The parameter a one-statement predicate returns the CPU-ness of (``return t.device.type
    == "cpu"``, ``return t.is_cpu``, ``return t.device == device("cpu")``), or None."""
    body = [s for s in node.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
    if len(body) != 1 or not isinstance(body[0], ast.Return) or body[0].value is None:
        return None
    guard = host_guard(body[0].value, state.constant)
    if guard is None or guard[1] != 0 or guard[0] not in info.params:
        return None
    return info.params.index(guard[0])


def _own_statements(node: ast.FunctionDef | ast.AsyncFunctionDef) -> Iterator[ast.stmt]:
    """The statements of ``node``'s body at any depth, not those of the defs nested in it."""
    pending: list[ast.stmt] = list(node.body)
    while pending:
        statement = pending.pop()
        yield statement
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        for child in ast.iter_child_nodes(statement):
            if isinstance(child, ast.stmt):
                pending.append(child)
            elif isinstance(child, ast.ExceptHandler):
                pending.extend(child.body)


class Walk:
    """The parts of one function's walk, each given what it uses of the others."""

    def __init__(self, info: FunctionInfo, node: ast.FunctionDef | ast.AsyncFunctionDef, resolver: Resolver) -> None:
        scope: dict[str, str] = {}
        guards = GuardReader(info, node, lambda expr: resolver.resolve(info, scope, expr), resolver.device_of(info.module),
                             resolver.vocabulary, lambda dotted: _made_like(resolver, dotted),
                             lambda name: resolver.constant(info, name))
        self.state = state = WalkState(info, resolver, guards)
        state.scope = scope
        self.recorder = recorder = Recorder(state)
        self.writes = writes = Writes(state)
        self.statements = statements = Statements(state)
        self.expressions = expressions = Expressions(state)
        self.calls = calls = Calls(state)
        self.project_calls = project_calls = ProjectCalls(state)
        self.uses = calls.uses = ArgumentUses(state)
        expr = expressions.expr
        for part in (writes, statements, calls, project_calls):
            part.expr = expr
        writes.recorder = statements.recorder = expressions.recorder = calls.recorder = project_calls.recorder = recorder
        statements.writes = calls.writes = project_calls.writes = expressions.writes = writes
        expressions.statements, expressions.calls = statements, calls
        calls.expressions, calls.project_calls = expressions, project_calls
        project_calls.calls = calls
        statements.expressions = expressions

    def close(self) -> None:
        """Break the parts' references to each other: the check runs with the cycle collector
        paused, so a walk's cycles would keep its parts, state and trees alive to the end."""
        for part in (self.recorder, self.writes, self.statements, self.expressions, self.calls, self.project_calls,
                     self.uses):
            part.__dict__.clear()
        self.state.__dict__.clear()
