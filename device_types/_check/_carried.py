"""What one iteration of a loop leaves the next, read from its syntax alone: the names its
body reads before it assigns them, and the names it only writes into.

``_interpret`` walks a loop's body again only when the first walk grew one of these (the
walk's values only grow, so a body whose reads all come after their assignments gives the
same facts the second time). The rules follow the walk, not Python: an assignment in the
body's own sequence (a ``with`` or ``try`` body included) replaces the value, one in an arm
of a branch joins it, and a nested def only rebinds its name.
"""

from __future__ import annotations

import ast

__all__ = ["loop_reads"]


def loop_reads(node: ast.For | ast.AsyncFor | ast.While, adds: frozenset[str]) -> tuple[frozenset[str], frozenset[str]]:
    """The names an iteration of ``node`` reads before it assigns them (the test of a
    ``while`` included), and the names it only writes into (``arr[i] = v``, ``self.x = v``,
    ``parts.append(v)`` with ``adds`` the container methods that add), as the walk sees
    them: an assignment in the block's own sequence replaces the value, one in an arm of a
    branch joins it."""
    reads: set[str] = set()
    bases: set[str] = set()
    if isinstance(node, ast.While):
        reads |= _loads(node.test)
    else:
        _target_reads(node.target, set(), reads, bases)
    _exposed(node.body, set() if isinstance(node, ast.While) else _names(node.target), reads, bases, adds)
    return frozenset(reads), frozenset(bases - reads)


def _exposed(body: list[ast.stmt], assigned: set[str], reads: set[str], bases: set[str],
             adds: frozenset[str]) -> set[str]:
    """Adds to ``reads`` the names ``body`` reads that are not in ``assigned`` (assigned
    before it in the same sequence), and to ``bases`` those it writes into; returns
    ``assigned`` with what ``body``'s own sequence assigns."""
    assigned = set(assigned)

    def read(node: ast.AST | None) -> None:
        if node is not None:
            reads.update(_loads(node) - assigned)

    def target(node: ast.expr) -> None:
        _target_reads(node, assigned, reads, bases)
        assigned.update(_names(node))

    for stmt in body:
        if isinstance(stmt, (ast.Assign, ast.AnnAssign)):
            read(stmt.value)
            if stmt.value is not None:
                for each in stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]:
                    target(each)
        elif isinstance(stmt, ast.AugAssign):
            read(stmt.value)
            if isinstance(stmt.target, ast.Name):
                read(stmt.target)
            else:
                target(stmt.target)
        elif isinstance(stmt, (ast.For, ast.AsyncFor)):
            read(stmt.iter)
            _target_reads(stmt.target, assigned, reads, bases)
            _exposed(stmt.body, assigned | _names(stmt.target), reads, bases, adds)
            _exposed(stmt.orelse, assigned, reads, bases, adds)
        elif isinstance(stmt, ast.While):
            read(stmt.test)
            _exposed(stmt.body, assigned, reads, bases, adds)
            _exposed(stmt.orelse, assigned, reads, bases, adds)
        elif isinstance(stmt, ast.If):
            read(stmt.test)
            _exposed(stmt.body, assigned, reads, bases, adds)
            _exposed(stmt.orelse, assigned, reads, bases, adds)
        elif isinstance(stmt, (ast.With, ast.AsyncWith)):
            for item in stmt.items:
                read(item.context_expr)
                if item.optional_vars is not None:
                    target(item.optional_vars)
            assigned = _exposed(stmt.body, assigned, reads, bases, adds)
        elif isinstance(stmt, ast.Try) or stmt.__class__.__name__ == "TryStar":
            assigned = _exposed(stmt.body, assigned, reads, bases, adds)  # type: ignore[attr-defined]
            for handler in stmt.handlers:  # type: ignore[attr-defined]
                read(handler.type)
                _exposed(handler.body, assigned, reads, bases, adds)
            _exposed(stmt.orelse, assigned, reads, bases, adds)  # type: ignore[attr-defined]
            assigned = _exposed(stmt.finalbody, assigned, reads, bases, adds)  # type: ignore[attr-defined]
        elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            assigned.add(stmt.name)  # the walk does not enter a nested def: it only rebinds the name
        elif isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) and isinstance(
                stmt.value.func, ast.Attribute) and stmt.value.func.attr in adds and isinstance(stmt.value.func.value, ast.Name):
            # ``parts.append(v)``: what ``parts`` holds only decides what the (unused) call returns
            target(stmt.value.func)
            for argument in (*stmt.value.args, *stmt.value.keywords):
                read(argument)
        elif isinstance(stmt, ast.Delete):
            for each in stmt.targets:
                if isinstance(each, ast.Name):
                    assigned.add(each.id)
                else:
                    read(each)
        else:  # return, raise, an expression, assert, match, ...: everything it mentions
            read(stmt)
    return assigned


def _target_reads(target: ast.expr, assigned: set[str], reads: set[str], bases: set[str]) -> None:
    """What assigning to ``target`` reads (``k`` in ``a[k] = v``) and writes into (``a``)."""
    if isinstance(target, (ast.Tuple, ast.List)):
        for element in target.elts:
            _target_reads(element, assigned, reads, bases)
    elif isinstance(target, ast.Starred):
        _target_reads(target.value, assigned, reads, bases)
    elif isinstance(target, (ast.Subscript, ast.Attribute)):
        if isinstance(target, ast.Subscript):
            reads.update(_loads(target.slice) - assigned)
        if isinstance(target.value, ast.Name):
            if target.value.id not in assigned:
                bases.add(target.value.id)
        else:
            reads.update(_loads(target.value) - assigned)


def _loads(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Store)}


def _names(target: ast.expr) -> set[str]:
    """The names a ``for`` target binds (``i, (a, b)``; not the ``a`` of ``a[i]``)."""
    return {n.id for n in ast.walk(target) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
