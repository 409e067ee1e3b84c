"""Device conformance: torch's own OpInfo samples, run, against the overlay's device claims.

For every op the generated overlay types and that has an entry in torch's OpInfo database
(``torch.testing._internal.common_methods_invocations.op_db``), this runs a few of the
entry's sample inputs on each device of the run and compares the device of every result
tensor with what the overlay claims for those argument devices. The claim is computed
from the generator's own classification of the op (``Overlay.ops``: the kind the
op-semantics table gave each overload) and the table's explicit sets, never from a list
of op names written here:

- ``preserve`` (and ``create_like`` without ``device=``): the inputs' device;
- ``create``: the ``device=`` argument, else the CPU;
- ``transfer``: the fixed device (``.cpu()``) or the one the argument names (``.to``);
- two devices among the tensors the overlay ties together: an error.

Three forms are derived from each op's samples, so that every rule is exercised:
a factory's sample without its ``device=`` (claim: the CPU), a ``*_like`` sample with
``device=`` the partner device (claim: that device), and one sample per op with one
tied tensor moved to the partner device (claim: an error).

Ops an OpInfo entry reaches are found by identity: each typed overlay op's runtime object
(``torch.add``, ``torch.Tensor.add_``, ``torch.nn.functional.relu``...) is looked up
among the entry's variants (function, method, in-place, operator). An entry whose variant
is a lambda (``T``, ``reshape_as``'s wrapper) reaches no overlay op through it.

The run needs torch, ``expecttest`` and ``hypothesis`` (op_db imports them), the
repository's ``device_types`` and ``device_types_stubs``; no checker, no installed
overlay (the overlay is generated in memory from the installed torch), so the same code
runs in CI (CPU and ``meta``) and on a GPU machine (``benchmarks/conformance_gpu.py``).
"""

from __future__ import annotations

import ast
import contextlib
import itertools
import logging
import time
import warnings
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from typing import Any

import torch
from torch.utils._pytree import tree_flatten, tree_unflatten

from device_types._semantics import (
    ANY_DEVICE_PARAMETERS,
    DEVICE_PARAMETER,
    FIXED_TRANSFERS,
    OUTPUT_PARAMETERS,
    TARGET_TRANSFERS,
    TENSOR_DATA_FACTORIES,
    OpKind,
)
from device_types_stubs.gradual import HOST, NEVER
from device_types_stubs.overlay import C_MODULE, Overlay, build_overlay

from .documented import Row, rows

__all__ = ["ERROR", "Observation", "OverlayOp", "Report", "claim_for", "explanation", "run", "typed_ops"]

#: The claim for a call the overlay rejects (tensors on two devices where it ties them).
ERROR = "error"
#: Where each overlay file's ops live at run time: (scope shown in reports, object, class?).
TENSOR_PY = "_tensor.pyi"


def _runtime_scopes() -> dict[str, tuple[str, Any]]:
    return {
        "_C/_VariableFunctions.pyi": ("torch", torch._C._VariableFunctions),
        "functional.pyi": ("torch", torch.functional),
        "_C/_nn.pyi": ("torch._C._nn", torch._C._nn),
        "nn/functional.pyi": ("torch.nn.functional", torch.nn.functional),
        "linalg/__init__.pyi": ("torch.linalg", torch.linalg),
        "fft/__init__.pyi": ("torch.fft", torch.fft),
        "special/__init__.pyi": ("torch.special", torch.special),
        C_MODULE: ("Tensor", torch._C.TensorBase),
        TENSOR_PY: ("Tensor", torch.Tensor),
    }


@dataclass(frozen=True)
class OverlayOp:
    """One op as the overlay types it: its kinds (one per overload the generator wrote)."""

    scope: str
    name: str
    kinds: frozenset[OpKind]
    #: A CPU (or bare) first tensor, or a factory's CPU result, gives ``Any`` (the bare-tensor
    #: guard, ``stubs/gradual.py``): the overlay claims nothing there.
    host_unclaimed: bool
    #: (positions, names) of ``ANY_DEVICE_PARAMETERS`` (copy sources, device donors): a
    #: tensor there takes no part in the op's device.
    donor: tuple[frozenset[int], frozenset[str]]
    #: (positions, names) some overload types ``object``/``Any``: a tensor there joins the
    #: result's device when it shares it, and a mix there matches that overload (no error).
    loose: tuple[frozenset[int], frozenset[str]]
    #: Parameter names by position, preferring an overload that takes a tensor there, and
    #: the name of a ``*args`` parameter that takes the positions after them.
    positional_names: tuple[str, ...] = ()
    vararg: str | None = None

    def parameter_at(self, index: int) -> str:
        if index < len(self.positional_names):
            return self.positional_names[index]
        return self.vararg or f"#{index}"

    @property
    def key(self) -> str:
        return f"{self.scope}.{self.name}"


