"""Device-generic signatures for one op, derived from its kind in the op-semantics table.

Input: a function definition from torch's ``.pyi`` (one overload). Output: the
definitions that replace it. Factories and transfers fan out into overloads by device
(one per device-name literal, one for ``torch.device[D]``, and the original as the
fallback that gives an unknown device), everything else keeps its shape and gets a
device argument on every tensor type.
"""

from __future__ import annotations

import ast
import copy
import re
from functools import partial
from dataclasses import dataclass, field

from device_types._devices import DEVICE_BY_TYPE
from device_types._semantics import (
    ANY_DEVICE_PARAMETERS,
    DEVICE_PARAMETER,
    FIXED_TRANSFERS,
    HOST_FACTORIES,
    OUTPUT_PARAMETERS,
    TENSOR_DATA_FACTORIES,
    OpKind,
    classify,
)

from .annotations import DeviceExpr, mentions_tensor, name, parse_annotation, with_device

__all__ = ["Op", "SignatureRewriter"]

#: The overlay's TypeVars (defined in the layer module): the op's own device, and a
#: second one for the device an argument names (``torch.device[D2]``, ``.to(other)``).
DEVICE_T = "_DeviceT"
TARGET_T = "_DeviceT2"
#: ``torch.device``'s own parameter, covariant (layer.py says why).
DEVICE_CO = "_DeviceT_co"
#: A factory's device in the merged CPU / device-object overload: ``default=CPU``.
DEVICE_OR_CPU = "_DeviceCPU"
OVERLOAD = "_dt_overload"
TORCH_DEVICE = "_dt_device"
CPU_TENSOR_SELF = "_dt_TensorBase"


def marker(device_type: str) -> ast.expr:
    return name(f"_dt_{DEVICE_BY_TYPE[device_type].__name__}")


def device_name_literal(device_type: str) -> ast.expr:
    return name(f"_dt_{DEVICE_BY_TYPE[device_type].__name__}Name")


@dataclass
class Op:
    """What the rewrite did to one op, for the coverage report."""

    name: str
    kind: OpKind
    returns_tensor: bool
    device_typed: bool


