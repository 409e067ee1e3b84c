"""The plugin class: dispatches mypy's hooks by name to the per-concern modules.

Hot path: mypy asks for hooks ~40k times while it checks torch itself. ``get_*_hook``
answer from a per-name cache; callbacks return at once outside backend modules unless the
call can refine a device (factories with ``device=``, ``.to``).

Two dispatches of the policy (docs/performance.md, "The mypy plugin"):

* **per module** (mypy, the default): per-call hooks only for the names whose check needs
  the call itself (transfers, read-backs, host syncs, copies, factories and methods that
  take ``device=``, numpy); every other tensor op is checked once per site by
  ``module_pass`` after mypy has checked the module. mypy calls a hook once per overload
  item it tries, so a hook on every op costs more than the policy itself.
* **per call** (dmypy, whose fine-grained rechecks re-check single functions and never
  reach the module pass): a hook on every tensor op, as the policy needs.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from device_types._semantics import (
    ANY_DEVICE_PARAMETERS,
    DEVICE_PARAMETER,
    FIXED_TRANSFERS,
    HOST_SYNCS,
    NUMPY_BRIDGES,
    READBACKS,
    SCALAR_CONVERSIONS,
    TARGET_TRANSFERS,
    TENSOR_DATA_FACTORIES,
    is_like_factory,
)
from mypy.checker_state import checker_state
from mypy.nodes import CallExpr, Context, FloatExpr, FuncDef, MemberExpr, MypyFile, OpExpr, TypeInfo, UnaryExpr, Var
from mypy.options import Options
from mypy.plugin import (
    AnalyzeTypeContext,
    FunctionContext,
    MethodContext,
    Plugin,
    ReportConfigContext,
)
from mypy.types import AnyType, CallableType, FunctionLike, Instance, Type, TypeOfAny, get_proper_type

from . import errorcodes as codes
from .config import Backend, PluginConfig
from .types import (
    MARKER_DEVICE,
    device_of_expr,
    TORCH_DEVICE_NAMES,
    is_tensor_info,
    param_names,
    takes_device_spec,
    tensor_instance,
)

#: Tensor methods whose receiver alone is the finding (also checked on unbound calls).
RECEIVER_METHODS = frozenset(FIXED_TRANSFERS) | READBACKS | HOST_SYNCS | TARGET_TRANSFERS
#: Tensor methods that keep a per-call hook in the per-module dispatch: their check reads
#: more than the operands' devices (the target of ``.to``, a copy's source, ``device=``).
CALL_METHODS = RECEIVER_METHODS | frozenset(ANY_DEVICE_PARAMETERS)
#: torch functions that keep a per-call hook besides those taking ``device=``: the
#: operand check of an op with parameters that may sit on any device needs the call's
#: parameter names, which the per-module pass does not have for positional arguments.
CALL_FUNCTIONS = NUMPY_BRIDGES | frozenset(TENSOR_DATA_FACTORIES) | frozenset(ANY_DEVICE_PARAMETERS)

#: ``int(t)``, ``float(t)``, ``bool(t)``: the builtins whose call on a tensor is a host sync.
CONVERSION_BUILTINS = {f"builtins.{name}": name for name in SCALAR_CONVERSIONS}

_TENSOR, _NUMPY, _OTHER = "tensor", "numpy", None


class _ImportedOnFirstUse:
    """A module imported when first used: a run that finds everything in mypy's cache
    checks nothing and never pays for the policy, refinement and message modules."""

    def __init__(self, name: str) -> None:
        self._name = name

    def __getattr__(self, attribute: str) -> Any:
        module = importlib.import_module(self._name)
        self.__dict__.update(module.__dict__)  # later lookups are plain attributes
        return getattr(module, attribute)


if TYPE_CHECKING:
    from . import messages, module_pass, policy, refine
else:
    messages, module_pass, policy, refine = (
        _ImportedOnFirstUse(f"{__package__}.{name}") for name in ("messages", "module_pass", "policy", "refine")
    )


class DeviceTypesPlugin(Plugin):
    #: None: per call under dmypy (fine-grained), per module otherwise; a bool forces one
    #: (benchmarks/plugin_bench.py measures both in one run).
    PER_CALL: bool | None = None

    def __init__(self, options: Options) -> None:
        super().__init__(options)
        self.settings = PluginConfig(options)
        self.per_call = options.fine_grained_incremental if self.PER_CALL is None else self.PER_CALL
        # per module: the checker of each backend module being checked, from the moment
        # mypy starts checking it (mypy's checker_state) until get_additional_indirect_deps
        self._checker: object = None
        self._pending: dict[str, Any] = {}
        self._dispatch: Any = None
        self._class_kind: dict[str, str | None] = {}
        self._method_hooks: dict[str, Callable[[MethodContext], Type] | None] = {}
        self._function_hooks: dict[str, Callable[[FunctionContext], Type] | None] = {}
        self._marker_hooks: dict[str, Callable[[AnalyzeTypeContext], Type]] = {}
        # The module being checked, its backend, and its call sites whose policy checks
        # already ran: mypy calls a hook once per overload item it tries (7 or more for a
        # factory with the overlay) and the findings concern the call site, not the item.
        # Keyed by node identity; the nodes are held so that no id is reused meanwhile.
        self._tree: object = None
        self._scope: object = None
        self._tree_backend: Backend | None = None
        # Modules whose errors mypy does not report (installed packages, torch itself):
        # nobody reads their types, so they get no refinement either.
        self._tree_silent = False
        self._policy_done: dict[int, Context] = {}
        self._arg_devices: dict[int, tuple[Any, str | None]] = {}
        self._device_spec_callees: dict[str, bool] = {}

    # --- configuration -------------------------------------------------------------------

    def report_config_data(self, ctx: ReportConfigContext) -> Any:
        settings = self.settings
        # mypy asks for every module it loads (~1,900 with torch, on every run): most share
        # no top-level package with a backend, answered here without a call
        if settings.error is None and ctx.id.partition(".")[0] not in settings.roots:
            return None
        settings.raise_if_broken()
        return settings.report_data(ctx.id)

    def get_additional_deps(self, file: MypyFile) -> list[tuple[int, str, int]]:
        self.settings.raise_if_broken()
        return []

    # --- the per-module pass ------------------------------------------------------------------

    def _note_checker(self) -> None:
        """Called from the hook lookups when the module being checked changes."""
        checker: Any = checker_state.type_checker
        self._checker = checker
        if self.per_call or checker is None:
            return
        tree = checker.tree
        if self.settings.backend_of(tree.fullname) is not None:
            self._pending[tree.fullname] = checker

    def get_additional_indirect_deps(self, file: MypyFile) -> set[str]:
        """mypy calls this once per module after checking it and before reporting its
        errors (State.finish_passes): the policy's per-module pass runs here."""
        checker = self._pending.pop(file.fullname, None) if self._pending else None
        if checker is not None and checker.tree is file:
            backend = self.settings.backend_of(file.fullname)
            errors = checker.msg.errors
            if backend is not None and checker.path not in errors.ignored_files:
                try:
                    module_pass.check_module(checker, file, backend, self._module_dispatch())
                except Exception as exc:
                    if os.environ.get(STRICT_ENV) or type(exc).__module__.startswith("mypy"):
                        raise
        return set()

    def _module_dispatch(self) -> Any:
        if self._dispatch is None:
            self._dispatch = module_pass.Dispatch(
                method_hooked=lambda name: name in CALL_METHODS or is_like_factory(name),
                function_hooked=lambda fullname: self.get_function_hook(fullname) is not None,
                alias_callee=lambda fullname: "." not in fullname or self._in_backend_prefix(fullname),
                receiver_methods=RECEIVER_METHODS,
            )
        return self._dispatch

    def _backend(self, api: Any) -> Backend | None:
        """The backend of the module being checked (None outside backends)."""
        tree = api.tree
        # dmypy re-checks single functions of a module it keeps (same tree, same nodes)
        # after resetting the checker, which gives it a new scope: a new pass over them
        scope = api.scope
        if tree is not self._tree or scope is not self._scope:
            self._tree, self._scope, self._policy_done, self._arg_devices = tree, scope, {}, {}
            self._tree_backend = self.settings.backend_of(tree.fullname) if tree is not None else None
            errors = getattr(getattr(api, "msg", None), "errors", None)
            self._tree_silent = errors is not None and errors.file in errors.ignored_files
        return self._tree_backend

    def _first_visit(self, context: Context) -> bool:
        """True the first time the policy looks at this call site of the current module."""
        if id(context) in self._policy_done:
            return False
        self._policy_done[id(context)] = context
        return True

    # --- hook lookup -----------------------------------------------------------------------

    def _kind_of_class(self, fullname: str) -> str | None:
        try:
            return self._class_kind[fullname]
        except KeyError:
            pass
        kind: str | None = _OTHER
        if fullname.startswith("numpy."):
            kind = _NUMPY
        elif fullname.startswith("torch.") or self.settings.config.backends:
            sym = self.lookup_fully_qualified(fullname)
            if sym is not None and isinstance(sym.node, TypeInfo) and is_tensor_info(sym.node):
                kind = _TENSOR
        self._class_kind[fullname] = kind
        return kind

    def get_method_hook(self, fullname: str) -> Callable[[MethodContext], Type] | None:
        if checker_state.type_checker is not self._checker:
            self._note_checker()
        try:
            return self._method_hooks[fullname]
        except KeyError:
            pass
        hook: Callable[[MethodContext], Type] | None = None
        if " of " in fullname:
            # an unbound call through the class, ``torch.Tensor.cpu(x)``: mypy names it
            # "cpu of TensorBase"; the first argument is the receiver.
            name = fullname.partition(" of ")[0]
            if name in RECEIVER_METHODS:
                hook = _bind(self._unbound_tensor_method, name)
            self._method_hooks[fullname] = hook
            return hook
        if fullname in ROOT_POWERS:
            self._method_hooks[fullname] = hook = _guarded(self._root_power)
            return hook
        owner, _, name = fullname.rpartition(".")
        kind = self._kind_of_class(owner) if owner else None
        if kind is _TENSOR:
            refining = name in TARGET_TRANSFERS or is_like_factory(name)
            if refining:
                hook = _bind(self._tensor_method, name)
            elif self.per_call or name in CALL_METHODS:
                hook = _bind(self._tensor_op, name)
        elif kind is _NUMPY:
            hook = _guarded(self._numpy_method)
        self._method_hooks[fullname] = hook
        return hook

    def get_function_hook(self, fullname: str) -> Callable[[FunctionContext], Type] | None:
        if checker_state.type_checker is not self._checker:
            self._note_checker()
        try:
            return self._function_hooks[fullname]
        except KeyError:
            pass
        hook: Callable[[FunctionContext], Type] | None = None
        if fullname.startswith("numpy."):
            hook = _guarded(self._numpy_function)
        elif fullname in TORCH_DEVICE_NAMES:
            hook = _guarded(self._torch_device)
        elif fullname.startswith("torch."):
            owner, _, name = fullname.rpartition(".")
            if name in RECEIVER_METHODS and self._kind_of_class(owner) is _TENSOR:
                hook = _bind(self._unbound_tensor_method, name)
            elif self.per_call or name in CALL_FUNCTIONS or self._takes_device(fullname):
                hook = _bind(self._torch_function, fullname)
        elif fullname in CONVERSION_BUILTINS:
            hook = _bind(self._conversion, CONVERSION_BUILTINS[fullname])
        elif fullname.startswith("<"):
            pass  # mypy's own displays and comprehensions: "<list>", "<dict>", "<generator>"
        elif self.per_call and ("." not in fullname or self._in_backend_prefix(fullname)):
            # a local name (or a backend-module global) that may hold a bound tensor
            # method: ``host = x.cpu; host()``
            hook = _guarded(self._maybe_alias)
        self._function_hooks[fullname] = hook
        return hook

    def get_type_analyze_hook(self, fullname: str) -> Callable[[AnalyzeTypeContext], Type] | None:
        # mypy asks ~340k times in a cold run with torch; ~8 % of the answers are markers
        # (every ``Tensor[MPS]`` it analyses): one hook per marker, not one per answer
        if fullname in MARKER_DEVICE:
            hook = self._marker_hooks.get(fullname)
            if hook is None:
                hook = self._marker_hooks[fullname] = _bind(self._marker_type, fullname)
            return hook
        return None

    # --- callbacks ---------------------------------------------------------------------------

    def _tensor_op(self, name: str, ctx: MethodContext) -> Type:
        """A tensor method that cannot move the device (most of them): only the policy,
        inside backends, once per call site. mypy calls this once per overload item it
        tries, so the repeated visits return first."""
        backend = self._backend(ctx.api)
        if backend is not None and self._first_visit(ctx.context):
            call = policy.Call(name, ctx.context, _receiver(ctx.context), ctx.type, _args(ctx))
            policy.check_tensor_method(ctx.api, call, backend)
        return ctx.default_return_type

    def _tensor_method(self, name: str, ctx: MethodContext) -> Type:
        """``.to``/``.cuda``-like and ``new_*`` methods: refined everywhere, policy in backends."""
        backend = self._backend(ctx.api)
        refines = not self._tree_silent and (
            name in TARGET_TRANSFERS or (is_like_factory(name) and DEVICE_PARAMETER in ctx.callee_arg_names)
        )
        if backend is None and not refines:
            return ctx.default_return_type
        result = ctx.default_return_type
        if refines:
            result = self._refine(ctx, result, _arg(ctx, DEVICE_PARAMETER, "other"))
        if backend is not None and self._first_visit(ctx.context):
            call = policy.Call(name, ctx.context, _receiver(ctx.context), ctx.type, _args(ctx))
            policy.check_tensor_method(ctx.api, call, backend)
        return result

    def _refine(self, ctx: FunctionContext | MethodContext, result: Type, found: tuple[Any, Type] | None) -> Type:
        """``result`` with the device the argument names. mypy calls a factory's hook once
        per overload item it tries (8 or more): the device of an argument expression is
        read once per call site."""
        if found is None:
            return result
        expr = found[0]
        known = self._arg_devices.get(id(expr))
        if known is None or known[0] is not expr:
            known = self._arg_devices[id(expr)] = (expr, device_of_expr(*found))
        return refine.apply_device(ctx.api, result, known[1], ctx.context)

    def _in_backend_prefix(self, fullname: str) -> bool:
        return any(fullname.startswith(prefix + ".") for prefix in self.settings.config.backends)

    def _maybe_alias(self, ctx: FunctionContext) -> Type:
        backend = self._backend(ctx.api)
        if backend is None or not isinstance(ctx.context, CallExpr):
            return ctx.default_return_type
        lookup = getattr(ctx.api, "lookup_type_or_none", None)
        callee = get_proper_type(lookup(ctx.context.callee)) if lookup is not None else None
        definition = callee.definition if isinstance(callee, CallableType) else None
        info = getattr(definition, "info", None)
        name = getattr(definition, "name", "")
        if name in RECEIVER_METHODS and isinstance(info, TypeInfo) and is_tensor_info(info):
            call = policy.Call(name, ctx.context, None, None, _args(ctx))
            policy.check_tensor_method(ctx.api, call, backend)
        return ctx.default_return_type

    def _unbound_tensor_method(self, name: str, ctx: FunctionContext | MethodContext) -> Type:
        backend = self._backend(ctx.api)
        if backend is None or not ctx.args or not ctx.args[0]:
            return ctx.default_return_type
        args = _args(ctx)
        _, receiver, receiver_type = args[0]
        if tensor_instance(receiver_type) is None:
            return ctx.default_return_type
        call = policy.Call(name, ctx.context, receiver, receiver_type, args[1:])
        policy.check_tensor_method(ctx.api, call, backend)
        return ctx.default_return_type

    def _takes_device(self, fullname: str) -> bool:
        """Whether a torch callable (a class by its ``__init__``) has a ``device`` parameter."""
        sym = self.lookup_fully_qualified(fullname)
        node = sym.node if sym is not None else None
        if isinstance(node, TypeInfo):
            init = node.get("__init__")
            node = init.node if init is not None else None
        if isinstance(node, Var):  # a callable assigned to a name (``f = _add_docstr(...)``)
            signature = get_proper_type(node.type)
            items = signature.items if isinstance(signature, FunctionLike) else []
            return any(DEVICE_PARAMETER in item.arg_names for item in items)
        return DEVICE_PARAMETER in param_names(node)

    def _takes_device_spec(self, fullname: str) -> bool:
        """A ``device`` argument is read as a device only where torch types it as one."""
        known = self._device_spec_callees.get(fullname)
        if known is None:
            sym = self.lookup_fully_qualified(fullname)
            known = self._device_spec_callees[fullname] = takes_device_spec(sym.node if sym else None, DEVICE_PARAMETER)
        return known

    def _torch_function(self, fullname: str, ctx: FunctionContext) -> Type:
        backend = self._backend(ctx.api)
        refines = (
            not self._tree_silent and DEVICE_PARAMETER in ctx.callee_arg_names and self._takes_device_spec(fullname)
        )
        if backend is None and not refines:
            return ctx.default_return_type
        result = ctx.default_return_type
        if refines:
            result = self._refine(ctx, result, _arg(ctx, DEVICE_PARAMETER))
        if backend is not None and self._first_visit(ctx.context):
            name = fullname.rpartition(".")[2]
            policy.check_function(ctx.api, policy.Call(name, ctx.context, None, None, _args(ctx)), fullname, backend)
        return result

    def _conversion(self, builtin: str, ctx: FunctionContext) -> Type:
        """``int(t)``, ``float(t)``, ``bool(t)`` (device-host-sync): a per-call hook in both
        dispatches, as the pass reads calls of torch callables only."""
        backend = self._backend(ctx.api)
        if backend is not None and len(ctx.args) >= 1 and len(ctx.args[0]) == 1:
            policy.check_conversion(ctx.api, builtin, ctx.context, ctx.args[0][0], ctx.arg_types[0][0], backend)
        return ctx.default_return_type

    def _root_power(self, ctx: MethodContext) -> Type:
        """``d ** 0.5``, ``d ** -0.5`` in a backend: ``float`` where typeshed gives ``Any``.

        typeshed types ``int ** float`` and ``float ** float`` as ``Any`` (a negative base
        gives a complex), and an ``Any`` operand makes ``scores / (q.shape[-1] ** 0.5)``
        ``Any`` in every checker, so the attention scaling dropped the device of everything
        after it. In a backend module, with a float literal for the exponent, the plugin
        reads the power as a ``float`` (the scale of a size); it cannot make anything
        accepted that ``Any`` rejected. pyright has no plugin: docs/limits.md gives the
        spellings that keep the device there.
        """
        default = ctx.default_return_type
        context = ctx.context
        if not (isinstance(context, OpExpr) and context.op == "**" and isinstance(get_proper_type(default), AnyType)):
            return default
        exponent = context.right
        if isinstance(exponent, UnaryExpr) and exponent.op == "-":
            exponent = exponent.expr
        if not isinstance(exponent, FloatExpr) or self._backend(ctx.api) is None:
            return default
        return ctx.api.named_generic_type("builtins.float", [])

    def _torch_device(self, ctx: FunctionContext) -> Type:
        self._backend(ctx.api)
        if self._tree_silent:
            return ctx.default_return_type
        first = ctx.args[0][0] if ctx.args and ctx.args[0] else None
        return refine.refine_torch_device(ctx.api, ctx.default_return_type, first, ctx.context)

    def _numpy_function(self, ctx: FunctionContext) -> Type:
        backend = self._backend(ctx.api)
        if backend is not None:
            policy.check_numpy(ctx.api, ctx.context, backend)
        return ctx.default_return_type

    def _numpy_method(self, ctx: MethodContext) -> Type:
        backend = self._backend(ctx.api)
        if backend is not None:
            policy.check_numpy(ctx.api, ctx.context, backend)
        return ctx.default_return_type

    def _marker_type(self, fullname: str, ctx: AnalyzeTypeContext) -> Type:
        """``CPU``/``MPS``/... in an annotation: analysed as usual; in the signature of a
        function defined in a backend module, reported when it is not the backend's."""
        analyzer: Any = ctx.api
        sem: Any = getattr(analyzer, "api", None)
        sym = sem.lookup_fully_qualified_or_none(fullname) if sem is not None else None
        if sym is None or not isinstance(sym.node, TypeInfo):
            return AnyType(TypeOfAny.from_error)
        if ctx.type.args:
            analyzer.fail(f'"{sym.node.name}" expects no type arguments, but {len(ctx.type.args)} given', ctx.context)
        result = Instance(sym.node, [], line=ctx.type.line, column=ctx.type.column)
        backend = self.settings.backend_of(getattr(sem, "cur_mod_id", ""))
        if backend is None:
            return result
        statement = getattr(sem, "statement", None)
        if not isinstance(statement, FuncDef):
            return result
        device = MARKER_DEVICE[fullname]
        if device == "cpu":
            analyzer.fail(messages.cpu_signature(statement.name, backend), ctx.context, code=codes.CPU_SIGNATURE)
        elif device != backend.device:
            what = f'the signature of "{statement.name}" names a tensor that'
            analyzer.fail(messages.wrong_device(what, device, backend), ctx.context, code=codes.WRONG_DEVICE)
        return result