def _defs_by_name(overlay: Overlay, rel: str) -> dict[str, list[ast.FunctionDef]]:
    body = ast.parse(overlay.files[rel]).body
    if rel in (C_MODULE, TENSOR_PY):
        cls = "TensorBase" if rel == C_MODULE else "Tensor"
        body = next(s.body for s in body if isinstance(s, ast.ClassDef) and s.name == cls)
    defs: dict[str, list[ast.FunctionDef]] = {}
    for stmt in body:
        if isinstance(stmt, ast.FunctionDef):
            defs.setdefault(stmt.name, []).append(stmt)
    return defs


def _positional(fn: ast.FunctionDef) -> list[ast.arg]:
    return [*fn.args.posonlyargs, *fn.args.args]


def _is_bare_guard(fn: ast.FunctionDef) -> bool:
    params = [*_positional(fn), *([fn.args.vararg] if fn.args.vararg else [])]
    for p in params:
        names = {n.id for n in ast.walk(p.annotation or ast.Pass()) if isinstance(n, ast.Name)}
        if NEVER in names and HOST in names:
            return True
    return False


def _is_any_factory(fn: ast.FunctionDef) -> bool:
    takes_device = any(p.arg == DEVICE_PARAMETER for p in [*_positional(fn), *fn.args.kwonlyargs])
    return takes_device and isinstance(fn.returns, ast.Name) and fn.returns.id == "_dt_Any"


#: Annotations that accept a tensor on any device (``__eq__(self, other: object)``, the
#: as-written fallback of an inferred Python-level function).
_ANY_VALUE = frozenset({"object", "Any", "_dt_Any"})


def _accepts_anything(p: ast.arg) -> bool:
    return isinstance(p.annotation, ast.Name) and p.annotation.id in _ANY_VALUE


def _where(defs: list[ast.FunctionDef], test: Callable[[ast.arg], bool]) -> tuple[frozenset[int], frozenset[str]]:
    """Positions (``self`` counted for methods) and names of parameters that pass ``test``
    in some overload (the bare-tensor guard aside: it is about CPU tensors, not mixes)."""
    real = [fn for fn in defs if not _is_bare_guard(fn)]
    positions = frozenset(i for fn in real for i, p in enumerate(_positional(fn)) if test(p))
    names = frozenset(p.arg for fn in real for p in [*_positional(fn), *fn.args.kwonlyargs] if test(p))
    return positions, names


def _overlay_op(scope: str, name: str, kinds: set[OpKind], defs: list[ast.FunctionDef]) -> OverlayOp:
    donors = ANY_DEVICE_PARAMETERS.get(name, frozenset())
    return OverlayOp(
        scope,
        name,
        frozenset(kinds),
        host_unclaimed=any(_is_bare_guard(fn) or _is_any_factory(fn) for fn in defs),
        donor=_where(defs, lambda p: p.arg in donors),
        loose=_where(defs, _accepts_anything),
        positional_names=_positional_names(defs),
        vararg=next((fn.args.vararg.arg for fn in defs if fn.args.vararg and not _is_bare_guard(fn)), None),
    )


def _positional_names(defs: list[ast.FunctionDef]) -> tuple[str, ...]:
    real = [fn for fn in defs if not _is_bare_guard(fn)]
    width = max((len(_positional(fn)) for fn in real), default=0)
    names = []
    for i in range(width):
        at = [_positional(fn)[i] for fn in real if i < len(_positional(fn))]
        tensor = [p for p in at if "Tensor" in ast.unparse(p.annotation or ast.Pass())]
        names.append((tensor or at)[0].arg)
    return tuple(names)