@dataclass
class SignatureRewriter:
    """Rewrites the defs of one scope: a torch module (``is_method=False``) or TensorBase."""

    is_method: bool
    #: False where the CPU result becomes ``Any`` afterwards (gradual.host_result_as_any):
    #: a merged CPU / device-object overload would then lose the device object's type.
    merge_cpu_device: bool = True
    ops: list[Op] = field(default_factory=list)

    def rewrite_group(self, fns: list[ast.FunctionDef], overloaded: bool) -> list[ast.FunctionDef]:
        """The definitions of one op (its originals, in order) rewritten. Each original is
        rewritten on its own (rewrite), except that factories' originals which accept the same
        calls but for one parameter's type, or one optional keyword, share one set of device
        overloads (merge_originals), each keeping its own fallback."""
        if not (MERGE_ORIGINALS and len(fns) > 1) or not all(self._expands(fn) for fn in fns):
            return [variant for fn in fns for variant in self.rewrite(fn, overloaded)]
        out: list[ast.FunctionDef] = []
        for merged, originals in merge_originals(fns):
            if len(originals) == 1:
                out += self.rewrite(originals[0], overloaded)
            else:
                out += self.rewrite(merged, overloaded, fallbacks=originals)
        return out

    def _classify(self, fn: ast.FunctionDef) -> tuple[OpKind, list[ast.arg], bool, bool]:
        params = params_of(fn, self.is_method)
        takes_tensor = self.is_method or any(
            mentions_tensor(p.annotation) for p in params if p.arg not in OUTPUT_PARAMETERS
        )
        returns_tensor = mentions_tensor(fn.returns)
        kind = classify(
            fn.name,
            [p.arg for p in params],
            takes_tensor=takes_tensor,
            mentions_tensor=takes_tensor or returns_tensor,
        )
        return kind, params, takes_tensor, returns_tensor

    def _expands(self, fn: ast.FunctionDef) -> bool:
        """Whether ``fn`` fans out into device overloads (a factory with ``device``, no tensor data)."""
        kind = self._classify(fn)[0]
        return (kind in (OpKind.CREATE, OpKind.CREATE_LIKE) and _device_param(fn) is not None
                and fn.name not in TENSOR_DATA_FACTORIES)

    def rewrite(self, fn: ast.FunctionDef, overloaded: bool,
                fallbacks: list[ast.FunctionDef] | None = None) -> list[ast.FunctionDef]:
        """``fn`` rewritten; with ``fallbacks`` (the originals ``fn`` merges), each of them is
        the last overload torch's own, instead of ``fn``."""
        kind, params, takes_tensor, returns_tensor = self._classify(fn)
        result = self._rewrite(fn, kind, params, takes_tensor, fallbacks)
        if len(result) > 1 and not overloaded:
            for variant in result:
                variant.decorator_list.insert(0, name(OVERLOAD))
        for _ in fallbacks or [fn]:
            self.ops.append(Op(fn.name, kind, returns_tensor, device_typed=result is not None and _typed(result)))
        return result

    def _rewrite(self, fn: ast.FunctionDef, kind: OpKind, params: list[ast.arg], takes_tensor: bool,
                 fallbacks: list[ast.FunctionDef] | None = None) -> list[ast.FunctionDef]:
        own_device = lambda: name(DEVICE_T)  # noqa: E731
        if kind is OpKind.UNTOUCHED:
            return [fn]
        if kind is OpKind.READBACK:
            if self.is_method:
                self_arg = _self(fn)
                if self_arg is not None:
                    self_arg.annotation = ast.Subscript(value=name(CPU_TENSOR_SELF), slice=marker("cpu"), ctx=ast.Load())
            return [fn]
        if kind is OpKind.TRANSFER:
            target = FIXED_TRANSFERS.get(fn.name)
            if target is not None:
                fn.returns = with_device(fn.returns, lambda: marker(target))
                return [fn]
            return self._targeted_transfer(fn, params)
        if kind is OpKind.CREATE:
            if _device_param(fn) is None:
                if fn.name in HOST_FACTORIES:
                    fn.returns = with_device(fn.returns, lambda: marker("cpu"))
                return [fn]
            variants = self._expand_device(fn, none_device=lambda: marker("cpu"), constrain_inputs=False,
                                           fallbacks=fallbacks)
            data_param = TENSOR_DATA_FACTORIES.get(fn.name)
            if data_param is not None:
                variants.insert(0, self._tensor_data_variant(fn, data_param))
            return variants
        if kind is OpKind.CREATE_LIKE:
            return self._expand_device(fn, none_device=own_device, constrain_inputs=True, fallbacks=fallbacks)
        # PRESERVE: a module function needs a tensor input to take the device from.
        if not takes_tensor:
            return [fn]
        if not (DEVICE_WHERE_UNUSED or self.is_method or mentions_tensor(fn.returns)) and len(self._constrained(fn, params)) < 2:
            # No tensor result and at most one tensor parameter: the TypeVar would occur
            # once and constrain nothing, yet every call would solve it.
            return [fn]
        self._constrain(fn, params, own_device)
        fn.returns = with_device(fn.returns, own_device)
        return [fn]

    def _constrained(self, fn: ast.FunctionDef, params: list[ast.arg]) -> list[ast.arg]:
        """The parameters that take the op's device: tensors, bar the ones that may lie elsewhere."""
        free = ANY_DEVICE_PARAMETERS.get(fn.name, frozenset())
        return [p for p in params if p.arg not in free and p.arg != DEVICE_PARAMETER and mentions_tensor(p.annotation)]

    def _constrain(self, fn: ast.FunctionDef, params: list[ast.arg], device: DeviceExpr) -> None:
        for p in self._constrained(fn, params):
            p.annotation = with_device(p.annotation, device)
            if ELLIPSIS_DEFAULTS and not self.is_method:
                _ellipsis_default(fn, p)

    def _targeted_transfer(self, fn: ast.FunctionDef, params: list[ast.arg]) -> list[ast.FunctionDef]:
        """``.to``: device argument -> that device; tensor argument -> its device; else keep."""
        if _device_param(fn) is not None:
            return self._expand_device(fn, none_device=lambda: name(DEVICE_T), constrain_inputs=False)
        donors = [p for p in params if p.arg in ANY_DEVICE_PARAMETERS.get(fn.name, ()) and mentions_tensor(p.annotation)]
        if donors:
            guard = _unknown_donor_guard(fn, [p.arg for p in donors])
            for p in donors:
                p.annotation = with_device(p.annotation, lambda: name(TARGET_T))
            fn.returns = with_device(fn.returns, lambda: name(TARGET_T))
            if not NEVER_GUARDS:
                # First with the device object (see _device_object_first): an unknown
                # donor solves the TypeVar to Any, and ``x.to(untyped, False)`` is then
                # ``Tensor[Any]`` before ``.to(dtype, non_blocking)`` keeps x's device.
                return [_ranked(fn, RANK_UNKNOWN_DEVICE)]
            return [fn, guard] if POSITIONAL_GUARDS else [fn]
        fn.returns = with_device(fn.returns, lambda: name(DEVICE_T))
        # ``.to(dtype, ...)`` keeps the device and takes no device: right after the device
        # object and the donor. Only a dtype (or Any, which the first overload has taken)
        # reaches it, so no result moves; the commonest ``.to`` call matches on the third
        # overload instead of the ninth (mypy runs the plugin's hook once per overload it
        # tries, pyright evaluates each).
        return [fn if NEVER_GUARDS else _ranked(fn, RANK_KEEPS_DEVICE)]

    def _expand_device(
        self, fn: ast.FunctionDef, none_device: DeviceExpr, constrain_inputs: bool,
        fallbacks: list[ast.FunctionDef] | None = None,
    ) -> list[ast.FunctionDef]:
        variants: list[ast.FunctionDef] = []
        original = _device_param(fn)
        assert original is not None
        has_default = default_of(fn, original) is not None

        def variant(annotation: ast.expr, device: DeviceExpr, rank: int) -> ast.FunctionDef:
            v = _clone(fn, keep_doc=not variants)
            param = _device_param(v)
            assert param is not None
            param.annotation = annotation
            v.returns = with_device(v.returns, device)
            return _ranked(v, rank)

        # A factory's omitted device is the CPU: one overload serves None and "cpu".
        merged_cpu = has_default and not constrain_inputs and ast.dump(none_device()) == ast.dump(marker("cpu"))
        # Merged further (MERGED_CPU_DEVICE): the device object joins that overload through
        # a TypeVar whose default is the CPU, ``device: device[D] | "cpu" | None = None ->
        # Tensor[D]``: unsolved (no device, None, "cpu") it is the CPU.
        merged_object = merged_cpu and MERGED_CPU_DEVICE and self.merge_cpu_device
        # The device object first, its device required (_device_object_first), in place
        # of the Never guard and of the device-object overload below.
        object_first = None if NEVER_GUARDS or merged_object else _device_object_first(fn)
        if object_first is not None:
            variants.append(object_first)
        if has_default:
            annotation: ast.expr = ast.Constant(value=None)
            first_device = none_device
            if merged_cpu:
                annotation = ast.BinOp(left=device_name_literal("cpu"), op=ast.BitOr(), right=ast.Constant(value=None))
            if merged_object:
                merged_type = ast.Subscript(value=name(TORCH_DEVICE), slice=name(DEVICE_OR_CPU), ctx=ast.Load())
                annotation = ast.BinOp(left=merged_type, op=ast.BitOr(), right=annotation)
                first_device = lambda: name(DEVICE_OR_CPU)  # noqa: E731
            first = variant(annotation, first_device, RANK_NO_DEVICE)
            if constrain_inputs:
                self._constrain(first, params_of(first, self.is_method), lambda: name(DEVICE_T))
            variants.append(first)
        # A module function's device overloads take ``device`` as a required keyword: a
        # call without ``device=`` fails them on arity alone, which pyright decides before
        # it evaluates a single argument. Without this, a call with a partly unknown
        # argument (pyright then evaluates every later overload that accepts the call)
        # also evaluated each of them, since their ``device`` had a default.
        required = REQUIRED_DEVICE_KEYWORD and not self.is_method
        for device_type in DEVICE_BY_TYPE:
            if not (merged_cpu and device_type == "cpu"):
                named = variant(device_name_literal(device_type), partial(marker, device_type), RANK_NAMED)
                variants.append(_required_keyword(named) if required else named)
        if not merged_object and object_first is None:
            object_variant = variant(
                ast.Subscript(value=name(TORCH_DEVICE), slice=name(TARGET_T), ctx=ast.Load()),
                lambda: name(TARGET_T),
                RANK_DEVICE_OBJECT,
            )
            variants.append(_required_keyword(object_variant) if required else object_variant)
        # The original signature stays last: any other device (a plain str, an int, a
        # ``"cuda:99"``) gives an unknown device, never an error. Where its ``device`` is
        # keyword-only already, it is required there too: a call without it has matched
        # the first overload, which gives the same or a more precise result.
        for own in fallbacks or [fn]:
            torch_own = _ranked(_clone(own, keep_doc=False), RANK_ORIGINAL)
            if required and original_param_keyword_only(own):
                _move_to_required_keyword(torch_own)
            variants.append(torch_own)
        if object_first is None:
            variants.append(_unknown_device_guard(fn))
        return variants

    def _tensor_data_variant(self, fn: ast.FunctionDef, data_param: str) -> ast.FunctionDef:
        v = _clone(fn, keep_doc=False)
        for p in params_of(v, self.is_method):
            if p.arg == data_param:
                p.annotation = ast.Subscript(value=name("Tensor"), slice=name(DEVICE_T), ctx=ast.Load())
        param = _device_param(v)
        assert param is not None
        param.annotation = ast.Constant(value=None)
        v.returns = with_device(v.returns, lambda: name(DEVICE_T))
        return _ranked(v, RANK_TENSOR_DATA)


