"""Reading a function's tests as conditions over its parameters (``_conditions``).

``GuardReader.test(expr)`` gives the pair (condition when ``expr`` is true, condition when it is
false); anything it cannot read is "unknown" on both sides, i.e. no constraint. Subjects are the
parameters where nothing before them rebinds them (the value the caller passed), their attributes and no-argument methods
(``a.dtype``, ``x.device.type``, ``t.dim()``), locals bound exactly once to such an expression
(``use_gpu = _can_use_gpu(a)``), module-level names, and calls of resolvable functions on them
(``_can_use_gpu(x)``, ``_use_soc_fallback("dot")``, ``isinstance(key, Tensor)``).
"""

from __future__ import annotations

import ast
import builtins
from typing import Any
from collections.abc import Callable
from functools import cached_property

from ._conditions import ALWAYS, NEVER, Condition, Subject, Sym, Test, conjoin, disjoin
from ._project import FunctionInfo

__all__ = ["GuardReader", "parameter_names"]

_BUILTINS = frozenset(dir(builtins))
_LITERAL_TYPES = (str, int, float, bool, type(None))
_UNKNOWN: tuple[Condition, Condition] = (ALWAYS, ALWAYS)

#: Where a name is bound: (the first binding statement's (line, column), the spans of the
#: outermost loops with a binding of it). A test of a parameter before all of them reads
#: the value the caller passed.
Stores = dict[str, tuple[tuple[int, int], list[tuple[int, int]]]]


def parameter_names(info: FunctionInfo) -> tuple[str, ...]:
    """Every parameter by its index in conditions: positional, the ``*args`` slot, keyword-only."""
    return (*info.params, info.vararg or "*args", *info.kwonly)