def typed_ops(overlay: Overlay) -> dict[int, tuple[Any, list[OverlayOp]]]:
    """The overlay's device-typed ops, by ``id`` of their runtime object (kept alive)."""
    found: dict[int, tuple[Any, list[OverlayOp]]] = {}
    for rel, (scope, holder) in _runtime_scopes().items():
        kinds: dict[str, set[OpKind]] = {}
        for op in overlay.ops.get(rel, []):
            if op.device_typed and (op.returns_tensor or op.kind is OpKind.READBACK):
                kinds.setdefault(op.name, set()).add(op.kind)
        defs = _defs_by_name(overlay, rel)
        for name, op_kinds in kinds.items():
            if rel == TENSOR_PY and name not in vars(torch.Tensor):
                continue
            obj = getattr(holder, name, None)
            if obj is None:
                continue
            entry = found.setdefault(id(obj), (obj, []))
            entry[1].append(_overlay_op(scope, name, op_kinds, defs.get(name, [])))
    return found


# --- one call: its claim and its outcome --------------------------------------------------


@dataclass
class Observation:
    op: str  # the overlay op (scope.name)
    opinfo: str  # the OpInfo entry (name, variant)
    device: str  # the device the samples were made on
    form: str  # sample | no-device | device=<d> | mixed
    claim: str | None  # a device type, ERROR, or None (the overlay claims nothing)
    rule: str  # which rule gave the claim
    outcome: str  # agree | disagree | unsupported | unclaimed | no-tensor
    actual: str = ""  # result devices, or the exception's first line
    #: For a disagreement: the parameters it is about (the tensors off the op's device,
    #: ``device`` for an omitted ``device=``, ``result`` otherwise), and the documented
    #: cause (a row of docs/limits.md, "Run-time conformance") it matches, if any.
    parameters: str = ""
    #: Every tensor off the op's device is a 0-dim CPU tensor (torch's CPU-scalar rule).
    cpu_scalars: bool = False
    reason: str = ""


@dataclass
class _Call:
    args: tuple[Any, ...]
    kwargs: dict[str, Any]

    def tensors(self, op: OverlayOp) -> list[tuple[torch.Tensor, str, str]]:
        """Every tensor passed, with its role (TIED to the op's device, LOOSE: a parameter
        some overload types ``object``/``Any``, DONOR: a copy source, or OUT) and the name
        of the parameter it is passed to."""
        out: list[tuple[torch.Tensor, str, str]] = []
        slots: list[tuple[Any, Any]] = [*enumerate(self.args), *self.kwargs.items()]
        for key, value in slots:
            index = 0 if isinstance(key, int) else 1
            if key in OUTPUT_PARAMETERS:
                role = OUT
            elif key in op.donor[index]:
                role = DONOR
            elif key in op.loose[index]:
                role = LOOSE
            else:
                role = TIED
            param = op.parameter_at(key) if isinstance(key, int) else key
            out += [(t, role, param) for t in tree_flatten(value)[0] if isinstance(t, torch.Tensor)]
        return out


TIED, LOOSE, DONOR, OUT = "tied", "loose", "donor", "out"


def _device_type(value: Any) -> str | None:
    if isinstance(value, torch.device):
        return value.type
    if isinstance(value, str):
        try:
            return torch.device(value).type
        except RuntimeError:
            return None
    return None


def claim_for(op: OverlayOp, call: _Call) -> tuple[str | None, str]:
    """The device the overlay gives the result of ``call``, ERROR, or None; and the rule."""
    kinds = op.kinds
    tensors = call.tensors(op)
    if OpKind.TRANSFER in kinds:
        if op.name in FIXED_TRANSFERS:
            return FIXED_TRANSFERS[op.name], "fixed transfer"
        if op.name in TARGET_TRANSFERS:
            for value in [call.kwargs.get(DEVICE_PARAMETER), *call.args[1:]]:
                target = _device_type(value)
                if target is not None:
                    return target, "transfer to the named device"
            donors = [t for t, role, _ in tensors if role == DONOR]
            if donors:
                return donors[0].device.type, "transfer to the other tensor's device"
            return call.args[0].device.type, "transfer without a device keeps it"
    device = _device_type(call.kwargs.get(DEVICE_PARAMETER))
    if device is not None and kinds & {OpKind.CREATE, OpKind.CREATE_LIKE}:
        if device == "cpu" and op.host_unclaimed:
            return None, "CPU factory result is Any (bare-tensor guard)"
        return device, "device= picks"
    data = TENSOR_DATA_FACTORIES.get(op.name)
    if OpKind.CREATE in kinds and data is not None and call.args and isinstance(call.args[0], torch.Tensor):
        return call.args[0].device.type, "tensor data keeps its device"
    joined = [t for t, role, _ in tensors if role in (TIED, LOOSE)]
    if joined and kinds & {OpKind.PRESERVE, OpKind.CREATE_LIKE}:
        if op.host_unclaimed and joined[0].device.type == "cpu":
            return None, "CPU first tensor gives Any (bare-tensor guard)"
        devices = {t.device.type for t in joined}
        if len({t.device.type for t, role, _ in tensors if role == TIED}) > 1:
            return ERROR, "tensors on two devices"
        if len(devices) > 1:
            return None, "a mix matches an overload that takes any value"
        rule = "preserve" if OpKind.PRESERVE in kinds else "like factory keeps the input's device"
        return devices.pop(), rule
    if OpKind.CREATE in kinds:
        if op.host_unclaimed:
            return None, "CPU factory result is Any (bare-tensor guard)"
        return "cpu", "factory without device= gives the CPU"
    return None, "no rule applies"


