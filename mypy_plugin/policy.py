"""The no-CPU-fallback policy: checks that run only inside backend modules.

Every check reads the op's name, the static types of its receiver and arguments and, where
the types say nothing (bare ``torch.Tensor``), what the expressions themselves show
(``torch.arange(n)`` without ``device=``, ``.cpu()``, a default argument). Ops are
categorised through ``device_types._semantics``; nothing here lists torch op names.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from device_types._semantics import (
    ANY_DEVICE_PARAMETERS,
    COPY_SOURCES,
    DATA_DEPENDENT_SHAPES,
    DEVICE_PARAMETER,
    FIXED_TRANSFERS,
    HOST_SYNCS,
    MASK_INDEXING,
    MASK_OPS,
    METADATA,
    NUMPY_BRIDGES,
    READBACKS,
    SCALAR_CONVERSIONS,
    TARGET_TRANSFERS,
    TENSOR_DATA_FACTORIES,
    UPLOADED_PARAMETERS,
    is_like_factory,
)
from mypy.erasetype import erase_typevars
from mypy.nodes import (
    ARG_OPT,
    ARG_POS,
    Argument,
    AssignmentStmt,
    CallExpr,
    ClassDef,
    ComparisonExpr,
    Context,
    Decorator,
    Expression,
    ForStmt,
    FuncDef,
    IndexExpr,
    ListExpr,
    MemberExpr,
    NameExpr,
    OpExpr,
    OperatorAssignmentStmt,
    OverloadedFuncDef,
    StarExpr,
    Statement,
    TupleExpr,
    UnaryExpr,
    Var,
    WithStmt,
)
from mypy.plugin import CheckerPluginInterface
from mypy.subtypes import is_subtype
from mypy.types import AnyType, CallableType, Instance, Overloaded, Type, TypeOfAny, get_proper_type

from . import errorcodes as codes
from . import messages
from .config import Backend
from .report import code_enabled, fail_once
from .superseded import withdraw_device_conflicts
from .walk import blocks
from .types import (
    Invalid,
    callee_fullname,
    device_of_expr,
    device_of_type,
    is_ndarray,
    param_names,
    short_name,
    tensor_instance,
)

#: Ops that copy into their receiver from another tensor (the receiver is the target).
#: Not every in-place op with a free parameter: ``index_put_``'s indices and
#: ``resize_as_``'s template may sit anywhere, yet neither copies into its receiver.
COPY_INTO = frozenset(COPY_SOURCES)


@dataclass
class Call:
    """One call site, normalised: op name, receiver and arguments by parameter name."""

    name: str
    context: Context
    receiver: Expression | None = None
    receiver_type: Type | None = None
    #: (parameter name or None, argument expression, argument type)
    args: list[tuple[str | None, Expression, Type]] = field(default_factory=list)

    def arg(self, *names: str) -> tuple[Expression, Type] | None:
        for param, expr, typ in self.args:
            if param in names:
                return expr, typ
        return None


def _lookup(api: CheckerPluginInterface, expr: Expression) -> Type | None:
    lookup = getattr(api, "lookup_type_or_none", None)
    return lookup(expr) if lookup is not None else None


def _op_label(call: Call) -> str:
    if isinstance(call.context, OpExpr):
        return call.context.op
    return f".{call.name}()" if call.receiver is not None else f"{call.name}()"


# --- what an expression shows about the host ------------------------------------------


def host_origin(api: CheckerPluginInterface, expr: Expression, typ: Type | None) -> str | None:
    """Why ``expr`` is a CPU tensor, or None when neither its type nor its shape says so."""
    if isinstance(expr, CallExpr):
        origin = _host_call(api, expr)
        if origin is not None:
            return origin
    elif isinstance(expr, NameExpr) and isinstance(expr.node, Var):
        initializer = _default_of(api, expr.node)
        if initializer is not None and _host_call(api, initializer) is not None:
            return f'the default of parameter "{expr.name}" is created on the host'
    if device_of_type(typ) == "cpu" and tensor_instance(typ) is not None:
        return "a Tensor[CPU]"
    return None


def _host_call(api: CheckerPluginInterface, call: Expression) -> str | None:
    if not isinstance(call, CallExpr):
        return None
    callee = call.callee
    if isinstance(callee, MemberExpr) and tensor_instance(_lookup(api, callee.expr)) is not None:
        if FIXED_TRANSFERS.get(callee.name) == "cpu":
            return f'result of ".{callee.name}()"'
        if callee.name in TARGET_TRANSFERS:
            target = _call_device_arg(api, call, positional=0)
            if target == "cpu":
                return f'moved with ".{callee.name}()" to the CPU'
        return None
    fullname = callee_fullname(call)
    if fullname is None or not fullname.startswith("torch.") or not isinstance(callee, (NameExpr, MemberExpr)):
        return None
    name = fullname.rpartition(".")[2]
    if DEVICE_PARAMETER not in param_names(callee.node):
        return None
    if is_like_factory(name):
        return None
    device = _call_device_arg(api, call, positional=None)
    if device == "cpu":
        return f'created by "{name}()" on the CPU'
    if device is not None or any(n == DEVICE_PARAMETER for n in call.arg_names):
        return None
    data_param = TENSOR_DATA_FACTORIES.get(name)
    for arg, kind, arg_name in zip(call.args, call.arg_kinds, call.arg_names):
        if tensor_instance(_lookup(api, arg)) is not None:
            # built from a tensor: on that tensor's device (TENSOR_DATA_FACTORIES, *_like)
            if data_param is not None or kind == ARG_POS or arg_name is not None:
                return None
    return f'created by "{name}()" without device='


def _targets_elsewhere(api: CheckerPluginInterface, call: CallExpr, backend: Backend) -> bool:
    """Whether ``call`` moves or creates a tensor on a device other than the backend's
    that the call itself names (``.cpu()``, ``.to("cpu")``, ``.cuda()``,
    ``torch.zeros(n, device="cpu")``): that call is the mistake and is reported at its own
    site (device-cpu-call, device-cpu-target, device-wrong-device), so an op consuming
    its result adds no second diagnostic."""
    callee = call.callee
    if isinstance(callee, MemberExpr) and tensor_instance(_lookup(api, callee.expr)) is not None:
        fixed = FIXED_TRANSFERS.get(callee.name)
        if fixed is not None:
            return fixed != backend.device
        if callee.name in TARGET_TRANSFERS:
            target = _call_device_arg(api, call, positional=0)
        elif is_like_factory(callee.name):
            target = _call_device_arg(api, call, positional=None)
        else:
            return False
        return target is not None and target != backend.device
    fullname = callee_fullname(call)
    if fullname is None or not fullname.startswith("torch.") or not isinstance(callee, (NameExpr, MemberExpr)):
        return False
    if DEVICE_PARAMETER not in param_names(callee.node):
        return False
    target = _call_device_arg(api, call, positional=None)
    return target is not None and target != backend.device


def _call_device_arg(api: CheckerPluginInterface, call: CallExpr, positional: int | None) -> str | None:
    for i, (arg, arg_name) in enumerate(zip(call.args, call.arg_names)):
        if arg_name == DEVICE_PARAMETER or (arg_name is None and i == positional):
            device = device_of_expr(arg, _lookup(api, arg))
            return device if isinstance(device, str) and not isinstance(device, Invalid) else None
    return None


def _default_of(api: CheckerPluginInterface, var: Var) -> Expression | None:
    scope = getattr(api, "scope", None)
    func = scope.current_function() if scope is not None else None
    arguments: list[Argument] = getattr(func, "arguments", None) or []
    for argument in arguments:
        if argument.variable is var:
            return argument.initializer
    return None


# --- the checks -------------------------------------------------------------------------


def check_tensor_method(api: CheckerPluginInterface, call: Call, backend: Backend) -> None:
    name = call.name
    if name in METADATA:
        return  # numel(), size(), dim(), ...: metadata of a CPU tensor is not its data
    if name in FIXED_TRANSFERS:
        target = FIXED_TRANSFERS[name]
        if target == "cpu":
            fail_once(api, messages.cpu_call(f".{name}", backend), call.context, codes.CPU_CALL)
            withdraw_device_conflicts(api, call.context)  # ``return x.cpu()`` into ``-> Tensor[MPS]``
            return
        if target != backend.device:
            fail_once(
                api, messages.wrong_device(f'the result of ".{name}()"', target, backend), call.context,
                codes.WRONG_DEVICE,
            )
            withdraw_device_conflicts(api, call.context)
    elif name in READBACKS:
        if not (isinstance(call.receiver, CallExpr) and _targets_elsewhere(api, call.receiver, backend)):
            # (``x.cpu().numpy()``: one mistake, reported at the transfer)
            fail_once(api, messages.readback(f".{name}", backend), call.context, codes.READBACK)
        withdraw_device_conflicts(api, call.context, *(expr for _, expr, _ in call.args))
        return
    elif name in HOST_SYNCS:
        fail_once(api, messages.host_sync(f'".{name}()"', backend), call.context, codes.HOST_SYNC)
    elif name in DATA_DEPENDENT_SHAPES or name in MASK_INDEXING:
        check_data_dependent(api, call, backend)
    elif name in TARGET_TRANSFERS:
        _check_target(api, call, backend, f'".{name}()"', ("device",))
        # the arguments name the target (checked above); only the receiver is an operand
        call = Call(name, call.context, call.receiver, call.receiver_type)
    if name in COPY_INTO and call.receiver is not None:
        if _from_reported_host_data(api, call.receiver, backend):
            return  # ``y = torch.empty(n, device="cpu"); y.copy_(x)``: reported at the factory
        if host_origin(api, call.receiver, call.receiver_type) is not None:
            fail_once(
                api, messages.cpu_target(f'".{name}()" into a CPU tensor', backend), call.context,
                codes.CPU_TARGET,
            )
            return
    check_operands(api, call, backend)


def check_function(api: CheckerPluginInterface, call: Call, fullname: str, backend: Backend) -> None:
    name = call.name
    if name in NUMPY_BRIDGES:
        if call.args and _from_reported_host_data(api, call.args[0][1], backend):
            return  # ``torch.from_numpy(x.numpy() * 2)``: reported at the readback
        fail_once(api, messages.numpy_call(f'"torch.{name}()"', backend), call.context, codes.NUMPY)
        return
    data_param = TENSOR_DATA_FACTORIES.get(name)
    if data_param is not None:
        data = call.arg(data_param)
        if data is not None and is_ndarray(data[1]):
            if _from_reported_host_data(api, data[0], backend):
                return
            fail_once(api, messages.numpy_call(f'"torch.{name}()" of an ndarray', backend), call.context, codes.NUMPY)
            return
    if call.arg(DEVICE_PARAMETER) is not None:
        if _check_target(api, call, backend, f'"{name}()"', (DEVICE_PARAMETER,)):
            return
    if name in DATA_DEPENDENT_SHAPES:
        check_data_dependent(api, call, backend)
    check_operands(api, call, backend)


# --- implicit host syncs (device-host-sync, opt-in) -------------------------------------


def check_data_dependent(api: CheckerPluginInterface, call: Call, backend: Backend) -> None:
    """``torch.nonzero(x)``, ``x.unique()``, ``x[x > 0]``: the result's size comes from the
    data, so the host waits for the device."""
    if not code_enabled(api, codes.HOST_SYNC):
        return
    if call.name in DATA_DEPENDENT_SHAPES:
        label = _op_label(call)
        fail_once(api, messages.host_sync(f'"{label}"', backend, messages.SHAPE_SYNC), call.context, codes.HOST_SYNC)
    elif call.args and is_mask(api, call.args[0][1]):
        fail_once(api, messages.host_sync("indexing with a boolean mask", backend, messages.SHAPE_SYNC),
                  call.context, codes.HOST_SYNC)


def check_conversion(api: CheckerPluginInterface, builtin: str, context: Context, value: Expression,
                     value_type: Type | None, backend: Backend) -> None:
    """``int(t)``, ``float(t)``, ``bool(t)`` of a tensor (SCALAR_CONVERSIONS)."""
    if builtin in SCALAR_CONVERSIONS and tensor_instance(value_type) is not None and code_enabled(api, codes.HOST_SYNC):
        # bool(t) is what ``if t:`` calls (Tensor.__bool__): a Python bool decides something,
        # so the advice is the condition's (select on the device), not "keep a 0-d tensor".
        kind = messages.CONDITION_SYNC if builtin == "bool" else messages.SCALAR_SYNC
        fail_once(api, messages.host_sync(f'"{builtin}()" of a tensor', backend, kind), context, codes.HOST_SYNC)


def check_condition(api: CheckerPluginInterface, condition: Expression, condition_type: Type | None,
                    backend: Backend) -> None:
    """``if t.any():``, ``while t:``, ``not t``: a tensor converted to a Python bool."""
    if tensor_instance(condition_type) is not None:
        fail_once(api, messages.host_sync("a tensor condition", backend, messages.CONDITION_SYNC), condition,
                  codes.HOST_SYNC)


def is_mask(api: CheckerPluginInterface, expr: Expression, depth: int = 0) -> bool:
    """Whether ``expr`` is a boolean tensor by its shape: a comparison of tensors, an op of
    MASK_OPS, ``&``/``|``/``^``/``~`` of masks, or a local variable assigned only masks."""
    if depth > 16 or tensor_instance(_lookup(api, expr)) is None:
        return False
    if isinstance(expr, ComparisonExpr):
        return all(op not in ("in", "not in", "is", "is not") for op in expr.operators)
    if isinstance(expr, OpExpr):
        return expr.op in ("&", "|", "^") and is_mask(api, expr.left, depth + 1)
    if isinstance(expr, UnaryExpr):
        return expr.op == "~" and is_mask(api, expr.expr, depth + 1)
    if isinstance(expr, CallExpr) and isinstance(expr.callee, (NameExpr, MemberExpr)):
        return expr.callee.name in MASK_OPS
    if isinstance(expr, NameExpr) and isinstance(expr.node, Var):
        values = _local_values(api, expr.node)
        return bool(values) and all(is_mask(api, value, depth + 1) for value in values)
    return False


def check_numpy(api: CheckerPluginInterface, context: Context, backend: Backend) -> None:
    if isinstance(context, Expression) and _only_reported_operands(api, context, backend):
        return  # ``x.numpy() > 0``, ``np.exp(np.zeros(3))``: one mistake, reported at its root
    name = short_name(context) if isinstance(context, Expression) else "call"
    fail_once(api, messages.numpy_call(f'numpy "{name}"', backend), context, codes.NUMPY)


def _is_host_data(typ: Type | None) -> bool:
    """A tensor, a numpy array or scalar, or unknown (numpy's ufuncs return Any)."""
    p = get_proper_type(typ) if typ is not None else None
    if isinstance(p, AnyType):
        return True
    if not isinstance(p, Instance):
        return False
    return p.type.fullname.startswith("numpy.") or tensor_instance(p) is not None


#: function -> (the function, each local variable's assigned values); the last one only:
#: a module is checked function by function.
_LOCALS: list[tuple[object, dict[Var, list[Expression]]]] = []


def _local_values(api: CheckerPluginInterface, var: Var) -> list[Expression]:
    """The values assigned to ``var`` in the function being checked (empty for a parameter,
    a global, or a variable also bound otherwise: ``for``, ``with``, unpacking)."""
    scope = getattr(api, "scope", None)
    func = scope.current_function() if scope is not None else None
    if func is None:
        return []
    if not _LOCALS or _LOCALS[0][0] is not func:
        _LOCALS[:] = [(func, _assigned_values(func))]
    return _LOCALS[0][1].get(var, [])


def _assigned_values(func: Any) -> dict[Var, list[Expression]]:
    values: dict[Var, list[Expression]] = {}
    unsure: set[Var] = {argument.variable for argument in getattr(func, "arguments", None) or []}
    pending: list[Statement] = list(func.body.body)
    while pending:
        stmt = pending.pop()
        if isinstance(stmt, AssignmentStmt):
            for lvalue in stmt.lvalues:
                if isinstance(lvalue, NameExpr) and isinstance(lvalue.node, Var):
                    values.setdefault(lvalue.node, []).append(stmt.rvalue)
                else:
                    unsure.update(_bound_names(lvalue))
        elif isinstance(stmt, OperatorAssignmentStmt):
            unsure.update(_bound_names(stmt.lvalue))
        elif isinstance(stmt, (FuncDef, Decorator, OverloadedFuncDef, ClassDef)):
            continue  # its own scope
        else:
            if isinstance(stmt, ForStmt):
                unsure.update(_bound_names(stmt.index))
            elif isinstance(stmt, WithStmt):
                for target in stmt.target:
                    if target is not None:
                        unsure.update(_bound_names(target))
            for block in blocks(stmt):
                pending.extend(block.body)
    return {var: exprs for var, exprs in values.items() if var not in unsure}


def _bound_names(lvalue: Expression) -> list[Var]:
    if isinstance(lvalue, NameExpr) and isinstance(lvalue.node, Var):
        return [lvalue.node]
    if isinstance(lvalue, (TupleExpr, ListExpr)):
        return [var for item in lvalue.items for var in _bound_names(item)]
    if isinstance(lvalue, StarExpr):
        return _bound_names(lvalue.expr)
    return []


def _data_operands(expr: Expression) -> list[Expression]:
    if isinstance(expr, CallExpr):
        receiver = [expr.callee.expr] if isinstance(expr.callee, MemberExpr) else []
        return [*receiver, *expr.args]
    if isinstance(expr, OpExpr):
        return [expr.left, expr.right]
    if isinstance(expr, ComparisonExpr):
        return list(expr.operands)
    if isinstance(expr, IndexExpr):
        return [expr.base, expr.index]
    if isinstance(expr, (MemberExpr, UnaryExpr)):
        return [expr.expr]
    return []


def _from_reported_host_data(api: CheckerPluginInterface, expr: Expression, backend: Backend, depth: int = 0) -> bool:
    """Whether ``expr`` is host data whose every source the plugin reports at its own site:
    a readback (``x.numpy()``), a transfer away from the backend's device (``x.cpu()``,
    ``torch.zeros(n, device="cpu")``), numpy (``np.exp(a)``), or an expression or local
    variable built only from those. Consuming it is the same mistake, so it adds no
    diagnostic: ``(x.numpy() > 0).any()`` is one device-readback, ``softplus(x.cpu())``
    one device-cpu-call. (The policy's rule: one finding per fallback path, at its root.)
    Memoised per expression: an op's operands are asked again by each enclosing op."""
    known = _HOST_DATA.get(id(expr))
    if known is not None and known[0] is expr:
        return known[1]
    if len(_HOST_DATA) > 4096:
        _HOST_DATA.clear()
    found = _HOST_DATA[id(expr)] = (expr, _host_data(api, expr, backend, depth))
    return found[1]


#: id(expression) -> (the expression, whether it is reported host data); the expression is
#: held so that no id is reused while its entry lives.
_HOST_DATA: dict[int, tuple[Expression, bool]] = {}


def _host_data(api: CheckerPluginInterface, expr: Expression, backend: Backend, depth: int) -> bool:
    if device_of_type(_lookup(api, expr)) == backend.device:
        return False  # typed on the backend's device: not host data
    if _reported_root(api, expr, backend):
        return True
    if depth > 32:
        return False
    if isinstance(expr, NameExpr) and isinstance(expr.node, Var):
        # ``host = x.cpu().numpy()``, then numpy on ``host``: a local variable every
        # assignment of which (in this function) is such host data
        values = _local_values(api, expr.node)
        return bool(values) and all(_from_reported_host_data(api, value, backend, depth + 1) for value in values)
    return _only_reported_operands(api, expr, backend, depth)


def _only_reported_operands(api: CheckerPluginInterface, expr: Expression, backend: Backend, depth: int = 0) -> bool:
    """Whether ``expr`` computes with data and all of it is reported host data."""
    data = [
        operand for operand in _data_operands(expr)
        if _is_host_data(_lookup(api, operand)) or (
            isinstance(operand, CallExpr) and isinstance(operand.callee, MemberExpr)
            and operand.callee.name in READBACKS
        )
    ]
    return bool(data) and all(_from_reported_host_data(api, operand, backend, depth + 1) for operand in data)


def _reported_root(api: CheckerPluginInterface, expr: Expression, backend: Backend) -> bool:
    if not isinstance(expr, CallExpr):
        return False
    callee = expr.callee
    if isinstance(callee, MemberExpr):
        receiver = _lookup(api, callee.expr)
        if callee.name in READBACKS and tensor_instance(receiver) is not None:
            return True
        if _is_numpy(receiver):
            return True  # an ndarray method: device-numpy
    fullname = callee_fullname(expr)
    if fullname is not None and fullname.startswith("numpy."):
        return True  # device-numpy
    return _targets_elsewhere(api, expr, backend)


def _is_numpy(typ: Type | None) -> bool:
    p = get_proper_type(typ) if typ is not None else None
    return isinstance(p, Instance) and p.type.fullname.startswith("numpy.")


def _check_target(
    api: CheckerPluginInterface, call: Call, backend: Backend, label: str, params: tuple[str, ...]
) -> bool:
    found = call.arg(*params)
    if found is None:
        return False
    device = device_of_expr(*found)
    if device is None or isinstance(device, Invalid):
        return False
    if device == "cpu":
        fail_once(api, messages.cpu_target(label, backend), call.context, codes.CPU_TARGET)
    elif device != backend.device:
        fail_once(api, messages.wrong_device(f"the result of {label}", device, backend), call.context,
                  codes.WRONG_DEVICE)
    else:
        return False
    withdraw_device_conflicts(api, call.context)  # ``return x.to("cuda")`` into ``-> Tensor[MPS]``
    return True
    return False


def _operands(api: CheckerPluginInterface, call: Call) -> list[tuple[Expression, Type | None]]:
    # a host-built index map is still a CPU operand here, though torch uploads it itself
    skip = ANY_DEVICE_PARAMETERS.get(call.name, frozenset()) - UPLOADED_PARAMETERS.get(call.name, frozenset())
    positional = _positional_names(api, call) if skip else {}
    out: list[tuple[Expression, Type | None]] = []
    if call.receiver is not None:
        out.append((call.receiver, call.receiver_type))
    for param, expr, typ in call.args:
        if positional.get(id(expr), param) in skip:
            continue
        if isinstance(expr, (ListExpr, TupleExpr)):
            out.extend((item, _lookup(api, item)) for item in expr.items)
        else:
            out.append((expr, typ))
    return out


def _positional_names(api: CheckerPluginInterface, call: Call) -> dict[int, str | None]:
    """The parameter each positional argument of ``call`` binds to, in the first overload
    its argument types fit (the per-call hook names them after the first overload, the
    module pass not at all): ``x.tensor_split(idx)`` with a tensor ``idx`` binds
    ``tensor_indices_or_sections``, not the first overload's ``indices``. By ``id`` of the
    argument expression; empty where the callee's signature is not known."""
    context = call.context
    if not isinstance(context, CallExpr):
        return {}
    arguments = [(arg, _lookup(api, arg)) for arg, kind in zip(context.args, context.arg_kinds) if kind is ARG_POS]
    if not any(tensor_instance(typ) is not None for _, typ in arguments):
        # The parameters that may sit on any device take tensors: only a tensor argument
        # can bind one (every overload fits an Any one, so the first overload's names,
        # which the hook gives, stand). Without this, ``.to(torch.float16)`` matched its
        # argument against every overload up to the dtype one (``is_subtype`` each).
        return {}
    callee = get_proper_type(_lookup(api, context.callee))
    items = callee.items if isinstance(callee, Overloaded) else [callee] if isinstance(callee, CallableType) else []
    for item in items:
        slots = [i for i, kind in enumerate(item.arg_kinds) if kind is ARG_POS or kind is ARG_OPT]
        if len(slots) < len(arguments):
            continue
        if all(typ is not None and is_subtype(typ, erase_typevars(item.arg_types[slot]))
               for (_, typ), slot in zip(arguments, slots)):
            return {id(arg): item.arg_names[slot] for (arg, _), slot in zip(arguments, slots)}
    return {}


def check_operands(api: CheckerPluginInterface, call: Call, backend: Backend) -> None:
    devices: list[str] = []
    unknown: list[tuple[Expression, Type]] = []
    for expr, typ in _operands(api, call):
        if tensor_instance(typ) is None:
            if typ is not None and _unknown_any(typ):
                unknown.append((expr, typ))
            continue
        device = device_of_type(typ)
        if device == backend.device:
            if not isinstance(expr, CallExpr):
                # the common case: an operand already typed on the backend's device
                if device not in devices:
                    devices.append(device)
                continue
        elif _from_reported_host_data(api, expr, backend):
            # ``softplus(x.cpu())``: the transfer is the mistake, reported at its own site
            # (so is the readback of ``torch.from_numpy(x.numpy() * 2)``); mypy's line for
            # this call (the CPU argument) says the same
            withdraw_device_conflicts(api, call.context, *(arg for _, arg, _ in call.args))
            continue
        origin = host_origin(api, expr, typ) if device is None or device == "cpu" or isinstance(expr, CallExpr) else None
        if origin is not None:
            fail_once(api, messages.cpu_operand(_op_label(call), origin, backend), call.context, codes.CPU_OPERAND)
            withdraw_device_conflicts(api, call.context, *(expr for _, expr, _ in call.args))
            return
        if device is not None and device not in devices:
            devices.append(device)
        elif device is None and typ is not None:
            unknown.append((expr, typ))
    if len(devices) > 1:
        fail_once(api, messages.mixed_devices(_op_label(call), devices, backend), call.context, codes.MIXED_DEVICES)
        withdraw_device_conflicts(api, call.context, *(expr for _, expr, _ in call.args))
    elif devices and devices[0] != backend.device:
        fail_once(
            api, messages.wrong_device(f'an operand of "{_op_label(call)}"', devices[0], backend), call.context,
            codes.WRONG_DEVICE,
        )
    elif devices and unknown and code_enabled(api, codes.UNKNOWN_OPERAND):
        for expr, typ in unknown:
            if _made_by_a_helper(api, expr):
                _report_unknown(api, call, expr, typ, backend)
                break


def _unknown_any(typ: Type) -> bool:
    """An ``Any`` that stands for a missing annotation (a helper ``def positions(n: int):``
    without a return type): what the helper made is unknown. Not an explicit ``Any`` (the
    code says "anything", often a scalar from a config object), not one mypy made from an
    error it reported (one diagnostic per mistake)."""
    p = get_proper_type(typ)
    if not isinstance(p, AnyType):
        return False
    if p.type_of_any == TypeOfAny.from_another_any and p.source_any is not None:
        p = p.source_any
    return p.type_of_any == TypeOfAny.unannotated


def _made_by_a_helper(api: CheckerPluginInterface, expr: Expression, depth: int = 0) -> bool:
    """``helper(n)`` (a callable outside torch, not a tensor method), or a local variable
    assigned only such calls: where a helper hides the device of what it made. Not a
    parameter typed bare ``torch.Tensor``, nor torch ops on one (gradual code: the caller's
    types decide), nor a value computed from a reported unknown (``b = x * helper(n)``)."""
    if isinstance(expr, CallExpr):
        callee = expr.callee
        if isinstance(callee, MemberExpr) and tensor_instance(_lookup(api, callee.expr)) is not None:
            return False
        fullname = callee.fullname if isinstance(callee, (NameExpr, MemberExpr)) else None
        return not (fullname or "").startswith("torch.")
    if depth < 4 and isinstance(expr, NameExpr) and isinstance(expr.node, Var):
        values = _local_values(api, expr.node)
        return bool(values) and all(_made_by_a_helper(api, value, depth + 1) for value in values)
    return False


def _report_unknown(api: CheckerPluginInterface, call: Call, expr: Expression, typ: Type, backend: Backend) -> None:
    """device-unknown-operand (opt-in): an operand typed ``Tensor[Any]`` or ``Any`` next to one
    typed on the backend's device; a helper's ``-> torch.Tensor`` hides where it made it."""
    instance = tensor_instance(typ)
    type_text = f"{instance.type.name}[Any]" if instance is not None else "Any"
    if isinstance(expr, CallExpr):
        what = f'the result of "{short_name(expr)}()"'
    elif isinstance(expr, (NameExpr, MemberExpr)):
        what = f'"{expr.name}"'
    else:
        what = "an operand"
    fail_once(api, messages.unknown_operand(_op_label(call), what, type_text, backend), call.context,
              codes.UNKNOWN_OPERAND)
