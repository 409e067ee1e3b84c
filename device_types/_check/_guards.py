"""Reading a function's tests as conditions over its parameters (``_conditions``); what the
values a call passes are made from is ``_provenance``, mixed in.

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
from collections.abc import Callable, Iterator
from functools import cached_property

from ._conditions import ALWAYS, NEVER, Condition, Subject, Sym, Test, conjoin, disjoin, relation
from .._config import BACKEND_DEVICES
from .._vocabulary import BUILTIN, HostVocabulary
from .. import _semantics as sem
from ._bindings import LITERAL_TYPES, Normalisation, Stores, bindings_of
from ._project import FunctionInfo
from ._provenance import MadeBy, Provenance
from ._walk.syntax import converts_dtype_only

__all__ = ["GuardReader", "parameter_names"]

_BUILTINS = frozenset(dir(builtins))

#: Builtin names that are classes (``int``, ``tuple``): literals when tested against.
_BUILTIN_CLASSES = frozenset(name for name in _BUILTINS if isinstance(getattr(builtins, name), type)
                             and not name.endswith(("Error", "Exception", "Warning")))
_UNKNOWN: tuple[Condition, Condition] = (ALWAYS, ALWAYS)



def parameter_names(info: FunctionInfo) -> tuple[str, ...]:
    """Every parameter by its index in conditions: positional, the ``*args`` slot, keyword-only."""
    return (*info.params, info.vararg or "*args", *info.kwonly)


class GuardReader(Provenance):
    def __init__(self, info: FunctionInfo, node: ast.FunctionDef | ast.AsyncFunctionDef,
                 resolve: Callable[[ast.expr], str | None], device: str | None = None,
                 vocabulary: HostVocabulary = BUILTIN, made_by: MadeBy | None = None,
                 constant: Callable[[str], ast.expr | None] | None = None) -> None:
        self.info = info
        #: What a module-level name of this module is bound to (``_GPU_DTYPES = frozenset({...})``).
        self._constant = constant
        #: What a project function's result is made from (``Summary.made_like``), by dotted name.
        self._made_by = made_by
        self._vocabulary = vocabulary
        #: The backend's device: a tensor there is on it, or on the host (user data), never on
        #: another accelerator, so ``x.device.type == "mps"`` is false in the cuda backend.
        self.device = device
        self._resolve = resolve
        self._node = node
        self._depth = 0

    @cached_property
    def _scope(self) -> tuple[dict[str, int], set[str], dict[str, ast.expr], Stores, dict[str, int]]:
        """(parameters by index, every local name, locals bound once, where names are bound, how often
        each name is bound): read on first use, so a function without tests costs nothing here."""
        counts, single, stores = bindings_of(self._node)
        names = parameter_names(self.info)
        params = {name: i for i, name in enumerate(names) if name != "*args"}
        return params, set(counts) | set(names), single, stores, counts

    @property
    def _params(self) -> dict[str, int]:
        return self._scope[0]

    @property
    def _locals(self) -> set[str]:
        return self._scope[1]

    @property
    def local_names(self) -> set[str]:
        """Every name bound in the function (parameters included)."""
        return self._scope[1]

    @property
    def bound_once(self) -> dict[str, ast.expr]:
        """Locals bound once by a plain ``name = expr`` (in a loop, one not reading the name): name -> expr."""
        return self._scope[2]

    @cached_property
    def tensor_params(self) -> frozenset[str]:
        """Parameters the body uses as a tensor (``a.device``, ``a.to(...)``, ``a.new_empty(n)``,
        ``a.data_ptr()``: ``sem.TENSOR_ONLY_MEMBERS``, which Python and numpy data lack): the
        op's tensor, not the user's data."""
        params = self._params
        used, tested = set(), set()
        for sub in ast.walk(self._node):
            if isinstance(sub, ast.Attribute) and sub.attr in sem.TENSOR_ONLY_MEMBERS \
                    and isinstance(sub.value, ast.Name) and sub.value.id in params:
                used.add(sub.value.id)
            elif isinstance(sub, ast.Call) and isinstance(sub.func, ast.Name) and sub.func.id == "isinstance" \
                    and sub.args and isinstance(sub.args[0], ast.Name):
                tested.add(sub.args[0].id)  # a tensor on one path, the user's data on another
        return frozenset(used - tested)

    @cached_property
    def appended_lists(self) -> dict[str, list[ast.expr]]:
        """Locals bound once to ``[]`` and then only appended to (``elements.append(a.select(0, i))``
        in a loop), never otherwise changed: name -> what is appended. Such a list holds those
        values, as a comprehension of them would."""
        empty = {name for name, value in self.bound_once.items()
                 if isinstance(value, ast.List) and not value.elts and name not in self._params}
        if not empty:
            return {}
        appended: dict[str, list[ast.expr]] = {name: [] for name in empty}
        for node in ast.walk(self._node):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in appended \
                    and node.attr != "append":
                empty.discard(node.value.id)  # extend, insert, pop, sort: not only appended
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "append" \
                    and isinstance(node.func.value, ast.Name) and node.func.value.id in appended:
                if len(node.args) == 1 and not node.keywords:
                    appended[node.func.value.id].append(node.args[0])
                else:
                    empty.discard(node.func.value.id)
            elif isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id in appended \
                    and not isinstance(node.ctx, ast.Load):
                empty.discard(node.value.id)
        return {name: values for name, values in appended.items() if name in empty and values}

    @cached_property
    def filled_lists(self) -> frozenset[str]:
        """The ``appended_lists`` never empty where they are passed: appended to on every pass
        of a ``for`` over ``range(n)``, after an early exit when ``n`` is 0 in the same block
        (``if diag_len == 0: return ...``, then ``for i in range(diag_len): elements.append(t)``):
        the loop runs at least once."""
        lists = set(self.appended_lists)
        if not lists:
            return frozenset()
        found: set[str] = set()
        for block in _statement_lists(self._node):
            for position, stmt in enumerate(block):
                count = _range_count(stmt.iter) if isinstance(stmt, ast.For) else None
                if count is None:
                    continue
                appended = {s.value.func.value.id for s in stmt.body  # type: ignore[attr-defined]
                            if isinstance(s, ast.Expr) and isinstance(s.value, ast.Call)
                            and isinstance(s.value.func, ast.Attribute) and s.value.func.attr == "append"
                            and isinstance(s.value.func.value, ast.Name)} & lists
                if appended and any(_exits_when_zero(earlier, count) for earlier in block[:position]):
                    found |= appended
        return frozenset(found)

    @cached_property
    def views_of(self) -> dict[str, str]:
        """Locals bound more than once, each time by a plain ``name = <view of X>`` where X is one
        parameter or the name itself (``t = select(a, d1, row); t = select(t, d2 - 1, col)``):
        name -> X. Such a local is always a view of X (its device and dtype are X's). Statements
        only are visited (a walrus is not: documented limit)."""
        values: dict[str, list[ast.expr]] = {}
        other: set[str] = set()
        pending: list[ast.stmt] = list(self._node.body)
        while pending:
            stmt = pending.pop()
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                other.add(stmt.name)
                continue
            if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
                values.setdefault(stmt.targets[0].id, []).append(stmt.value)
            elif isinstance(stmt, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.For, ast.AsyncFor, ast.With,
                                   ast.AsyncWith, ast.Delete, ast.Import, ast.ImportFrom, ast.Try)) \
                    or stmt.__class__.__name__ in ("TryStar", "Match"):
                targets = stmt.targets if isinstance(stmt, (ast.Assign, ast.Delete)) else \
                    [getattr(stmt, "target", None)] + [i.optional_vars for i in getattr(stmt, "items", ())] + \
                    [ast.Name(id=h.name) for h in getattr(stmt, "handlers", ()) if h.name]
                for target in targets:
                    if target is not None:
                        other.update(n.id for n in ast.walk(target) if isinstance(n, ast.Name))
                if isinstance(stmt, (ast.Import, ast.ImportFrom)) or stmt.__class__.__name__ == "Match":
                    other.update(values)  # rare: give up on this function
            for field in ("body", "orelse", "finalbody"):
                pending.extend(getattr(stmt, field, ()))
            for handler in getattr(stmt, "handlers", ()):
                pending.extend(handler.body)
            for case in getattr(stmt, "cases", ()):
                pending.extend(case.body)
        found: dict[str, str] = {}
        for name, bound in values.items():
            if len(bound) < 2 or name in self._params or name in other:
                continue
            bases = {_view_base(value, self._resolve) for value in bound} - {name}
            if len(bases) == 1:
                base = bases.pop()
                if base is not None and base in self._params:
                    found[name] = base
        return found

    @cached_property
    def returns_result(self) -> bool:
        """Whether the function returns a value: a ``return`` of an expression other than
        ``None`` in its own body (nested defs are their own). A function that returns nothing
        computes no result of its own."""
        pending: list[ast.AST] = list(self._node.body)
        while pending:
            node = pending.pop()
            if isinstance(node, ast.Return) and node.value is not None and not (
                    isinstance(node.value, ast.Constant) and node.value.value is None):
                return True
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                continue
            pending.extend(child for child in ast.iter_child_nodes(node)
                           if isinstance(child, (ast.stmt, ast.excepthandler, ast.match_case)))
        return False

    # --- subjects and literals -------------------------------------------------------------

    def subject(self, expr: ast.expr) -> Subject | None:
        if self._depth > 6:
            return None
        self._depth += 1
        try:
            return self._subject(expr)
        finally:
            self._depth -= 1

    def _normalisations_before(self, name: ast.Name) -> list[Normalisation] | None:
        """The literal normalisations a parameter went through before ``name``, where no other
        binding of it comes before this place nor in a loop around it; None where one does
        (``if p is None: p = ...`` tests the passed value; a test after the binding does not)."""
        where = self._scope[3].get(name.id)
        if where is None:
            return []
        bindings, loops, normalisations = where
        here = (name.lineno, name.col_offset)
        # a binding before this place rebinds it, unless it sits in another arm of an ``if``
        # around this place (``if ...: cond = f(cond) elif cond.shape ...``: not rebound there)
        if any(at <= here and not any(start <= here <= end for start, end in elsewhere) for at, elsewhere in bindings) \
                or any(a <= name.lineno <= b for a, b in loops):
            return None
        return [n for n in normalisations if n[0] < here]

    def _passed(self, name: ast.Name) -> bool:
        """Whether ``name`` (a parameter) still holds what the caller passed here."""
        return self._normalisations_before(name) == []

    def _normalised_test(self, name: ast.expr, values: frozenset[Any], positive: bool) -> tuple[Condition, Condition] | None:
        """``mode == "constant"`` after ``if mode == "edge": mode = "replicate"``, over what
        the caller passed: ``mode`` is in ``values`` now when the passed value is in them and
        triggered no normalisation, or triggered one that gives a literal in them."""
        if not isinstance(name, ast.Name) or name.id not in self._params:
            return None
        normalisations = self._normalisations_before(name)
        if not normalisations:
            return None  # rebound otherwise, or not normalised (then ``subject`` reads it)
        triggers = frozenset().union(*(n[1] for n in normalisations))
        passed = (values - triggers) | frozenset().union(*(n[1] for n in normalisations if n[2] in values))
        if not passed:
            return (NEVER, ALWAYS) if positive else (ALWAYS, NEVER)
        return _pair(Test(("p", self._params[name.id], ()), passed, positive))

    def _subject(self, expr: ast.expr) -> Subject | None:
        if isinstance(expr, ast.Name):
            if expr.id in self._params and self._passed(expr):
                return ("p", self._params[expr.id], ())
            if expr.id in self.bound_once:
                return self.subject(self.bound_once[expr.id])
            if expr.id in self._locals or expr.id in _BUILTINS:
                return None
            return ("g", self._resolve(expr) or f"{self.info.module}.{expr.id}", ())
        if isinstance(expr, ast.Attribute):
            if expr.attr == sem.DEVICE_PARAMETER:
                kept = self._device_kept_from(expr.value)
                if kept is not None:  # ``x.device`` for ``x = a.float()``: ``a.device``
                    return self.subject(ast.Attribute(kept, expr.attr, ast.Load()))
            base = self.subject(expr.value)
            if base is None or base[0] not in ("p", "g"):
                return None
            return (base[0], base[1], (*base[2], expr.attr))
        if isinstance(expr, ast.Subscript) and isinstance(expr.value, ast.Name) and expr.value.id in self.bound_once \
                and isinstance(self.bound_once[expr.value.id], (ast.List, ast.Tuple)):
            # ``shapes = [cond.shape, x.shape]; shapes[0]``: the element written out
            elements, index = self.bound_once[expr.value.id].elts, self.literal(expr.slice)  # type: ignore[attr-defined]
            if index is None or type(index[0]) is not int or not -len(elements) <= index[0] < len(elements) \
                    or any(isinstance(e, ast.Starred) for e in elements):
                return None
            return self.subject(elements[index[0]])
        if isinstance(expr, ast.Subscript) and isinstance(expr.slice, ast.Name) and expr.slice.id in self._params \
                and self._passed(expr.slice):
            # ``a.shape[dim]`` with ``dim`` the caller's: its value is a caller's subject too
            base = self.subject(expr.value)
            if base is None or base[0] != "p":
                return None
            return (base[0], base[1], (*base[2], f"[${self._params[expr.slice.id]}]"))
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

    def _every(self, expr: ast.expr) -> Subject | None:
        """``all(p(t) for t in xs)``: the predicate ``p`` of every element of ``xs``, as the
        subject ``("c", "all:<p>", (xs,))``, so that a callee's test of it is rewritten over
        what its caller passes (``cat([t.unsqueeze(0) for t in tensors])`` passes ``tensors``)."""
        if not (isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and expr.func.id == "all"
                and expr.func.id not in self._locals and len(expr.args) == 1 and not expr.keywords):
            return None
        generator = expr.args[0]
        if not isinstance(generator, (ast.GeneratorExp, ast.ListComp)) or len(generator.generators) != 1:
            return None
        loop = generator.generators[0]
        element = generator.elt
        if loop.ifs or not isinstance(loop.target, ast.Name) or not isinstance(element, ast.Call) \
                or element.keywords or len(element.args) != 1:
            return None
        # p(t), or p of a place attribute of t (``supported(t.dtype)``): kept by the views and
        # copies a caller makes of each element (``sem.PLACE_ATTRIBUTES``)
        attrs = _attributes_of(element.args[0], loop.target.id)
        if attrs is None or (attrs and attrs[0] not in sem.PLACE_ATTRIBUTES):
            return None
        predicate = self._callee(element.func)
        items = self.subject(loop.iter)
        if predicate is None or items is None or items[0] == "c":
            return None
        return ("c", f"all:{predicate}" + (f"|{'.'.join(attrs)}" if attrs else ""), (items,))

    def _agreement(self, expr: ast.expr) -> tuple[Condition, Condition] | None:
        """``all(t.dtype == ts[0].dtype for t in ts)`` (``is``, either side; ``t.device``,
        ``t.device.type``) and ``any(t.dtype != ts[0].dtype for t in ts)``: every element of
        ``ts`` agrees with the others on a place attribute, as the subject
        ``("c", "same:dtype", (ts,))``, so that a caller's list made from one list of its own
        (``cat([t.unsqueeze(0) for t in ts])``) carries its own test of it."""
        if not (isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and expr.func.id in ("all", "any")
                and expr.func.id not in self._locals and len(expr.args) == 1 and not expr.keywords):
            return None
        generator = expr.args[0]
        if not isinstance(generator, (ast.GeneratorExp, ast.ListComp)) or not isinstance(generator.elt, ast.Compare) \
                or len(generator.elt.ops) != 1:
            return None
        compare = generator.elt
        equal = isinstance(compare.ops[0], (ast.Eq, ast.Is))
        if not equal and not isinstance(compare.ops[0], (ast.NotEq, ast.IsNot)):
            return None
        if equal != (expr.func.id == "all"):  # all(... != ...), any(... == ...): no agreement test
            return None
        for element, other in ((compare.left, compare.comparators[0]), (compare.comparators[0], compare.left)):
            same = self._agreeing(generator, element, other)
            if same is not None:
                test = Test(same, None, True)
                return _pair(test) if equal else _pair(test.negated())
        return None

    def _agreeing(self, generator: ast.GeneratorExp | ast.ListComp | ast.SetComp, element: ast.expr,
                  other: ast.expr | None) -> Subject | None:
        """The subject "every item of the iterated list has the same ``element``", where
        ``element`` is a place attribute of the loop variable (``t.dtype``: ``sem.PLACE_ATTRIBUTES``)
        and ``other`` (when given) the same attribute of one item of that list (``ts[0].dtype``)."""
        if len(generator.generators) != 1:
            return None
        loop = generator.generators[0]
        if loop.ifs or loop.is_async or not isinstance(loop.target, ast.Name):
            return None
        attrs = _attributes_of(element, loop.target.id)
        if not attrs or attrs[0] not in sem.PLACE_ATTRIBUTES:
            return None
        items = self.subject(loop.iter)
        if items is None or items[0] not in ("p", "g"):
            return None
        if other is not None:
            for attr in reversed(attrs):
                if not (isinstance(other, ast.Attribute) and other.attr == attr):
                    return None
                other = other.value
            one = self.subject(other)
            if one is None or one[:2] != items[:2] or len(one[2]) != len(items[2]) + 1 \
                    or one[2][:-1] != items[2] or not one[2][-1].startswith("["):
                return None  # not an item of the same list
        return ("c", "same:" + ".".join(attrs), (items,))

    def _count_distinct(self, expr: ast.Compare) -> tuple[Condition, Condition] | None:
        """``len({t.dtype for t in ts}) == 1`` (or ``set(... for t in ts)``; ``!= 1``, ``<= 1``,
        ``> 1``): whether the items agree. ``== 1`` also needs an item (an empty ``ts`` agrees,
        and has no distinct value): it holds when they agree and ``ts`` is not empty."""
        left, right = expr.left, expr.comparators[0]
        if not (isinstance(left, ast.Call) and isinstance(left.func, ast.Name) and left.func.id == "len"
                and "len" not in self._locals and len(left.args) == 1 and not left.keywords
                and isinstance(right, ast.Constant) and right.value == 1 and not isinstance(right.value, bool)):
            return None
        inner = left.args[0]
        if isinstance(inner, ast.Call) and isinstance(inner.func, ast.Name) and inner.func.id == "set" \
                and "set" not in self._locals and len(inner.args) == 1 and not inner.keywords:
            inner = inner.args[0]
        if not isinstance(inner, (ast.SetComp, ast.GeneratorExp, ast.ListComp)):
            return None
        if not isinstance(inner, ast.SetComp) and inner is left.args[0]:
            return None  # len([...]) counts items, not distinct values
        same = self._agreeing(inner, inner.elt, None)
        if same is None:
            return None
        agree, differ = _pair(Test(same, None, True))
        some, none = _pair(Test(same[2][0], None, True))  # ts is not empty / is empty
        op = expr.ops[0]
        if isinstance(op, ast.Eq):
            return conjoin(agree, some), disjoin(differ, none)
        if isinstance(op, ast.NotEq):
            return disjoin(differ, none), conjoin(agree, some)
        if isinstance(op, ast.LtE):
            return agree, differ
        if isinstance(op, ast.Gt):
            return differ, agree
        return None

    def _callee(self, func: ast.expr) -> str | None:
        if isinstance(func, ast.Name) and func.id in _BUILTINS and func.id not in self._locals:
            return f"builtins.{func.id}"
        if isinstance(func, ast.Name) and func.id in self._locals:
            return self._resolve(func) if func.id in self._imported else None
        if isinstance(func, (ast.Name, ast.Attribute)):
            return self._resolve(func)
        return None

    @cached_property
    def _imported(self) -> frozenset[str]:
        """Names the function binds only by an ``import`` of its own (``from .helpers import
        _empty_like``): what they name is the module's."""
        imported: set[str] = set()
        stored: set[str] = set()
        for node in ast.walk(self._node):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                imported.update((alias.asname or alias.name).partition(".")[0] for alias in node.names)
            elif isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
                stored.add(node.id)
        return frozenset(imported - stored)

    def literal(self, expr: ast.expr) -> tuple[object] | None:
        """``(value,)`` for a literal: a constant, a module-level name (as ``Sym``), or a tuple of them."""
        if isinstance(expr, ast.Constant) and isinstance(expr.value, LITERAL_TYPES):
            return (expr.value,)
        if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.USub) and isinstance(expr.operand, ast.Constant) \
                and isinstance(expr.operand.value, (int, float)) and not isinstance(expr.operand.value, bool):
            return (-expr.operand.value,)
        if isinstance(expr, (ast.Tuple, ast.List, ast.Set)):
            items = [self.literal(e) for e in expr.elts]
            return None if any(i is None for i in items) else (tuple(i[0] for i in items),)  # type: ignore[index]
        if isinstance(expr, ast.Name) and expr.id in _BUILTIN_CLASSES and expr.id not in self._locals:
            return (Sym(f"builtins.{expr.id}"),)  # ``isinstance(x, int)``: a class, decided by name
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

    def true_when(self) -> frozenset[Test] | None:
        """What a one-statement predicate's being true says of its parameters (``return t.dtype in
        _GPU_DTYPES and t.numel() > 0 and ...``: the dtype and size tests), where that is one
        conjunction: a caller's ``_can_use_gpu(a)`` implies them (``Summary.true_when``)."""
        body = [s for s in self._node.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
        if len(body) != 1 or not isinstance(body[0], ast.Return) \
                or not isinstance(body[0].value, (ast.BoolOp, ast.Compare, ast.UnaryOp)):
            return None  # (a test it returns, not a value: ``return a.abs()`` is no predicate)
        when_true = self.test(body[0].value)[0]
        if len(when_true) != 1:
            return None
        (conjunction,) = when_true
        implied = frozenset(t for t in conjunction if t.subject[0] == "p")
        return implied or None

    def _values(self, expr: ast.expr) -> frozenset[Any] | None:
        literal = self.literal(expr)
        if literal is not None and isinstance(literal[0], Sym) and isinstance(expr, ast.Name) and self._constant:
            # ``t.dtype in _GPU_DTYPES`` with ``_GPU_DTYPES = frozenset({float32, ...})`` in this module
            bound = self._constant(expr.id)
            if isinstance(bound, ast.Call) and isinstance(bound.func, ast.Name) and len(bound.args) == 1 \
                    and bound.func.id in ("frozenset", "set", "tuple", "list") and not bound.keywords:
                bound = bound.args[0]
            literal = self.literal(bound) if isinstance(bound, (ast.Set, ast.Tuple, ast.List)) else None
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
        every = self._every(expr)
        if every is not None:
            return _pair(Test(every, None, True))
        agreement = self._agreement(expr)
        if agreement is not None:
            return agreement
        subject = self.subject(expr)
        if subject is None:
            return _UNKNOWN
        return _pair(Test(subject, None, True))

    def _compare(self, expr: ast.Compare) -> tuple[Condition, Condition]:
        if len(expr.ops) != 1:  # ``a == b == c``: each neighbouring pair, all of them
            if not all(isinstance(op, (ast.Eq, ast.NotEq)) for op in expr.ops):
                return _UNKNOWN
            operands = [expr.left, *expr.comparators]
            true, false = ALWAYS, NEVER
            for op, left, right in zip(expr.ops, operands, operands[1:]):
                pair_true, pair_false = self._compare(ast.Compare(left, [op], [right]))
                true, false = conjoin(true, pair_true), disjoin(false, pair_false)
            return true, false
        distinct = self._count_distinct(expr)
        if distinct is not None:
            return distinct
        op, left, right = expr.ops[0], expr.left, expr.comparators[0]
        if isinstance(op, (ast.In, ast.NotIn)):
            in_text = self._device_in_text(expr)
            if in_text is not None:
                return in_text
            subject, values = self.subject(left), self._values(right)
            if subject is None and values is not None:
                return self._normalised_test(left, values, isinstance(op, ast.In)) or _UNKNOWN
            if subject is None or values is None:
                return _UNKNOWN
            return _pair(Test(subject, values, isinstance(op, ast.In)))
        if isinstance(op, (ast.Gt, ast.GtE, ast.Lt, ast.LtE)):
            return self._size_order(left, op, right)
        if not isinstance(op, (ast.Eq, ast.NotEq, ast.Is, ast.IsNot)):
            return _UNKNOWN
        positive = isinstance(op, (ast.Eq, ast.Is))
        for name, other in ((left, right), (right, left)):
            if isinstance(name, ast.Name) and self.subject(name) is None:
                known = self.literal(other)
                if known is not None and not isinstance(known[0], tuple):
                    normalised = self._normalised_test(name, frozenset({known[0]}), positive)
                    if normalised is not None:
                        return normalised
        subject, literal = self.subject(left), self.literal(right)
        if subject is None or literal is None or (subject[0] == "g" and self._param_based(right)):
            subject, literal = self.subject(right), self.literal(left)
        if literal is None and isinstance(op, (ast.Eq, ast.NotEq)):
            relation = self._relation(left, right)
            if relation is not None:  # ``x.shape != y.shape``: decided once both are one tensor's
                return _pair(Test(relation, None, positive))
        if subject is None or literal is None or isinstance(literal[0], tuple):
            return _UNKNOWN
        value: Any = literal[0]
        if self._other_accelerator(subject, value):
            return (NEVER, ALWAYS) if isinstance(op, (ast.Eq, ast.Is)) else (ALWAYS, NEVER)
        return _pair(Test(subject, frozenset({value}), isinstance(op, (ast.Eq, ast.Is))))

    def _relation(self, left: ast.expr, right: ast.expr) -> Subject | None:
        """``("eq", l, r)`` for an equality of two parameters' attributes (``x.shape == y.shape``,
        ``a.dtype == b.dtype``): a caller passing one tensor for both decides it."""
        one, other = (self.subject(_unwrapped(side)) for side in (left, right))
        if one is None or other is None or one[0] != "p" or other[0] != "p" or one == other or not one[2] or not other[2]:
            return None  # (two tensors compared themselves, ``x == y``, are element-wise data)
        return relation(one, other)

    def _size_order(self, left: ast.expr, op: ast.cmpop, right: ast.expr) -> tuple[Condition, Condition]:
        """``n > 0``, ``a.numel() >= 1``, ``0 < a.shape[0]``, ``a.dim() <= 0``: a size is never
        negative, so an order with 0 or 1 is a test of zero (``!= 0`` or ``== 0``); any other
        order is not read."""
        if self.literal(left) is not None:  # ``0 < n``: ``n > 0``
            left, right = right, left
            op = {ast.Gt: ast.Lt(), ast.GtE: ast.LtE(), ast.Lt: ast.Gt(), ast.LtE: ast.GtE()}[type(op)]
        subject, literal = self.subject(left), self.literal(right)
        if subject is None or literal is None or not _is_size(subject) or type(literal[0]) is not int:
            return _UNKNOWN
        bound = literal[0]
        nonzero = (isinstance(op, ast.Gt) and bound == 0) or (isinstance(op, ast.GtE) and bound == 1)
        zero = (isinstance(op, ast.LtE) and bound == 0) or (isinstance(op, ast.Lt) and bound == 1)
        if not (nonzero or zero):
            return _UNKNOWN
        return _pair(Test(subject, frozenset({0}), zero))

    def _device_kept_from(self, expr: ast.expr) -> ast.expr | None:
        """The tensor whose device a local bound once has: ``x = a.to(torch.float64)``,
        ``x = a.float()``, ``x = a.contiguous()`` keep ``a``'s device (``sem.SAME_PLACE_OPS``,
        ``sem.DTYPE_CONVERSIONS``, ``.to`` of a dtype alone)."""
        if not (isinstance(expr, ast.Name) and expr.id in self.bound_once and expr.id not in self._params):
            return None
        value = self.bound_once[expr.id]
        if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute)):
            return None
        method = value.func.attr
        if method in sem.SAME_PLACE_OPS or method in sem.DTYPE_CONVERSIONS \
                or (method in sem.TARGET_TRANSFERS and converts_dtype_only(value)):
            return value.func.value
        return None

    def _device_in_text(self, expr: ast.Compare) -> tuple[Condition, Condition] | None:
        """``"mps" in str(x.device)``: the device's type, read from its text."""
        left, right = expr.left, expr.comparators[0]
        if not (isinstance(left, ast.Constant) and isinstance(left.value, str) and isinstance(right, ast.Call)
                and isinstance(right.func, ast.Name) and right.func.id == "str" and len(right.args) == 1):
            return None
        subject = self.subject(right.args[0])
        if subject is None or not self._other_accelerator((*subject[:2], (*subject[2], "type")), left.value):
            return None
        return (NEVER, ALWAYS) if isinstance(expr.ops[0], ast.In) else (ALWAYS, NEVER)

    def _other_accelerator(self, subject: Subject, value: Any) -> bool:
        """``x.device.type`` (or a ``device`` parameter's ``.type``) against another backend's
        device than this one's."""
        if self.device is None or not isinstance(value, str) or value == self.device or value not in BACKEND_DEVICES:
            return False
        if subject[0] != "p":
            return False
        path = subject[2]
        named_device = parameter_names(self.info)[subject[1]] == "device" and path == ("type",)
        return named_device or tuple(path[-2:]) == ("device", "type")

    def _param_based(self, expr: ast.expr) -> bool:
        subject = self.subject(expr)
        return subject is not None and subject[0] == "p"