def _result_devices(result: Any) -> set[str]:
    return {t.device.type for t in tree_flatten(result)[0] if isinstance(t, torch.Tensor)}


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0] if text else ''}"[:200]


def _execute(fn: Callable[..., Any], op: OverlayOp, call: _Call) -> tuple[str | None, str, str, str]:
    """(claim, rule, outcome, actual) of one call."""
    claim, rule = claim_for(op, call)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = fn(*call.args, **call.kwargs)
    except Exception as exc:  # noqa: BLE001 - any error is an outcome here
        if claim == ERROR:
            return claim, rule, "agree", _first_line(exc)
        return claim, rule, "unsupported", _first_line(exc)
    devices = _result_devices(result)
    actual = ",".join(sorted(devices)) or type(result).__name__
    if claim == ERROR:
        return claim, rule, "disagree", actual
    if claim is None:
        return claim, rule, "unclaimed", actual
    if not devices:
        return claim, rule, "no-tensor", actual
    return claim, rule, ("agree" if devices == {claim} else "disagree"), actual


# --- derived forms -------------------------------------------------------------------------


def _moved(call: _Call, op: OverlayOp, partner: str) -> tuple[_Call, torch.Tensor] | None:
    """``call`` with one tied tensor (not the first; a non-0-dim one where there is one)
    on ``partner``: the overlay's claim for it is an error."""
    leaves, spec = tree_flatten((call.args, call.kwargs))
    tied_ids = {id(t) for t, role, _ in call.tensors(op) if role == TIED}
    tied = [i for i, leaf in enumerate(leaves) if isinstance(leaf, torch.Tensor) and id(leaf) in tied_ids]
    if len(tied) < 2:
        return None
    candidates = [i for i in tied[1:] if leaves[i].dim() > 0] or tied[1:]
    index = candidates[-1]
    original = leaves[index]
    leaves = list(leaves)
    # A meta tensor has no data to copy: the CPU twin gets zeros (valid indices, no NaN).
    leaves[index] = torch.zeros_like(original, device=partner) if original.is_meta else original.to(partner)
    args, kwargs = tree_unflatten(leaves, spec)
    return _Call(tuple(args), dict(kwargs)), original


def _parameters(obs: Observation, call: _Call, op: OverlayOp, device: str) -> tuple[str, list[torch.Tensor]]:
    """What a disagreement is about: the tied tensors off ``device`` (their parameters), the
    omitted ``device=`` of a factory, or the result."""
    if obs.claim == ERROR:
        strays = [(t, param) for t, role, param in call.tensors(op) if role == TIED and t.device.type != device]
        return ",".join(sorted({param for _, param in strays})), [t for t, _ in strays]
    if obs.form == "no-device":
        return DEVICE_PARAMETER, []
    return "result", []


def explanation(obs: Observation, documented: list[Row]) -> str:
    """The id of the documented row the disagreement matches, or ""."""
    for row in documented:
        if row.matches(obs.op, obs.device, obs.parameters, obs.cpu_scalars):
            return row.id
    return ""


# --- the run ---------------------------------------------------------------------------------