#: Whether a factory's originals that accept the same calls but for one parameter's type
#: (``linspace(start: Tensor, ...)`` and ``linspace(start: Number, ...)``) or one optional
#: keyword (``rand(*size, generator: Generator | None, ...)`` and ``rand(*size, ...)``)
#: share one set of device overloads (merge_originals). Each overload costs pyright and
#: basedpyright about as much to evaluate (basedpyright evaluates every member of ``torch``
#: for a completion after ``torch.``, docs/performance.md); sharing them types the same
#: calls the same way with 120 fewer overloads. Off: the variant ``per-original-overloads``
#: of benchmarks/overlay_variants.py.
MERGE_ORIGINALS = True


def merge_originals(fns: list[ast.FunctionDef]) -> list[tuple[ast.FunctionDef, list[ast.FunctionDef]]]:
    """``fns`` in groups that accept the same calls but for one parameter's type or one
    optional keyword: (a definition that accepts exactly the calls of the group, the group).

    Two definitions merge when they are equal but for either one parameter's annotation
    (same name, kind and default: the merged one takes the union of the two types) or one
    keyword-only parameter that one of them lacks and whose type takes ``None`` (the merged
    one has it, ``= None``). Each step accepts exactly the calls one of the two accepts, so a
    group's merged definition does too, and every device overload made from it gives the
    result that the same overload made from the original the call matches would give.
    """
    groups = [(fn, [fn]) for fn in fns]
    merged_any = True
    while merged_any:
        merged_any = False
        for i, j in ((i, j) for i in range(len(groups)) for j in range(i + 1, len(groups))):
            merged = _merged(groups[i][0], groups[j][0])
            if merged is not None:
                groups[i] = (merged, groups[i][1] + groups[j][1])
                del groups[j]
                merged_any = True
                break
    return groups