def _statement_lists(node: ast.AST) -> Iterator[list[ast.stmt]]:
    """Every list of statements of the function (its body, its compound statements' arms), not
    those of nested definitions."""
    pending: list[list[ast.stmt]] = [node.body]  # type: ignore[attr-defined]
    while pending:
        block = pending.pop()
        yield block
        for stmt in block:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                continue
            for field in ("body", "orelse", "finalbody"):
                inner = getattr(stmt, field, None)
                if isinstance(inner, list) and inner and isinstance(inner[0], ast.stmt):
                    pending.append(inner)
            pending.extend(handler.body for handler in getattr(stmt, "handlers", ()) or ())


def _range_count(expr: ast.expr) -> str | None:
    """``n`` of ``range(n)``, a name."""
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and expr.func.id == "range" \
            and len(expr.args) == 1 and isinstance(expr.args[0], ast.Name):
        return expr.args[0].id
    return None


def _exits_when_zero(stmt: ast.stmt, name: str) -> bool:
    """``if n == 0: return ...`` (``not n``, ``n <= 0``, ``n < 1``), its body ending the function."""
    if not (isinstance(stmt, ast.If) and stmt.body and isinstance(stmt.body[-1], (ast.Return, ast.Raise))):
        return False
    test = stmt.test
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return isinstance(test.operand, ast.Name) and test.operand.id == name
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.left, ast.Name) \
            and test.left.id == name and isinstance(test.comparators[0], ast.Constant):
        op, bound = test.ops[0], test.comparators[0].value
        return (isinstance(op, (ast.Eq, ast.LtE)) and bound == 0) or (isinstance(op, ast.Lt) and bound == 1)
    return False