@dataclass
class Report:
    torch_version: str
    devices: list[str]
    samples_per_op: int
    #: Typed overlay ops that some OpInfo entry reaches, and those checked against a claim.
    reachable: list[str] = field(default_factory=list)
    checked: list[str] = field(default_factory=list)
    observations: list[Observation] = field(default_factory=list)
    #: OpInfo entries whose sample generation failed, by device: entry -> first line.
    no_samples: dict[str, dict[str, str]] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)

    @property
    def coverage(self) -> float:
        return len(self.checked) / len(self.reachable) if self.reachable else 0.0

    def counts(self, device: str | None = None) -> dict[str, int]:
        return dict(Counter(o.outcome for o in self.observations if device is None or o.device == device))

    def disagreements(self) -> list[Observation]:
        return [o for o in self.observations if o.outcome == "disagree"]

    def unexplained(self) -> list[Observation]:
        return [o for o in self.disagreements() if not o.reason]

    def summary(self) -> dict[str, Any]:
        per_device = {}
        for device in self.devices:
            obs = [o for o in self.observations if o.device == device]
            per_device[device] = {
                "ops_checked": len({o.op for o in obs if o.outcome in ("agree", "disagree")}),
                "calls": len(obs),
                **Counter(o.outcome for o in obs),
            }
        reasons = Counter(o.reason or "UNEXPLAINED" for o in self.disagreements())
        return {
            "torch": self.torch_version,
            "devices": self.devices,
            "samples_per_op": self.samples_per_op,
            "typed_ops_with_opinfo": len(self.reachable),
            "typed_ops_checked": len(self.checked),
            "coverage": round(self.coverage, 4),
            "unchecked": sorted(set(self.reachable) - set(self.checked)),
            "per_device": per_device,
            "by_form": dict(Counter(f"{o.form.split('=')[0]}:{o.outcome}" for o in self.observations)),
            "disagreements_by_reason": dict(reasons),
            "seconds": self.seconds,
        }

    def markdown(self) -> str:
        """The summary and every disagreement, grouped, as a markdown report."""
        summary = self.summary()
        lines = [
            f"# Device conformance: torch {self.torch_version}, devices {', '.join(self.devices)}",
            "",
            f"- typed overlay ops with an OpInfo entry: {summary['typed_ops_with_opinfo']}",
            f"- checked against a claim: {summary['typed_ops_checked']} ({self.coverage:.1%})",
            f"- samples per OpInfo entry and variant: {self.samples_per_op}; CPU seconds: {self.seconds}",
            "",
            "| device | ops checked | calls | agree | disagree | unsupported | unclaimed | no tensor |",
            "|---|---|---|---|---|---|---|---|",
        ]
        for device, row in summary["per_device"].items():
            cells = [row.get(k, 0) for k in ("ops_checked", "calls", "agree", "disagree", "unsupported", "unclaimed", "no-tensor")]
            lines.append(f"| {device} | " + " | ".join(str(c) for c in cells) + " |")
        groups: dict[tuple[str, str, str, str, str, str], list[str]] = {}
        for o in self.disagreements():
            key = (o.reason or "UNEXPLAINED", o.device, o.form, o.parameters, str(o.claim), o.actual)
            groups.setdefault(key, []).append(o.op)
        lines += [
            "",
            "## Disagreements (reasons: docs/limits.md, Run-time conformance)",
            "",
            "| reason | device | form | parameters | claim | torch gave | ops |",
            "|---|---|---|---|---|---|---|",
        ]
        for key, ops in sorted(groups.items()):
            lines.append("| " + " | ".join(key) + f" | {', '.join(sorted(set(ops)))} |")
        if summary["unchecked"]:
            lines += ["", "## Reachable but not checked", "", ", ".join(summary["unchecked"])]
        return "\n".join(lines) + "\n"

    def as_json(self) -> dict[str, Any]:
        mixed: dict[str, dict[str, list[str]]] = {}
        for o in self.observations:
            if o.form == "mixed":
                mixed.setdefault(o.device, {}).setdefault(o.op, []).append(o.outcome)
        return {
            **self.summary(),
            "disagreements": [asdict(o) for o in self.disagreements()],
            #: Per device, each op's mixed-device probes: whether torch raised as claimed.
            "mixed_outcomes": mixed,
            "unsupported": [[o.device, o.op, o.form, o.actual] for o in self.observations if o.outcome == "unsupported"],
            "no_samples": self.no_samples,
        }