def _parameters(fn: ast.FunctionDef) -> list[tuple[str, ast.arg, ast.expr | None]]:
    """(kind, parameter, default) in order: ``po``/``p`` positional(-only), ``*``, ``kw``, ``**``."""
    a = fn.args
    positional = [*a.posonlyargs, *a.args]
    defaults: list[ast.expr | None] = [None] * (len(positional) - len(a.defaults)) + list(a.defaults)
    out: list[tuple[str, ast.arg, ast.expr | None]] = [
        ("po" if p in a.posonlyargs else "p", p, d) for p, d in zip(positional, defaults)]
    if a.vararg is not None:
        out.append(("*", a.vararg, None))
    out += [("kw", p, d) for p, d in zip(a.kwonlyargs, a.kw_defaults)]
    if a.kwarg is not None:
        out.append(("**", a.kwarg, None))
    return out


def _same(x: ast.AST | None, y: ast.AST | None) -> bool:
    return (x is None) == (y is None) and (x is None or ast.dump(x) == ast.dump(y))  # type: ignore[arg-type]


def _same_parameter(x: tuple[str, ast.arg, ast.expr | None], y: tuple[str, ast.arg, ast.expr | None],
                    annotation: bool = True) -> bool:
    return (x[0] == y[0] and x[1].arg == y[1].arg and _same(x[2], y[2])
            and (not annotation or _same(x[1].annotation, y[1].annotation)))