def _unwrapped(expr: ast.expr) -> ast.expr:
    """``tuple(x.shape)``, ``list(x.shape)``: ``x.shape`` (the same sizes, for an equality)."""
    while isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and expr.func.id in ("tuple", "list") \
            and len(expr.args) == 1 and not expr.keywords:
        expr = expr.args[0]
    return expr


def _is_size(subject: Subject) -> bool:
    """A count that is never negative: ``a.numel()``, ``a.dim()``, ``a.ndim``, ``a.shape[k]``,
    ``len(x)``."""
    if subject[0] == "c":
        return bool(subject[1] == "builtins.len")
    attrs: tuple[str, ...] = subject[2]
    return bool(attrs) and (attrs[-1] in sem.SIZE_ATTRIBUTES
                            or (len(attrs) >= 2 and attrs[-2] == "shape" and attrs[-1].startswith("[")))


def _attributes_of(expr: ast.expr, name: str) -> list[str] | None:
    """``t.device.type`` -> ``["device", "type"]`` for ``name`` ``t`` (``[]`` for ``t`` itself);
    None when ``expr`` is not an attribute chain on ``name``."""
    attrs: list[str] = []
    while isinstance(expr, ast.Attribute):
        attrs.append(expr.attr)
        expr = expr.value
    if not (isinstance(expr, ast.Name) and expr.id == name):
        return None
    attrs.reverse()
    return attrs


def _pair(test: Test) -> tuple[Condition, Condition]:
    return frozenset({frozenset({test})}), frozenset({frozenset({test.negated()})})


def _view_base(expr: ast.expr, resolve: Callable[[ast.expr], str | None]) -> str | None:
    """The name ``expr`` is a view, copy or like-made tensor of, by its spelling alone
    (``select(t, 0, i)``, ``t.permute(*p)``, ``narrow(a, d, i, n)``); None otherwise."""
    for _ in range(8):
        if isinstance(expr, ast.Name):
            return expr.id
        if not isinstance(expr, ast.Call):
            return None
        func = expr.func
        name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
        if name not in sem.SAME_PLACE_OPS:
            return None
        if isinstance(func, ast.Attribute) and resolve(func) is None:  # a method of the tensor, not a module's function
            expr = func.value
        elif expr.args and not isinstance(expr.args[0], ast.Starred):
            expr = expr.args[0]
        else:
            return None
    return None