def _dtype(entry: Any, device: str) -> torch.dtype | None:
    supported = entry.supported_dtypes("cpu" if device == "meta" else device)
    if torch.float32 in supported:
        return torch.float32
    return min(supported, key=str) if supported else None


def _variants(entry: Any, index: dict[int, tuple[Any, list[OverlayOp]]]) -> list[tuple[str, Callable[..., Any], OverlayOp]]:
    found = []
    for variant in ("op", "method_variant", "inplace_variant", "operator_variant"):
        fn = getattr(entry, variant, None)
        if fn is None:
            continue
        ops = index.get(id(fn), (None, []))[1]
        if not ops and variant == "operator_variant":
            # operator.add -> Tensor.__add__ (the operator's dunder on the tensor class)
            dunder = f"__{fn.__name__.rstrip('_')}__"
            ops = index.get(id(getattr(torch._C.TensorBase, dunder, None)), (None, []))[1]
        found += [(variant, fn, op) for op in ops]
    return found


#: Device specs a run takes: a real device type, or ``fake-<type>``: FakeTensorMode's
#: tensors of that type, which carry torch's real device propagation (its meta kernels
#: and its same-device check) on a machine without that device.
FAKE = "fake-"


def _partner(device: str) -> str:
    """The second device of a derived call: the CPU, or for the CPU ``meta``."""
    return "cpu" if device != "cpu" else "meta"


#: Devices whose mixes with the CPU are checked. ``meta`` is not one: torch lets meta
#: tensors join ops with CPU tensors in many kernels (meta "wins"), so a CPU/meta mix
#: proves nothing about a device mix; a fake or real accelerator does.
def _probes_mixes(device: str) -> bool:
    return device not in ("cpu", "meta")


def _mode(device: str) -> Any:
    if device.startswith(FAKE):
        from torch._subclasses.fake_tensor import FakeTensorMode

        return FakeTensorMode(allow_non_fake_inputs=True)
    return contextlib.nullcontext()


@contextlib.contextmanager
def _quiet_fake_mode() -> Any:
    """FakeTensorMode logs a traceback for every op its meta kernel rejects (a mix, a bad
    shape): thousands of records, and pytest's log capture formats each one."""
    logger = logging.getLogger("torch._subclasses.fake_tensor")
    level = logger.level
    logger.setLevel(logging.CRITICAL)
    try:
        yield
    finally:
        logger.setLevel(level)


def _probe_index(calls: list[_Call], op: OverlayOp) -> int | None:
    """The sample to mix: the first whose second tied tensor (or later) has dimensions,
    else the first with two tied tensors at all (the mix is then a 0-dim one)."""
    fallback = None
    for i, call in enumerate(calls):
        tied = [t for t, role, _ in call.tensors(op) if role == TIED]
        if len(tied) >= 2:
            if any(t.dim() > 0 for t in tied[1:]):
                return i
            fallback = i if fallback is None else fallback
    return fallback


def _on_fake(call: _Call, device: str) -> _Call:
    """A CPU sample with every tensor and ``device=`` on the fake ``device``. Fake tensors
    hold no data, so each becomes an empty one of its shape, strides and dtype (``.to``
    would need the device's copy kernel, which a build without the device lacks)."""
    leaves, spec = tree_flatten((call.args, call.kwargs))
    moved = [torch.empty_like(t, device=device) if isinstance(t, torch.Tensor) else t for t in leaves]
    args, kwargs = tree_unflatten(moved, spec)
    if kwargs.get(DEVICE_PARAMETER) is not None:
        kwargs = {**kwargs, DEVICE_PARAMETER: device}
    return _Call(tuple(args), dict(kwargs))


def _check_entry(
    entry: Any,
    variants: list[tuple[str, Callable[..., Any], OverlayOp]],
    device: str,
    samples_per_op: int,
    report: Report,
    mode: Any,
    documented: list[Row],
) -> None:
    real = device.removeprefix(FAKE)
    # FakeTensorMode cannot run torch's random fill on a device this build lacks: a fake
    # device's samples are made on the CPU and moved (tensors and device=) to the fake one.
    made_on = "cpu" if device.startswith(FAKE) else real
    title = f"{entry.name}.{entry.variant_test_name}".rstrip(".")
    dtype = _dtype(entry, real)
    if dtype is None:
        return
    for variant, fn, op in variants:
        try:
            torch.manual_seed(0)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                samples = list(itertools.islice(entry.sample_inputs(made_on, dtype), samples_per_op))
        except Exception as exc:  # noqa: BLE001 - torch's generators fail in many ways
            report.no_samples.setdefault(device, {})[title] = _first_line(exc)
            return
        with mode:
            _check_samples(fn, op, [_Call((s.input, *s.args), dict(s.kwargs)) for s in samples], f"{title} ({variant})", device, report, documented)


