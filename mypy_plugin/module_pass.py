"""The operand checks of the policy, once per backend module, over the types mypy inferred.

Why a pass and not a hook per call: mypy runs a call's return-type hook once for each
overload item it tries, and again whenever an enclosing overloaded call (``torch.where``)
re-checks its arguments; on an all-backend tree that is ~3.3 hook calls per call site, and
the dispatch alone (an "every hook returns mypy's type" control plugin) costs 4-12%,
more than the 5% the plugin may cost in all (``benchmarks/plugin_bench.py``). Most tensor ops need only the
operand check (the devices of receiver and arguments), which the finished module's type
map answers once per site. So the plugin keeps per-call hooks only for the names whose
check needs the call itself (transfers, read-backs, factories that refine a device, numpy)
and runs this pass from ``get_additional_indirect_deps``: mypy calls it once per module
after checking the module (``State.finish_passes``), before it reports the module's errors,
writes its cache and frees its types.

The pass sees each site as the per-call hook saw it (the same method name, receiver and
arguments), so both report the same findings; dmypy's fine-grained rechecks re-check single
functions without ``finish_passes`` and therefore keep the per-call hooks (``main.py``).
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Iterator
from typing import Any, Optional

from device_types._semantics import (
    DATA_DEPENDENT_SHAPES,
    DEVICE_PARAMETER,
    FIXED_TRANSFERS,
    MASK_INDEXING,
    METADATA,
    TARGET_TRANSFERS,
)
from mypy import operators
from mypy.nodes import (
    AssertStmt,
    AssignmentStmt,
    Block,
    CallExpr,
    ClassDef,
    ComparisonExpr,
    ConditionalExpr,
    Decorator,
    DictionaryComprehension,
    Expression,
    FUNC_NO_INFO,
    ForStmt,
    FuncDef,
    FuncItem,
    GeneratorExpr,
    IfStmt,
    IndexExpr,
    ListComprehension,
    ListExpr,
    MatchStmt,
    MemberExpr,
    MypyFile,
    NameExpr,
    OpExpr,
    OperatorAssignmentStmt,
    OverloadedFuncDef,
    SetComprehension,
    Statement,
    TryStmt,
    TupleExpr,
    UnaryExpr,
    WhileStmt,
)
from mypy.types import CallableType, Instance, Type, get_proper_type

from . import policy
from .config import Backend
from .errorcodes import HOST_SYNC
from .report import code_enabled
from .types import MARKER_DEVICE, is_tensor_info, tensor_instance
from .walk import blocks as _blocks

#: A site's arguments as a hook gets them: (keyword or None, expression, type).
Args = list[tuple[str | None, Expression, Type]]


class Dispatch:
    """What the per-call hooks already cover, so the pass skips those sites."""

    def __init__(
        self,
        method_hooked: Callable[[str], bool],
        function_hooked: Callable[[str], bool],
        alias_callee: Callable[[str], bool],
        receiver_methods: frozenset[str],
    ) -> None:
        #: a tensor method name that keeps its per-call hook
        self.method_hooked = method_hooked
        #: a function fullname that keeps its per-call hook
        self.function_hooked = function_hooked
        #: a callee fullname through which a bound tensor method may be called (``host()``)
        self.alias_callee = alias_callee
        #: tensor methods whose receiver alone is the finding (``.cpu``, ``.numpy``, ...)
        self.receiver_methods = receiver_methods


def check_module(checker: Any, tree: MypyFile, backend: Backend, dispatch: Dispatch) -> None:
    """Run the policy on every site of ``tree`` that no per-call hook covers."""
    types: dict[Expression, Type] = checker._type_maps[0]
    device = backend.device
    syncs = code_enabled(checker, HOST_SYNC)
    pending: list[Site] = []
    conditions: list[Expression] = []
    for expr in types:
        handler = _HANDLERS.get(type(expr))
        site = handler(expr, types, dispatch) if handler is not None else None
        if site is not None and not _needs_nothing(site[0], device, dispatch, syncs):
            pending.append(site)
        elif syncs and type(expr) in _CONDITION_HOLDERS:
            conditions.extend(_held_conditions(expr))
    for stmt in _statements(tree.defs, [], conditions if syncs else None):
        site = _statement_site(stmt, types)
        if site is not None and not _needs_nothing(site[0], device, dispatch, syncs):
            pending.append(site)
    seen: set[int] = set()
    for condition in conditions:
        for operand in _bool_operands(condition):
            if id(operand) not in seen and tensor_instance(types.get(operand)) is not None:
                seen.add(id(operand))
                pending.append((policy.Call("__bool__", operand, operand, types[operand]), _CONDITION))
    if not pending:
        return
    errors = checker.msg.errors
    errors.set_file(checker.path, tree.fullname, scope=checker.tscope, options=checker.options)
    pending.sort(key=lambda site: (site[0].context.line, site[0].context.column))
    functions = sorted(_functions(tree.defs), key=lambda f: f.line)
    with checker.tscope.module_scope(tree.fullname):
        with _Scopes(checker, functions) as scopes:
            for call, fullname in pending:
                scopes.enter(call.context.line)
                if fullname is _CONDITION:
                    assert isinstance(call.context, Expression)
                    policy.check_condition(checker, call.context, call.receiver_type, backend)
                elif fullname is None:
                    policy.check_tensor_method(checker, call, backend)
                else:
                    policy.check_function(checker, call, fullname, backend)


# --- the sites ---------------------------------------------------------------------------

#: A site as its per-call hook saw it, and the function's fullname (None: a tensor method).
Site = tuple["policy.Call", Optional[str]]

#: Tensor classes whose first type argument is the device, and types that are no tensor.
_TENSORS = frozenset({"torch._tensor.Tensor", "torch._C.TensorBase"})
_NUMBERS = frozenset({"builtins.int", "builtins.float", "builtins.bool", "builtins.complex"})


#: The "fullname" of a condition site: a tensor converted to a Python bool.
_CONDITION = "<condition>"


def _bool_operands(expr: Expression) -> Iterator[Expression]:
    """The operands a condition converts to bool: both sides of ``and``/``or``, the operand
    of ``not``."""
    if isinstance(expr, OpExpr) and expr.op in ("and", "or"):
        yield from _bool_operands(expr.left)
        yield from _bool_operands(expr.right)
    elif isinstance(expr, UnaryExpr) and expr.op == "not":
        yield from _bool_operands(expr.expr)
    else:
        yield expr


def _held_conditions(expr: Expression) -> list[Expression]:
    """The expressions that ``expr`` converts to bool: ``not t``, ``a if t else b``, the left
    operand of ``t and u`` (the right one is its value), comprehension conditions."""
    if isinstance(expr, UnaryExpr):
        return [expr.expr] if expr.op == "not" else []
    if isinstance(expr, ConditionalExpr):
        return [expr.cond]
    if isinstance(expr, OpExpr):
        return [expr.left] if expr.op in ("and", "or") else []
    if isinstance(expr, (ListComprehension, SetComprehension)):
        expr = expr.generator
    if isinstance(expr, (GeneratorExpr, DictionaryComprehension)):
        return [cond for conds in expr.condlists for cond in conds]
    return []


_CONDITION_HOLDERS = frozenset({
    UnaryExpr, ConditionalExpr, OpExpr, GeneratorExpr, DictionaryComprehension, ListComprehension, SetComprehension,
})


def _needs_nothing(call: policy.Call, device: str, dispatch: Dispatch, syncs: bool = False) -> bool:
    """The policy's common case, decided without it: every operand a tensor typed on the
    backend's device, or a number; no display (whose items the policy reads one by one)
    and no call whose shape could show a host tensor. ``check_operands`` reports nothing
    for such a site."""
    if call.name in dispatch.receiver_methods:
        return False  # ``host()`` of ``host = x.cpu``: the method is the finding
    if syncs and (call.name in DATA_DEPENDENT_SHAPES or call.name in MASK_INDEXING):
        return False  # ``x.nonzero()``, ``x[x > 0]``: host syncs (device-host-sync is on)
    operands = call.args if call.receiver is None else [(None, call.receiver, call.receiver_type), *call.args]
    for name, expr, typ in operands:
        kind = type(expr)
        if name == DEVICE_PARAMETER or kind is ListExpr or kind is TupleExpr:
            return False
        if kind is CallExpr and _may_show_host(expr, dispatch):  # type: ignore[arg-type]
            return False
        p = typ if type(typ) is Instance else get_proper_type(typ)
        if type(p) is not Instance:
            return False
        fullname = p.type.fullname
        if fullname in _NUMBERS:
            continue
        if fullname not in _TENSORS or not p.args:
            return False
        marker = p.args[0]
        if type(marker) is not Instance or MARKER_DEVICE.get(marker.type.fullname) != device:
            return False
    return True


def _may_show_host(call: CallExpr, dispatch: Dispatch) -> bool:
    """Whether ``policy.host_origin`` could read a host tensor off this call's shape
    (``_host_call``: a transfer method, or a torch callable with ``device``): a superset
    of the calls it reports, so that every other call is decided by its type alone."""
    callee = call.callee
    if isinstance(callee, MemberExpr) and (callee.name in FIXED_TRANSFERS or callee.name in TARGET_TRANSFERS):
        return True
    fullname = callee.fullname if isinstance(callee, (NameExpr, MemberExpr)) else None
    return fullname is not None and fullname.startswith("torch.") and dispatch.function_hooked(fullname)


def _method(name: str, context: Any, receiver: Expression | None, receiver_type: Type | None, args: Args) -> Site:
    return policy.Call(name, context, receiver, receiver_type, args), None


def _function(name: str, fullname: str, context: CallExpr, args: Args) -> Site:
    return policy.Call(name, context, None, None, args), fullname


def _call_args(call: CallExpr, types: dict[Expression, Type]) -> Args:
    # Parameter names matter to the policy only for the names that keep their hook
    # (device=, data=, the ANY_DEVICE_PARAMETERS ops), so the keyword is enough here.
    return [(name, arg, typ) for arg, name in zip(call.args, call.arg_names) if (typ := types.get(arg)) is not None]


def _call_site(call: CallExpr, types: dict[Expression, Type], dispatch: Dispatch) -> Site | None:
    callee = call.callee
    if isinstance(callee, MemberExpr):
        receiver_type = types.get(callee.expr)
        if tensor_instance(receiver_type) is not None:
            if callee.name in METADATA or dispatch.method_hooked(callee.name):
                return None
            assert receiver_type is not None
            return _method(callee.name, call, callee.expr, get_proper_type(receiver_type), _call_args(call, types))
    if not isinstance(callee, (NameExpr, MemberExpr)):
        return None
    fullname = callee.fullname
    if not fullname:
        return None
    if fullname.startswith("torch."):
        if dispatch.function_hooked(fullname):
            return None
        return _function(fullname.rpartition(".")[2], fullname, call, _call_args(call, types))
    if isinstance(callee, NameExpr) and dispatch.alias_callee(fullname):
        # ``host = x.cpu; host()``: a bound tensor method called through a name
        bound = get_proper_type(types.get(callee))
        definition = bound.definition if isinstance(bound, CallableType) else None
        info = getattr(definition, "info", None)
        name = getattr(definition, "name", "")
        if name in dispatch.receiver_methods and info is not None and is_tensor_info(info):
            return _method(name, call, None, None, _call_args(call, types))
    return None


def _op_site(op: OpExpr, types: dict[Expression, Type], dispatch: Dispatch) -> Site | None:
    method = operators.op_methods.get(op.op)
    if method is None:  # "and", "or"
        return None
    left, right = types.get(op.left), types.get(op.right)
    if tensor_instance(left) is not None:
        assert left is not None
        args: Args = [(None, op.right, right)] if right is not None else []
        return _method(method, op, op.left, get_proper_type(left), args)
    reverse = operators.reverse_op_methods.get(method)
    if reverse is not None and tensor_instance(right) is not None:
        # ``2.0 * x``: mypy calls the right operand's ``__rmul__`` with the left one as
        # argument; its hook took the left operand's node as the receiver expression
        assert right is not None
        args = [(None, op.left, left)] if left is not None else []
        return _method(reverse, op, op.left, get_proper_type(right), args)
    return None


def _comparison_site(comparison: ComparisonExpr, types: dict[Expression, Type], dispatch: Dispatch) -> Site | None:
    # The hook of the first pair that involves a tensor: its context is the whole
    # comparison, so the policy ran once per comparison, with the argument as operand.
    for left, right, operator in zip(comparison.operands, comparison.operands[1:], comparison.operators):
        left_type, right_type = types.get(left), types.get(right)
        if operator in ("in", "not in"):
            if tensor_instance(right_type) is not None and left_type is not None:
                return _method("__contains__", comparison, None, get_proper_type(right_type), [(None, left, left_type)])
            continue
        method = operators.op_methods.get(operator)
        if method is None:  # "is", "is not"
            continue
        if tensor_instance(left_type) is not None and right_type is not None:
            return _method(method, comparison, None, get_proper_type(left_type), [(None, right, right_type)])
        reverse = operators.reverse_op_methods.get(method)
        if reverse is not None and tensor_instance(right_type) is not None and left_type is not None:
            return _method(reverse, comparison, None, get_proper_type(right_type), [(None, left, left_type)])
    return None


def _index_site(index: IndexExpr, types: dict[Expression, Type], dispatch: Dispatch) -> Site | None:
    base = types.get(index.base)
    if tensor_instance(base) is None or index.index not in types:
        return None
    assert base is not None
    return _method("__getitem__", index, None, get_proper_type(base), [(None, index.index, types[index.index])])


def _statement_site(stmt: Statement, types: dict[Expression, Type]) -> Site | None:
    if isinstance(stmt, OperatorAssignmentStmt):
        target, value = types.get(stmt.lvalue), types.get(stmt.rvalue)
        instance = tensor_instance(target)
        if instance is None or value is None:
            return None  # no in-place method: mypy checked a synthetic OpExpr (in the type map)
        method = operators.op_methods.get(stmt.op, "")
        inplace = "__i" + method[2:]
        if stmt.op not in operators.ops_with_inplace_method or instance.type.get_method(inplace) is None:
            return None
        return _method(inplace, stmt, None, instance, [(None, stmt.rvalue, value)])
    if isinstance(stmt, AssignmentStmt):
        # ``x[i] = v``: mypy calls ``__setitem__`` with the index and the value
        for lvalue in stmt.lvalues:
            if isinstance(lvalue, IndexExpr):
                base = types.get(lvalue.base)
                if tensor_instance(base) is not None and lvalue.index in types and stmt.rvalue in types:
                    assert base is not None
                    args: Args = [(None, lvalue.index, types[lvalue.index]), (None, stmt.rvalue, types[stmt.rvalue])]
                    return _method("__setitem__", lvalue, None, get_proper_type(base), args)
    return None


_HANDLERS: dict[type, Callable[[Any, dict[Expression, Type], Dispatch], Optional[Site]]] = {
    CallExpr: _call_site,
    OpExpr: _op_site,
    ComparisonExpr: _comparison_site,
    IndexExpr: _index_site,
}


# --- statements and functions --------------------------------------------------------------


def _statements(body: list[Statement], out: list[Statement],
                conditions: list[Expression] | None = None) -> list[Statement]:
    """The in-place operator and index assignments, at any depth; with ``conditions``, also
    the conditions of ``if``, ``elif``, ``while`` and ``assert`` (added to it)."""
    for stmt in body:
        if isinstance(stmt, (OperatorAssignmentStmt, AssignmentStmt)):
            out.append(stmt)
        else:
            if conditions is not None:
                if isinstance(stmt, IfStmt):
                    conditions.extend(stmt.expr)
                elif isinstance(stmt, (WhileStmt, AssertStmt)):
                    conditions.append(stmt.expr)
            for block in _blocks(stmt):
                _statements(block.body, out, conditions)
    return out


def _functions(body: list[Statement]) -> Iterator[FuncItem]:
    for stmt in body:
        if isinstance(stmt, FuncDef):
            yield stmt
        elif isinstance(stmt, Decorator):
            yield stmt.func
        elif isinstance(stmt, OverloadedFuncDef):
            for item in [*stmt.items, *([stmt.impl] if stmt.impl is not None else [])]:
                yield item.func if isinstance(item, Decorator) else item
            continue
        for block in _blocks(stmt):
            yield from _functions(block.body)


class _Scopes:
    """Puts mypy's scopes where a per-call hook would have found them: the innermost
    function of a site (the policy reads its parameter defaults) and the outermost one
    with its class (mypy files the error under that target, which dmypy and
    ``--show-error-context`` use). Sites arrive sorted by line."""

    def __init__(self, checker: Any, functions: list[FuncItem]) -> None:
        self._checker = checker
        self._functions = functions
        self._starts = [f.line for f in functions]
        self._next = 0
        self._open: list[tuple[FuncItem, list[Any]]] = []

    def __enter__(self) -> _Scopes:
        return self

    def __exit__(self, *exc: object) -> None:
        while self._open:
            self._pop()

    def enter(self, line: int) -> None:
        while self._open and line > (self._open[-1][0].end_line or self._open[-1][0].line):
            self._pop()
        last = bisect_right(self._starts, line)
        while self._next < last:
            function = self._functions[self._next]
            self._next += 1
            if (function.end_line or function.line) < line:
                continue  # no site in it
            while self._open and (self._open[-1][0].end_line or 0) < function.line:
                self._pop()
            self._push(function)

    def _push(self, function: FuncItem) -> None:
        managers: list[Any] = []
        if not self._open:
            info = getattr(function, "info", None)
            if isinstance(function, FuncDef) and info is not None and info is not FUNC_NO_INFO:
                managers.append(self._checker.tscope.class_scope(info))
            managers.append(self._checker.tscope.function_scope(function))
        managers.append(self._checker.scope.push_function(function))
        for manager in managers:
            manager.__enter__()
        self._open.append((function, managers))

    def _pop(self) -> None:
        _, managers = self._open.pop()
        for manager in reversed(managers):
            manager.__exit__(None, None, None)