class GuardReader:
    def __init__(self, info: FunctionInfo, node: ast.FunctionDef | ast.AsyncFunctionDef,
                 resolve: Callable[[ast.expr], str | None]) -> None:
        self.info = info
        self._resolve = resolve
        self._node = node
        self._depth = 0

    @cached_property
    def _scope(self) -> tuple[dict[str, int], set[str], dict[str, ast.expr], Stores]:
        """(parameters by index, every local name, locals bound once, where names are bound):
        read on first use, so a function without tests costs nothing here."""
        counts, single, stores = _bindings(self._node)
        names = parameter_names(self.info)
        params = {name: i for i, name in enumerate(names) if name != "*args"}
        return params, set(counts) | set(names), single, stores

    @property
    def _params(self) -> dict[str, int]:
        return self._scope[0]

    @property
    def _locals(self) -> set[str]:
        return self._scope[1]

    @property
    def _single(self) -> dict[str, ast.expr]:
        return self._scope[2]

    # --- subjects and literals -------------------------------------------------------------

    def subject(self, expr: ast.expr) -> Subject | None:
        if self._depth > 6:
            return None
        self._depth += 1
        try:
            return self._subject(expr)
        finally:
            self._depth -= 1

    def _passed(self, name: ast.Name) -> bool:
        """Whether ``name`` (a parameter) still holds what the caller passed here: no binding
        of it comes before this place, nor in a loop around it (``if p is None: p = ...``
        tests the passed value; a test after the binding does not)."""
        where = self._scope[3].get(name.id)
        if where is None:
            return True
        first, loops = where
        return (name.lineno, name.col_offset) < first and not any(a <= name.lineno <= b for a, b in loops)

    def _subject(self, expr: ast.expr) -> Subject | None:
        if isinstance(expr, ast.Name):
            if expr.id in self._params and self._passed(expr):
                return ("p", self._params[expr.id], ())
            if expr.id in self._single:
                return self.subject(self._single[expr.id])
            if expr.id in self._locals or expr.id in _BUILTINS:
                return None
            return ("g", self._resolve(expr) or f"{self.info.module}.{expr.id}", ())
        if isinstance(expr, ast.Attribute):
            base = self.subject(expr.value)
            if base is None or base[0] not in ("p", "g"):
                return None
            return (base[0], base[1], (*base[2], expr.attr))
        if isinstance(expr, ast.Subscript) and isinstance(expr.slice, (ast.Constant, ast.UnaryOp)):
            base, index = self.subject(expr.value), self.literal(expr.slice)
            if base is None or base[0] not in ("p", "g") or index is None or not isinstance(index[0], (int, str)):
                return None
            return (base[0], base[1], (*base[2], f"[{index[0]!r}]"))  # a.shape[-1], key[0]
        if isinstance(expr, ast.Call) and not expr.keywords:
            func = expr.func
            if isinstance(func, ast.Attribute) and not expr.args:  # a.dim(), t.is_contiguous()
                base = self.subject(func.value)
                if base is not None and base[0] in ("p", "g"):
                    return (base[0], base[1], (*base[2], f"{func.attr}()"))
            dotted = self._callee(func)
            if dotted is None:
                return None
            args: list[Subject] = []
            for arg in expr.args:
                literal = self.literal(arg)
                if literal is not None:
                    args.append(("lit", literal[0]))
                    continue
                inner = self.subject(arg)
                if inner is None or inner[0] == "c":  # predicates of values, not of computations
                    return None
                args.append(inner)
            return ("c", dotted, tuple(args))
        return None

    def _callee(self, func: ast.expr) -> str | None:
        if isinstance(func, ast.Name) and func.id in _BUILTINS and func.id not in self._locals:
            return f"builtins.{func.id}"
        if isinstance(func, ast.Name) and func.id in self._locals:
            return None
        if isinstance(func, (ast.Name, ast.Attribute)):
            return self._resolve(func)
        return None

    def literal(self, expr: ast.expr) -> tuple[object] | None:
        """``(value,)`` for a literal: a constant, a module-level name (as ``Sym``), or a tuple of them."""
        if isinstance(expr, ast.Constant) and isinstance(expr.value, _LITERAL_TYPES):
            return (expr.value,)
        if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.USub) and isinstance(expr.operand, ast.Constant) \
                and isinstance(expr.operand.value, (int, float)) and not isinstance(expr.operand.value, bool):
            return (-expr.operand.value,)
        if isinstance(expr, (ast.Tuple, ast.List, ast.Set)):
            items = [self.literal(e) for e in expr.elts]
            return None if any(i is None for i in items) else (tuple(i[0] for i in items),)  # type: ignore[index]
        if isinstance(expr, (ast.Name, ast.Attribute)) and self._is_global(expr):
            dotted = self._resolve(expr)
            if dotted is None and isinstance(expr, ast.Name):
                dotted = f"{self.info.module}.{expr.id}"
            return (Sym(dotted),) if dotted is not None else None
        return None

    def _is_global(self, expr: ast.expr) -> bool:
        while isinstance(expr, ast.Attribute):
            expr = expr.value
        return isinstance(expr, ast.Name) and expr.id not in self._locals and expr.id not in _BUILTINS

    def _values(self, expr: ast.expr) -> frozenset[Any] | None:
        literal = self.literal(expr)
        if literal is None or not isinstance(literal[0], tuple):
            return None
        values = literal[0]
        return frozenset(values) if all(not isinstance(v, tuple) for v in values) else None

    # --- tests -----------------------------------------------------------------------------

    def test(self, expr: ast.expr) -> tuple[Condition, Condition]:
        """(condition when ``expr`` is true, condition when it is false)."""
        try:
            return self._test(expr)
        except (RecursionError, TypeError):  # unhashable oddities: unknown, never a crash
            return _UNKNOWN

    def _test(self, expr: ast.expr) -> tuple[Condition, Condition]:
        if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.Not):
            when_true, when_false = self._test(expr.operand)
            return when_false, when_true
        if isinstance(expr, ast.BoolOp):
            parts = [self._test(v) for v in expr.values]
            if isinstance(expr.op, ast.And):
                true, false = ALWAYS, NEVER
                for t, f in parts:
                    true, false = conjoin(true, t), disjoin(false, f)
                return true, false
            true, false = NEVER, ALWAYS
            for t, f in parts:
                true, false = disjoin(true, t), conjoin(false, f)
            return true, false
        if isinstance(expr, ast.Compare):
            return self._compare(expr)
        if isinstance(expr, ast.Constant):
            return _UNKNOWN
        subject = self.subject(expr)
        if subject is None:
            return _UNKNOWN
        return _pair(Test(subject, None, True))

    def _compare(self, expr: ast.Compare) -> tuple[Condition, Condition]:
        if len(expr.ops) != 1:
            return _UNKNOWN
        op, left, right = expr.ops[0], expr.left, expr.comparators[0]
        if isinstance(op, (ast.In, ast.NotIn)):
            subject, values = self.subject(left), self._values(right)
            if subject is None or values is None:
                return _UNKNOWN
            return _pair(Test(subject, values, isinstance(op, ast.In)))
        if not isinstance(op, (ast.Eq, ast.NotEq, ast.Is, ast.IsNot)):
            return _UNKNOWN
        subject, literal = self.subject(left), self.literal(right)
        if subject is None or literal is None or (subject[0] == "g" and self._param_based(right)):
            subject, literal = self.subject(right), self.literal(left)
        if subject is None or literal is None or isinstance(literal[0], tuple):
            return _UNKNOWN
        value: Any = literal[0]
        return _pair(Test(subject, frozenset({value}), isinstance(op, (ast.Eq, ast.Is))))

    def _param_based(self, expr: ast.expr) -> bool:
        subject = self.subject(expr)
        return subject is not None and subject[0] == "p"