def _union(*annotations: ast.expr) -> ast.expr:
    """``A | B | C`` of the members of ``annotations`` (each one's ``X | Y`` flattened), each once."""
    members: list[ast.expr] = []

    def collect(node: ast.expr) -> None:
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
            collect(node.left)
            collect(node.right)
        elif not any(ast.dump(node) == ast.dump(m) for m in members):
            members.append(node)

    for annotation in annotations:
        collect(annotation)
    result = members[0]
    for member in members[1:]:
        result = ast.BinOp(left=result, op=ast.BitOr(), right=member)
    return result


def _takes_none(annotation: ast.expr | None) -> bool:
    return annotation is not None and any(isinstance(n, ast.Constant) and n.value is None for n in ast.walk(annotation))


def _merged(f: ast.FunctionDef, g: ast.FunctionDef) -> ast.FunctionDef | None:
    """A definition that accepts exactly the calls ``f`` or ``g`` accepts (see merge_originals), or None."""
    if not (_same(f.returns, g.returns) and len(f.decorator_list) == len(g.decorator_list)
            and all(_same(x, y) for x, y in zip(f.decorator_list, g.decorator_list))):
        return None
    pf, pg = _parameters(f), _parameters(g)
    if len(pf) == len(pg):
        differ = [i for i, (x, y) in enumerate(zip(pf, pg)) if not _same_parameter(x, y)]
        if len(differ) != 1 or not _same_parameter(pf[differ[0]], pg[differ[0]], annotation=False):
            return None
        param = pf[differ[0]][1]
        other = pg[differ[0]][1].annotation
        if param.arg == DEVICE_PARAMETER or param.annotation is None or other is None:
            return None
        merged = copy.deepcopy(f)
        target = _parameters(merged)[differ[0]][1]
        assert target.annotation is not None
        target.annotation = _union(target.annotation, copy.deepcopy(other))
        return merged
    big, small = (f, g) if len(pf) > len(pg) else (g, f)
    pb, ps = (pf, pg) if big is f else (pg, pf)
    if len(pb) != len(ps) + 1:
        return None
    for index, extra in enumerate(pb):
        rest = pb[:index] + pb[index + 1:]
        if extra[0] == "kw" and _takes_none(extra[1].annotation) and all(
                _same_parameter(x, y) for x, y in zip(rest, ps)):
            merged = copy.deepcopy(big)
            position = merged.args.kwonlyargs.index(next(p for p in merged.args.kwonlyargs if p.arg == extra[1].arg))
            merged.args.kw_defaults[position] = ast.Constant(value=None)
            return merged
    return None


# Overloads of one op are emitted by rank, all originals' variants interleaved: a call
# with no device then matches within the first few overloads instead of after every
# device variant of each earlier original (pyright evaluates overloads in order; on 300
# device-less factory calls this halved the overlay's added check time). Variants of
# different originals differ in shape, and every variant narrows its own original,
# which comes last, so the order changes no result.
RANK_UNKNOWN_DEVICE, RANK_TENSOR_DATA, RANK_NO_DEVICE, RANK_DEVICE_OBJECT, RANK_NAMED, RANK_ORIGINAL = range(6)
#: A transfer's signature without a device (``.to(dtype)``); never in one op with tensor data.
RANK_KEEPS_DEVICE = RANK_TENSOR_DATA


#: The device parameter of the unknown-device guard (see _unknown_device_guard).
NEVER = "_dt_Never"