def _check_samples(
    fn: Callable[..., Any], op: OverlayOp, calls: list[_Call], title: str, device: str, report: Report, documented: list[Row]
) -> None:
    real = device.removeprefix(FAKE)
    partner = _partner(real)
    if device.startswith(FAKE):
        try:
            calls = [_on_fake(call, real) for call in calls]
        except Exception as exc:  # noqa: BLE001 - e.g. a sparse tensor fake mode cannot move
            report.no_samples.setdefault(device, {})[title] = _first_line(exc)
            return
    probe = _probe_index(calls, op) if _probes_mixes(real) and op.kinds & {OpKind.PRESERVE, OpKind.CREATE_LIKE} else None
    for i, call in enumerate(calls):
        forms: list[tuple[str, _Call]] = [("sample", call)]
        has_device = call.kwargs.get(DEVICE_PARAMETER) is not None
        if has_device and op.kinds & {OpKind.CREATE, OpKind.CREATE_LIKE} and real != "cpu":
            forms.append(("no-device", _Call(call.args, {k: v for k, v in call.kwargs.items() if k != DEVICE_PARAMETER})))
        if not has_device and OpKind.CREATE_LIKE in op.kinds:
            forms.append((f"device={partner}", _Call(call.args, {**call.kwargs, DEVICE_PARAMETER: partner})))
        if i == probe:
            moved = _moved(call, op, partner)
            if moved is not None:
                forms.append(("mixed", moved[0]))
        for form, form_call in forms:
            claim, rule, outcome, actual = _execute(fn, op, form_call)
            obs = Observation(op.key, title, device, form, claim, rule, outcome, actual)
            if outcome == "disagree":
                obs.parameters, strays = _parameters(obs, form_call, op, real)
                obs.cpu_scalars = bool(strays) and all(t.device.type == "cpu" and t.dim() == 0 for t in strays)
                obs.reason = explanation(obs, documented)
            report.observations.append(obs)


def run(
    devices: list[str],
    samples_per_op: int = 3,
    only: Iterable[str] | None = None,
    overlay: Overlay | None = None,
    documented: list[Row] | None = None,
) -> Report:
    """Run the suite on ``devices`` (e.g. ``["cpu", "meta", "fake-cuda"]`` or ``["cuda"]``)."""
    started = time.process_time()
    from torch.testing._internal.common_methods_invocations import op_db

    overlay = overlay or build_overlay()
    documented = rows() if documented is None else documented
    index = typed_ops(overlay)
    report = Report(torch.__version__, devices, samples_per_op)
    report.seconds["setup_cpu"] = round(time.process_time() - started, 2)
    wanted = set(only) if only is not None else None
    entries = []
    for entry in op_db:
        variants = _variants(entry, index)
        if wanted is not None:
            variants = [v for v in variants if v[2].key in wanted]
        if variants:
            entries.append((entry, variants))
    report.reachable = sorted({op.key for _, variants in entries for _, _, op in variants})
    for device in devices:
        device_started = time.process_time()
        mode = _mode(device)
        with _quiet_fake_mode():
            for entry, variants in entries:
                _check_entry(entry, variants, device, samples_per_op, report, mode, documented)
        report.seconds[f"{device}_cpu"] = round(time.process_time() - device_started, 2)
    report.checked = sorted({o.op for o in report.observations if o.outcome in ("agree", "disagree")})
    report.seconds["total_cpu"] = round(time.process_time() - started, 2)
    return report


def main() -> None:
    """``python -m tests.conformance.suite [devices...]``: print the summary as JSON."""
    import json
    import sys

    devices = sys.argv[1:] or ["cpu", "meta", "fake-cuda"]
    report = run(devices)
    print(json.dumps(report.as_json(), indent=1))


if __name__ == "__main__":
    main()