def _pair(test: Test) -> tuple[Condition, Condition]:
    return frozenset({frozenset({test})}), frozenset({frozenset({test.negated()})})


#: Statements that bind no name and hold no statements: most of a body.
_INERT_STATEMENTS = frozenset({ast.Expr, ast.Return, ast.Raise, ast.Pass, ast.Break, ast.Continue, ast.Assert})


#: The earliest position: a name bound this way (``global``) may change at any time.
_ANYWHERE = (0, 0)


def _bindings(node: ast.FunctionDef | ast.AsyncFunctionDef) -> tuple[dict[str, int], dict[str, ast.expr], Stores]:
    """How often each name is bound by the function's own statements (nested defs excluded),
    the locals bound once by a plain ``name = expr`` outside loops (their value is ``expr``'s),
    and where each name is bound (``Stores``).

    Only statements are visited (cheap): comprehension variables do not leak in Python 3, and a
    walrus that rebinds a parameter inside an expression is not seen (documented limit)."""
    counts: dict[str, int] = {}
    once: dict[str, ast.expr] = {}
    stores: Stores = {}
    at: tuple[int, int] = _ANYWHERE
    loop: tuple[int, int] | None = None

    def stored(name: str, weight: int, where: tuple[int, int] | None = None) -> None:
        counts[name] = counts.get(name, 0) + weight
        first, loops = stores.get(name, (where or at, []))
        stores[name] = (min(first, where or at), loops)
        if loop is not None and loop not in loops:
            loops.append(loop)

    def bind(target: ast.AST | None, weight: int = 1) -> None:
        if isinstance(target, ast.Name):
            stored(target.id, weight)
        elif isinstance(target, (ast.Tuple, ast.List)):
            for element in target.elts:
                bind(element, weight)
        elif isinstance(target, ast.Starred):
            bind(target.value, weight)

    # (statement, its outermost enclosing loop's line span, or None)
    pending: list[tuple[ast.stmt, tuple[int, int] | None]] = [(stmt, None) for stmt in node.body]
    while pending:
        stmt, loop = pending.pop()
        kind = stmt.__class__
        if kind in _INERT_STATEMENTS:
            continue
        at = (stmt.lineno, stmt.col_offset)
        if isinstance(stmt, ast.Assign):
            for target in stmt.targets:
                bind(target)
            if loop is None and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
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
                pending.extend((s, loop) for s in case.body)
        inner = loop
        if inner is None and isinstance(stmt, (ast.For, ast.AsyncFor, ast.While)):
            inner = (stmt.lineno, stmt.end_lineno or stmt.lineno)
        for field in ("body", "orelse", "finalbody"):
            pending.extend((s, inner) for s in getattr(stmt, field, ()) or ())
        for handler in getattr(stmt, "handlers", ()) or ():
            if handler.name:
                stored(handler.name, 2, (handler.lineno, handler.col_offset))
            pending.extend((s, inner) for s in handler.body)
    return counts, {name: value for name, value in once.items() if counts.get(name) == 1}, stores
