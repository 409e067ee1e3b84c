"""Where a function binds its names, read from its statements alone (cheap): how often each
name is bound, the locals bound once (their value is the expression's), and where each
parameter is bound, so that ``GuardReader`` knows where a parameter still holds what the
caller passed."""

from __future__ import annotations

import ast
from typing import Any

__all__ = ["LITERAL_TYPES", "Normalisation", "ParamBinding", "Stores", "bindings_of"]

#: Python values a literal can be (a normalisation gives one; a test compares with them).
LITERAL_TYPES = (str, int, float, bool, type(None))

#: A literal normalisation of a parameter at the top of the body, ``if mode == "edge":
#: mode = "replicate"``: (where, the literals that trigger it, the literal it gives).
Normalisation = tuple[tuple[int, int], frozenset[Any], Any]

#: Where a parameter is bound: each binding's position with the spans where it has not run
#: (the other arms of the ``if`` statements around it), the spans of the outermost loops with a
#: binding of it, and its normalisations in source order. A test of a parameter before all of
#: them reads the value the caller passed; after normalisations alone, a comparison with
#: literals can still be read (``GuardReader._compare``).
ParamBinding = tuple[tuple[int, int], tuple[tuple[tuple[int, int], tuple[int, int]], ...]]
Stores = dict[str, tuple[list[ParamBinding], list[tuple[int, int]], list[Normalisation]]]


#: Statements that hold statements (of the same function: a nested def is its own).
_COMPOUND = frozenset({ast.If, ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith, ast.Try,
                       *(getattr(ast, "TryStar", ast.Try),)})

#: Statements that bind no name and hold no statements: most of a body.
_INERT_STATEMENTS = frozenset({ast.Expr, ast.Return, ast.Raise, ast.Pass, ast.Break, ast.Continue, ast.Assert})


#: The earliest position: a name bound this way (``global``) may change at any time.
_ANYWHERE = (0, 0)


def bindings_of(node: ast.FunctionDef | ast.AsyncFunctionDef) -> tuple[dict[str, int], dict[str, ast.expr], Stores]:
    """How often each name is bound by the function's own statements (nested defs excluded),
    the locals bound once by a plain ``name = expr`` (their value is ``expr``'s; in a loop, an
    ``expr`` that does not read the name: each pass binds it to what ``expr`` makes),
    and where each name is bound (``Stores``).

    Only statements are visited (cheap): comprehension variables do not leak in Python 3, and a
    walrus that rebinds a parameter inside an expression is not seen (documented limit)."""
    counts: dict[str, int] = {}
    once: dict[str, ast.expr] = {}
    bound_at: dict[str, list[ParamBinding]] = {}
    loops: dict[str, set[tuple[int, int]]] = {}
    normalisations: dict[str, list[Normalisation]] = {}
    at: tuple[int, int] = _ANYWHERE
    loop: tuple[int, int] | None = None
    #: the other arms of the ``if`` statements around the statement visited: where it has not run
    elsewhere: tuple[tuple[tuple[int, int], tuple[int, int]], ...] = ()
    top = {id(stmt) for stmt in node.body}
    arguments = node.args
    #: only a parameter's bindings need their positions (what a caller passed is read there)
    tracked = {a.arg for a in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs,
                               *(a for a in (arguments.vararg, arguments.kwarg) if a is not None))}
    #: id of a normalising assignment -> (its trigger literals, its literal)
    normalising: dict[int, tuple[frozenset[Any], Any]] = {}

    def stored(name: str, weight: int, where: tuple[int, int] | None = None,
               normalisation: tuple[frozenset[Any], Any] | None = None) -> None:
        counts[name] = counts.get(name, 0) + weight
        if name not in tracked:
            return
        position = where or at
        if normalisation is not None:
            normalisations.setdefault(name, []).append((position, *normalisation))
        else:
            bound_at.setdefault(name, []).append((position, elsewhere))
        if loop is not None:
            loops.setdefault(name, set()).add(loop)

    def bind(target: ast.AST | None, weight: int = 1) -> None:
        if isinstance(target, ast.Name):
            stored(target.id, weight)
        elif isinstance(target, (ast.Tuple, ast.List)):
            for element in target.elts:
                bind(element, weight)
        elif isinstance(target, ast.Starred):
            bind(target.value, weight)

    # (statement, its outermost enclosing loop's line span or None, the arms it is not in)
    pending: list[tuple[ast.stmt, tuple[int, int] | None, tuple[tuple[tuple[int, int], tuple[int, int]], ...]]] = [
        (stmt, None, ()) for stmt in node.body]
    while pending:
        stmt, loop, elsewhere = pending.pop()
        kind = stmt.__class__
        if kind in _INERT_STATEMENTS:
            continue
        at = (stmt.lineno, stmt.col_offset)
        if isinstance(stmt, (ast.Assign, ast.AugAssign, ast.AnnAssign)) and stmt.end_lineno is not None:
            # the value is evaluated before the target is bound: ``mask = f(mask)`` passes
            # the caller's ``mask`` to ``f``
            at = (stmt.end_lineno, stmt.end_col_offset or 0)
        if isinstance(stmt, ast.If) and loop is None and id(stmt) in top:
            found = _normalisation(stmt)
            if found is not None:
                normalising[id(stmt.body[0])] = found
        if isinstance(stmt, ast.Assign) and id(stmt) in normalising:
            target = stmt.targets[0]
            assert isinstance(target, ast.Name)
            stored(target.id, 1, normalisation=normalising[id(stmt)])
        elif isinstance(stmt, ast.Assign):
            for target in stmt.targets:
                bind(target)
            # a parameter rebound under a test keeps the caller's value on the other path: its
            # binding is not its value (``if len(ops) == 1: ops = ops[0]``)
            # in a loop too, where the value does not read the name itself (``ai = select(a, 0, i)``:
            # whatever pass bound it, it is a view of ``a``; not ``acc = acc + x``)
            if len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name) \
                    and (stmt.targets[0].id not in tracked or id(stmt) in top) \
                    and (loop is None or not any(isinstance(n, ast.Name) and n.id == stmt.targets[0].id
                                                 for n in ast.walk(stmt.value))):
                once[stmt.targets[0].id] = stmt.value
        elif isinstance(stmt, (ast.AugAssign, ast.AnnAssign)):
            bind(stmt.target, 2 if isinstance(stmt, ast.AugAssign) else 1)
        elif isinstance(stmt, (ast.For, ast.AsyncFor)):
            bind(stmt.target, 2)
        elif isinstance(stmt, (ast.With, ast.AsyncWith)):
            for item in stmt.items:
                bind(item.optional_vars, 2)
        elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            stored(stmt.name, 2)
            continue
        elif isinstance(stmt, (ast.Import, ast.ImportFrom)):
            for alias in stmt.names:
                stored((alias.asname or alias.name).partition(".")[0], 2)
        elif isinstance(stmt, (ast.Global, ast.Nonlocal)):
            for name in stmt.names:
                stored(name, 2, _ANYWHERE)
        elif isinstance(stmt, ast.Delete):
            for target in stmt.targets:
                bind(target, 2)
        elif isinstance(stmt, ast.Match):
            for case in stmt.cases:
                for sub in ast.walk(case.pattern):
                    bound = getattr(sub, "name", None)
                    if isinstance(bound, str):
                        stored(bound, 2)
                pending.extend((s, loop, elsewhere) for s in case.body)
        if kind not in _COMPOUND:
            continue  # most statements hold none
        inner = loop
        if inner is None and isinstance(stmt, (ast.For, ast.AsyncFor, ast.While)):
            inner = (stmt.lineno, stmt.end_lineno or stmt.lineno)
        if isinstance(stmt, ast.If) and stmt.orelse:  # each arm has not run where the other runs
            pending.extend((s, inner, (*elsewhere, _span(stmt.orelse))) for s in stmt.body)
            pending.extend((s, inner, (*elsewhere, _span(stmt.body))) for s in stmt.orelse)
            continue
        for field in ("body", "orelse", "finalbody"):
            pending.extend((s, inner, elsewhere) for s in getattr(stmt, field, ()) or ())
        for handler in getattr(stmt, "handlers", ()) or ():
            if handler.name:
                stored(handler.name, 2, (handler.lineno, handler.col_offset))
            pending.extend((s, inner, elsewhere) for s in handler.body)
    del bind  # it calls itself through its closure: a cycle that outlives the call while the collector is off
    stores: Stores = {name: (sorted(bound_at.get(name, ())), sorted(loops.get(name, ())), normalisations.get(name, []))
                      for name in {*bound_at, *loops, *normalisations}}
    for name, normalised in normalisations.items():
        if not _independent(normalised):  # chained or overlapping: ordinary bindings
            bindings, spans, _ = stores[name]
            stores[name] = (sorted([*bindings, *((n[0], ()) for n in normalised)]), spans, [])
    return counts, {name: value for name, value in once.items() if counts.get(name) == 1}, stores