#: Set (to anything) to let the plugin's own exceptions propagate: the test suite does.
STRICT_ENV = "DEVICE_TYPES_MYPY_STRICT"


def _fallback(ctx: Any) -> Type:
    default = getattr(ctx, "default_return_type", None)
    return default if default is not None else AnyType(TypeOfAny.special_form)


#: ``int ** float`` (tried as ``float.__rpow__``) and ``float ** float``: see _root_power.
ROOT_POWERS = frozenset({"builtins.float.__rpow__", "builtins.float.__pow__"})


def _guarded(hook: Callable[[Any], Type]) -> Callable[[Any], Type]:
    """Code the plugin does not understand must never crash mypy: a bug in a callback
    leaves mypy's own type in place (unknown device) unless DEVICE_TYPES_MYPY_STRICT is
    set. mypy's own exceptions (blocking errors, deferrals) always propagate."""

    def guarded(ctx: Any) -> Type:
        try:
            return hook(ctx)
        except Exception as exc:
            return _recover(exc, ctx)

    return guarded


def _bind(method: Callable[..., Type], first: str) -> Callable[[Any], Type]:
    """``_guarded(lambda ctx: method(first, ctx))`` in one frame: mypy calls these hooks
    once per overload item it tries, ~240k times on a 50k-line backend tree."""

    def hook(ctx: Any) -> Type:
        try:
            return method(first, ctx)
        except Exception as exc:
            return _recover(exc, ctx)

    return hook