def _device_object_first(fn: ast.FunctionDef) -> ast.FunctionDef | None:
    """First overload: ``device: torch.device[D]`` (required) ``-> Tensor[D]``.

    It does the ``Never`` guard's job (see _unknown_device_guard) with a signature a user
    reads: an argument typed ``Any`` (or ``device | Any``) solves ``D`` to ``Any``, the
    call is ``Tensor[Any]`` (torch's own result type), and pyright drops the later
    overloads' results as subsumed by it; a typed device gives its device here, on the
    first overload. pyright's and basedpyright's signature help list the overloads in
    declaration order and activate the first that takes the argument under the cursor, so
    this is what an editor shows first. The one difference from the guard: an argument
    pyright infers as ``Unknown`` (not ``Any``) solves ``D`` to ``Unknown``, and the call is
    ``Tensor[Unknown]`` where the guard gave ``Tensor[Any]`` (docs/performance.md).
    ``device`` is required where the guard's was (so a call without it skips this
    overload); None where ``device`` is positional-only (no keyword form: the guard then).
    """
    first = _clone(fn, keep_doc=True)
    param = _device_param(first)
    assert param is not None
    in_place = POSITIONAL_GUARDS and _required_in_place(first, param)
    if not in_place and not _move_to_required_keyword(first):
        return None
    param.annotation = ast.Subscript(value=name(TORCH_DEVICE), slice=name(TARGET_T), ctx=ast.Load())
    first.returns = with_device(first.returns, lambda: name(TARGET_T))
    return _ranked(first, RANK_UNKNOWN_DEVICE)


def _unknown_device_guard(fn: ast.FunctionDef) -> ast.FunctionDef:
    """First overload where NEVER_GUARDS is on (the measured layout before
    _device_object_first): a ``device`` argument typed ``Any`` gives torch's own result type.

    Only ``Any`` is assignable to ``Never``. Without this overload an ``Any`` device
    matches several device overloads with different results, which pyright resolves to
    Unknown (stock torch: ``Tensor``); a variable declared ``float | Tensor`` then
    narrows to ``float | Tensor`` instead of ``Tensor`` and ordinary code gets errors.
    With this overload first, pyright gives its ``Tensor`` (``Tensor[Any]``), for
    ``device | Any`` as well (tests/typecheck/cases/factories.py, transfers.py).
    ``device`` keeps its place where every parameter before it is required
    (``.to(device, ...)``: ``x.to(untyped)`` passes it positionally); elsewhere it (and
    what follows it) becomes keyword-only, as it has no default here.
    """
    guard = _clone(fn, keep_doc=False)
    param = _device_param(guard)
    assert param is not None
    in_place = POSITIONAL_GUARDS and _required_in_place(guard, param)
    if not in_place and not _move_to_required_keyword(guard):
        return _ranked(guard, RANK_ORIGINAL)  # positional-only device: no keyword form
    param.annotation = name(NEVER)
    return _ranked(guard, RANK_UNKNOWN_DEVICE)


def _unknown_donor_guard(fn: ast.FunctionDef, donors: list[str]) -> ast.FunctionDef:
    """First overload of a device donor (``.to(other)``) where NEVER_GUARDS is on: an ``Any`` donor gives torch's
    own result type. Without it, ``x.to(unknown, False)`` matched ``.to(dtype,
    non_blocking)`` as well and pyright kept ``x``'s device, which an ``other`` tensor
    on another device makes false; ``x.to(unknown)`` turned Unknown."""
    guard = _clone(fn, keep_doc=False)
    for p in params_of(guard):
        if p.arg in donors:
            p.annotation = name(NEVER)
    return _ranked(guard, RANK_UNKNOWN_DEVICE)


def _required_in_place(fn: ast.FunctionDef, param: ast.arg) -> bool:
    """Drop the default of positional ``param`` where no earlier positional has one."""
    a = fn.args
    positional = [*a.posonlyargs, *a.args]
    if param not in positional:
        return False
    index = positional.index(param)
    first_default = len(positional) - len(a.defaults)
    if index < first_default:
        return True  # already required
    if index > first_default:
        return False
    a.defaults = a.defaults[1:]
    return True