def _span(statements: list[ast.stmt]) -> tuple[tuple[int, int], tuple[int, int]]:
    last = statements[-1]
    return (statements[0].lineno, statements[0].col_offset), (last.end_lineno or last.lineno, last.end_col_offset or 0)


def _normalisation(stmt: ast.If) -> tuple[frozenset[Any], Any] | None:
    """``if p == "edge": p = "replicate"`` (or ``p in ("a", "b")``), nothing else in it:
    (the trigger literals, the new literal)."""
    test, body = stmt.test, stmt.body
    if stmt.orelse or len(body) != 1 or not isinstance(body[0], ast.Assign):
        return None
    assign = body[0]
    if len(assign.targets) != 1 or not isinstance(assign.targets[0], ast.Name):
        return None
    if not isinstance(assign.value, ast.Constant) or not isinstance(assign.value.value, LITERAL_TYPES):
        return None
    if not isinstance(test, ast.Compare) or len(test.ops) != 1 or not isinstance(test.left, ast.Name):
        return None
    if test.left.id != assign.targets[0].id:
        return None
    op, right = test.ops[0], test.comparators[0]
    if isinstance(op, ast.Eq) and isinstance(right, ast.Constant) and isinstance(right.value, LITERAL_TYPES):
        return frozenset({right.value}), assign.value.value
    if isinstance(op, ast.In) and isinstance(right, (ast.Tuple, ast.List, ast.Set)) and all(
            isinstance(e, ast.Constant) and isinstance(e.value, LITERAL_TYPES) for e in right.elts):
        return frozenset(e.value for e in right.elts if isinstance(e, ast.Constant)), assign.value.value
    return None


def _independent(normalisations: list[Normalisation]) -> bool:
    """No normalisation's trigger overlaps another's, nor holds a literal another gives."""
    seen: set[Any] = set()
    for _, trigger, _ in normalisations:
        if trigger & seen:
            return False
        seen |= trigger
    return not any(new in seen for _, _, new in normalisations)