def _recover(exc: Exception, ctx: Any) -> Type:
    if os.environ.get(STRICT_ENV) or type(exc).__module__.startswith("mypy"):
        raise exc
    return _fallback(ctx)


def _receiver(context: Any) -> Any:
    if isinstance(context, CallExpr) and isinstance(context.callee, MemberExpr):
        return context.callee.expr
    if isinstance(context, OpExpr):
        return context.left
    return None


def _args(ctx: FunctionContext | MethodContext) -> list[tuple[str | None, Any, Type]]:
    out: list[tuple[str | None, Any, Type]] = []
    for param, exprs, types in zip(ctx.callee_arg_names, ctx.args, ctx.arg_types):
        out.extend((param, expr, typ) for expr, typ in zip(exprs, types))
    return out


def _arg(ctx: FunctionContext | MethodContext, *names: str) -> tuple[Any, Type] | None:
    for param, exprs, types in zip(ctx.callee_arg_names, ctx.args, ctx.arg_types):
        if param in names and exprs:
            return exprs[0], types[0]
    return None


#: mypy releases whose ``State.finish_passes`` calls ``get_additional_indirect_deps`` after
#: checking the module and before reporting its errors, as ``tests/plugin`` verifies: the
#: per-module pass relies on that (mypy internals); any other mypy gets the per-call hooks,
#: slower but independent of when mypy calls what.
PASS_VERIFIED_MYPY = ("2.4.",)


class _PerCallPlugin(DeviceTypesPlugin):
    PER_CALL = True


def plugin(version: str) -> type[DeviceTypesPlugin]:
    if any(version.startswith(prefix) for prefix in PASS_VERIFIED_MYPY):
        return DeviceTypesPlugin
    return _PerCallPlugin