#: Whether the unknown-device guard keeps a positional ``device`` in place and a device
#: donor (``.to(other)``) has a guard too (see _unknown_device_guard); benchmarks/
#: overlay_variants.py turns it off to measure the layout before it (``keyword-guards``).
POSITIONAL_GUARDS = True
#: Whether an unknown device reaches a ``device: Never`` guard first (the layout before
#: issue 26's last round, the variant ``never-guards`` of benchmarks/overlay_variants.py)
#: rather than the device-object overload (_device_object_first). Both give ``Tensor[Any]``
#: for an ``Any`` device in pyright; the guard is what pyright's and basedpyright's
#: signature help showed first on ``torch.zeros(`` and ``x.to(``.
NEVER_GUARDS = False
#: Whether a module function's device overloads take ``device`` as a required keyword
#: (see _expand_device); benchmarks/overlay_variants.py turns it off to measure the
#: encoding before it (``optional-device``).
REQUIRED_DEVICE_KEYWORD = True
#: Whether a factory's CPU and device-object overloads are one (see _expand_device).
#: Off: mypy solves ``_DeviceCPU`` from the call's type context before it falls back to
#: the default, so ``x * torch.ones(3)`` with ``x: Tensor[MPS]`` made ``torch.ones(3)``
#: a ``Tensor[MPS]`` and lost the error (tests/typecheck/cases/rejected.py). Kept as a
#: measured variant (benchmarks/overlay_variants.py: ``merged-cpu-device``).
MERGED_CPU_DEVICE = False


#: Whether every overload an op fans out into keeps the op's docstring, as torch's own stubs
#: give it to each of their overloads. Off, only the first variant had it, and pyright and
#: basedpyright looked for the others' documentation in the implementation: for a stub
#: without a ``.py`` beside it (``torch/_C/*.pyi``) that walks the import graph of the
#: stub, for every undocumented signature, on every signature help and hover (0.3-0.9 s
#: for ``torch.zeros(``; benchmarks/editor_bench.py, docs/performance.md). Costs file size
#: only (``_VariableFunctions.pyi`` 1.3 -> 2.9 MB, 1.6 MB with SUMMARY_DOCS, which gives the
#: variants a shorter docstring); off is the measured variant
#: ``first-overload-docstring`` of benchmarks/overlay_variants.py.
DOCUMENT_EVERY_OVERLOAD = True
#: Whether the overloads an op fans out into, but the first, carry its docs' signature line
#: and description without the argument list and examples (the first overload, and torch's
#: own overloads that the overlay leaves as written, keep all of it). The docs were 2.0 of
#: ``_VariableFunctions.pyi``'s 2.4 MB, and basedpyright's first diagnostics tokenize them
#: (without any docs there: 1.08x stock against 1.16x, benchmarks/editor_bench.py --first 10,
#: docs/performance.md); off is the measured variant ``every-overload-full-docs``.
SUMMARY_DOCS = True
#: Whether a module function whose result holds no tensor still gets the device TypeVar
#: on its only tensor parameter, where it constrains nothing (off: torch's own signature;
#: benchmarks/overlay_variants.py measures it on: ``device-where-unused``).
DEVICE_WHERE_UNUSED = False
#: Whether a module function's device-typed parameter with the default ``None`` is written
#: ``= ...`` (a measured variant, ``ellipsis-defaults``: pyright solves a TypeVar against
#: a parameter's default type when the call leaves it out; docs/performance.md, round 5).
ELLIPSIS_DEFAULTS = False


def _ellipsis_default(fn: ast.FunctionDef, param: ast.arg) -> None:
    """``param = None`` written ``param = ...`` in ``fn`` (nothing else changes)."""
    a = fn.args
    positional = [*a.posonlyargs, *a.args]
    if param in positional:
        index = positional.index(param) - (len(positional) - len(a.defaults))
        current = a.defaults[index] if index >= 0 else None
        if isinstance(current, ast.Constant) and current.value is None:
            a.defaults[index] = ast.Constant(value=Ellipsis)
    elif param in a.kwonlyargs:
        index = a.kwonlyargs.index(param)
        default = a.kw_defaults[index]
        if isinstance(default, ast.Constant) and default.value is None:
            a.kw_defaults[index] = ast.Constant(value=Ellipsis)


def original_param_keyword_only(fn: ast.FunctionDef) -> bool:
    return any(p.arg == DEVICE_PARAMETER for p in fn.args.kwonlyargs)


def _required_keyword(fn: ast.FunctionDef) -> ast.FunctionDef:
    """``fn`` with ``device`` a required keyword (unchanged where it is positional-only)."""
    _move_to_required_keyword(fn)
    return fn


