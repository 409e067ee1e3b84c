"""The blocks of a statement, for the plugin's own walks over a function or module (mypy
is compiled: its ``TraverserVisitor`` cannot be subclassed by an interpreted plugin)."""

from __future__ import annotations

from typing import Any

from mypy.nodes import (
    Block,
    ClassDef,
    Decorator,
    ForStmt,
    FuncDef,
    IfStmt,
    MatchStmt,
    OverloadedFuncDef,
    Statement,
    TryStmt,
    WhileStmt,
    WithStmt,
)

__all__ = ["blocks"]


def blocks(stmt: Statement) -> list[Block]:
    if isinstance(stmt, (FuncDef, WhileStmt, ForStmt, WithStmt)):
        body = [stmt.body]
        else_body = getattr(stmt, "else_body", None)
        return body + ([else_body] if else_body is not None else [])
    if isinstance(stmt, Decorator):
        return [stmt.func.body]
    if isinstance(stmt, OverloadedFuncDef):
        items: list[Any] = [*stmt.items, *([stmt.impl] if stmt.impl is not None else [])]
        return [block for item in items for block in blocks(item)]
    if isinstance(stmt, ClassDef):
        return [stmt.defs]
    if isinstance(stmt, IfStmt):
        return [*stmt.body, *([stmt.else_body] if stmt.else_body is not None else [])]
    if isinstance(stmt, TryStmt):
        extra = [b for b in (stmt.else_body, stmt.finally_body) if b is not None]
        return [stmt.body, *stmt.handlers, *extra]
    if isinstance(stmt, MatchStmt):
        return list(stmt.bodies)
    return []