def _move_to_required_keyword(fn: ast.FunctionDef) -> bool:
    """Make ``device`` (and what follows it) keyword-only, ``device`` without a default.

    False, with ``fn`` unchanged, where ``device`` is positional-only.
    """
    a = fn.args
    param = _device_param(fn)
    assert param is not None
    positional = [*a.posonlyargs, *a.args]
    if param in positional:
        index = positional.index(param)
        defaults = [None] * (len(positional) - len(a.defaults)) + list(a.defaults)
        moved, moved_defaults = positional[index:], defaults[index:]
        if a.vararg is None and any(p in a.posonlyargs for p in moved):
            return False
        kept = positional[:index]
        a.posonlyargs = [p for p in a.posonlyargs if p in kept]
        a.args = [p for p in a.args if p in kept]
        a.defaults = [d for d in defaults[:index] if d is not None]
        a.kwonlyargs = [*moved, *a.kwonlyargs]
        a.kw_defaults = [*moved_defaults, *a.kw_defaults]
    a.kw_defaults[a.kwonlyargs.index(param)] = None
    return True


def _ranked(fn: ast.FunctionDef, rank: int) -> ast.FunctionDef:
    fn._dt_rank = rank  # type: ignore[attr-defined]
    return fn


def rank_of(fn: ast.FunctionDef) -> int:
    return getattr(fn, "_dt_rank", RANK_ORIGINAL)


def _typed(variants: list[ast.FunctionDef]) -> bool:
    """Whether the rewrite left a device on the tensor types (or a CPU-only self)."""
    for v in variants:
        for node in ast.walk(v):
            if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Name) and node.slice.id.startswith(("_Device", "_dt_")):
                return True
    return False


def params_of(fn: ast.FunctionDef, is_method: bool = False) -> list[ast.arg]:
    a = fn.args
    params = [*a.posonlyargs, *a.args, *([a.vararg] if a.vararg else []), *a.kwonlyargs, *([a.kwarg] if a.kwarg else [])]
    if is_method and params and params[0].arg in {"self", "cls"} and not _is_static(fn):
        params = params[1:]
    for p in params:
        p.annotation = parse_annotation(p.annotation)
    return params


def _is_static(fn: ast.FunctionDef) -> bool:
    return any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in fn.decorator_list)


def _self(fn: ast.FunctionDef) -> ast.arg | None:
    positional = [*fn.args.posonlyargs, *fn.args.args]
    return positional[0] if positional and positional[0].arg == "self" else None


def _device_param(fn: ast.FunctionDef) -> ast.arg | None:
    for p in [*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs]:
        if p.arg == DEVICE_PARAMETER:
            return p
    return None


def default_of(fn: ast.FunctionDef, param: ast.arg) -> ast.expr | None:
    """The default of ``param`` in ``fn`` (None: none, or ``*args``/``**kwargs``)."""
    a = fn.args
    positional = [*a.posonlyargs, *a.args]
    if param in positional:
        offset = len(positional) - len(a.defaults)
        index = positional.index(param)
        return a.defaults[index - offset] if index >= offset else None
    if param in a.kwonlyargs:
        return a.kw_defaults[a.kwonlyargs.index(param)]
    return None


def _clone(fn: ast.FunctionDef, keep_doc: bool) -> ast.FunctionDef:
    v = copy.deepcopy(fn)
    if not (keep_doc or DOCUMENT_EVERY_OVERLOAD):
        v.body = [ast.Expr(value=ast.Constant(value=Ellipsis))]
    elif not keep_doc and SUMMARY_DOCS:
        doc = ast.get_docstring(fn, clean=False)
        if doc is not None:
            v.body = [ast.Expr(value=ast.Constant(value=_summary(doc)))]
    return v


#: Where torch's docs list the arguments or give examples: the part a variant leaves out.
_DOC_DETAILS = re.compile(r"\n\s*(Args|Arguments|Keyword args|Keyword arguments|Example|Examples)::?\s*\n")


def _summary(doc: str) -> str:
    """``doc`` up to its argument list or examples (torch's signature line and description)."""
    found = _DOC_DETAILS.search(doc)
    return doc if found is None else doc[: found.start()].rstrip() + "\n"
