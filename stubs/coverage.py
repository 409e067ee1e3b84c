"""``device-types coverage``: which torch ops give a result that carries the device.

Counts, for the installed torch (or an unpacked one), the public (no leading underscore;
dunders count) tensor-returning functions of ``torch._C._VariableFunctions`` and the
tensor-returning methods and operators of ``torch.Tensor`` (``TensorBase`` plus what
``torch/_tensor.py`` adds). The rule reads the generated overlay as a checker does:

- a method's effective signature is ``Tensor``'s own definition when ``_tensor.pyi``
  has one (an alias, a Python method, an untyped attribute), else ``TensorBase``'s;
- an op is covered when every overload of it, except a guard that only an ``Any``
  device reaches (``device: Never``: the measured layout ``NEVER_GUARDS`` of
  ``signatures.py``; the shipped one has none), has a return annotation that names a
  device (the device TypeVar or a marker). A method whose effective signature returns
  ``Any`` (no annotation, an untyped attribute) is counted and not covered;
- a factory's or transfer's last overload, torch's own signature for a device known only
  at run time (``device=dev_str``), is exempt: it is the designed fallback (unknown
  device, never a false error), and every device the checker can know is typed by the
  overloads before it.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from dataclasses import asdict, dataclass
from pathlib import Path

from device_types._semantics import DEVICE_PARAMETER

from .annotations import mentions_tensor
from .namespaces import NAMESPACES
from .overlay import C_MODULE, Overlay, OverlayError, build_overlay
from .pyfunctions import FUNCTIONAL_STUB
from .signatures import DEVICE_OR_CPU, DEVICE_T, NEVER, TARGET_T, Op

__all__ = ["main", "coverage", "report_for"]

FUNCTIONS = "_C/_VariableFunctions.pyi"
TENSOR_MODULE = "_tensor.pyi"
TARGET = 0.95
#: The namespaces torch ships without stubs, by overlay file (namespaces.py, pyfunctions.py).
NAMESPACE_FILES = {
    **{"torch." + stub.split("/")[0]: stub for stub in NAMESPACES.values()},
    "torch.functional": FUNCTIONAL_STUB,
}
#: Names in a return annotation that make its tensors carry a device.
_DEVICE_NAMES = frozenset({DEVICE_T, TARGET_T, DEVICE_OR_CPU})


def _is_public(name: str) -> bool:
    return not name.startswith("_") or (name.startswith("__") and name.endswith("__"))


def _names_device(annotation: ast.expr | None) -> bool:
    if annotation is None:
        return False
    return any(
        isinstance(n, ast.Name) and (n.id in _DEVICE_NAMES or (n.id.startswith("_dt_") and n.id[4:].isupper()))
        for n in ast.walk(annotation)
    )


def _is_guard(fn: ast.FunctionDef) -> bool:
    """An overload that only ``Any`` reaches (``device: Never``): it keeps stock torch's
    result type for a device the checker does not know."""
    a = fn.args
    return any(
        isinstance(n, ast.Name) and n.id == NEVER
        for p in [*a.posonlyargs, *a.args, *a.kwonlyargs]
        for n in ast.walk(p.annotation or ast.Pass())
    )


#: A name's effective definition: its defs, or None for an attribute checkers read as Any.
Definitions = dict[str, "list[ast.FunctionDef] | None"]


def _scope(body: list[ast.stmt]) -> Definitions:
    defs: Definitions = {}
    for stmt in body:
        if isinstance(stmt, ast.FunctionDef):
            found = defs.get(stmt.name)
            defs[stmt.name] = [*(found or []), stmt]
        elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
            defs[stmt.target.id] = None
        elif isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Name):
            for target in stmt.targets:
                if isinstance(target, ast.Name):
                    defs[target.id] = defs.get(stmt.value.id)
    return defs


def _class_scope(module: str, cls: str) -> Definitions:
    for stmt in ast.parse(module).body:
        if isinstance(stmt, ast.ClassDef) and stmt.name == cls:
            return _scope(stmt.body)
    raise OverlayError(f"class {cls} not found in the overlay")


def _returns_tensor(defs: list[ast.FunctionDef] | None) -> bool:
    return bool(defs) and any(mentions_tensor(fn.returns) for fn in defs or [] if not _is_guard(fn))


def _is_runtime_device_fallback(fn: ast.FunctionDef) -> bool:
    """The overload that takes ``device`` as torch types it (no literal, no ``device[D]``)."""
    a = fn.args
    for p in [*a.posonlyargs, *a.args, *a.kwonlyargs]:
        if p.arg == DEVICE_PARAMETER:
            return not any(isinstance(n, ast.Name) and n.id.startswith("_dt_") for n in ast.walk(p.annotation or ast.Pass()))
    return False


def _carries_device(defs: list[ast.FunctionDef] | None) -> bool:
    """Every tensor-returning overload (bar the bare guard and the run-time device
    fallback) names a device in its result."""
    if not defs:
        return False
    real = [fn for fn in defs if not _is_guard(fn)]
    if len(real) > 1:
        real = [fn for fn in real if not _is_runtime_device_fallback(fn)]
    returning = [fn for fn in real if fn.returns is None or mentions_tensor(fn.returns)]
    return bool(returning) and all(_names_device(fn.returns) for fn in returning)


@dataclass(frozen=True)
class OpCoverage:
    total: int
    covered: int
    uncovered: list[str]
    overloads_by_kind: dict[str, int]

    @property
    def ratio(self) -> float:
        return self.covered / self.total if self.total else 1.0

    def as_json(self) -> dict[str, object]:
        return {**asdict(self), "ratio": self.ratio}


@dataclass(frozen=True)
class Report:
    torch_version: str
    functions: OpCoverage
    methods: OpCoverage
    #: Per namespace; None where the overlay has no stub for it (counted as failing).
    namespaces: dict[str, OpCoverage | None]

    @property
    def meets_target(self) -> bool:
        parts = [self.functions, self.methods, *self.namespaces.values()]
        return all(part is not None and part.ratio >= TARGET for part in parts)


def _measure(scope: Definitions, returning: set[str], ops: list[Op]) -> OpCoverage:
    total = {n for n in returning if _is_public(n)}
    covered = {n for n in total if _carries_device(scope.get(n))}
    kinds: dict[str, int] = defaultdict(int)
    for op in ops:
        if op.returns_tensor and op.name in covered:
            kinds[op.kind.value] += 1
    return OpCoverage(len(total), len(covered), sorted(total - covered), dict(sorted(kinds.items())))


def _measure_ops(ops: list[Op]) -> OpCoverage:
    """The namespaces (written stubs): an op is covered when every tensor-returning
    overload the rewrite produced carries a device (namespaces.py, pyfunctions.py)."""
    returning: dict[str, list[Op]] = defaultdict(list)
    for op in ops:
        if op.returns_tensor and _is_public(op.name):
            returning[op.name].append(op)
    covered = {name for name, overloads in returning.items() if all(o.device_typed for o in overloads)}
    kinds: dict[str, int] = defaultdict(int)
    for op in ops:
        if op.returns_tensor and op.name in covered:
            kinds[op.kind.value] += 1
    return OpCoverage(len(returning), len(covered), sorted(set(returning) - covered), dict(sorted(kinds.items())))


def report_for(overlay: Overlay) -> Report:
    functions = _scope(ast.parse(overlay.files[FUNCTIONS]).body)
    base = _class_scope(overlay.files[C_MODULE], "TensorBase")
    own = _class_scope(overlay.files[TENSOR_MODULE], "Tensor")
    methods = {**base, **own}
    # A method returns a tensor when any definition of it does, shadowed or not: an op
    # that Tensor's own (untyped) definition hides from checkers is counted, not covered.
    returning = {n for scope in (base, own) for n, defs in scope.items() if _returns_tensor(defs)}
    method_ops = [op for rel in (C_MODULE, TENSOR_MODULE) for op in overlay.ops.get(rel, [])]
    return Report(
        overlay.torch_version,
        _measure(functions, {n for n, defs in functions.items() if _returns_tensor(defs)}, overlay.ops[FUNCTIONS]),
        _measure(methods, returning, method_ops),
        {title: _measure_ops(overlay.ops[rel]) if rel in overlay.ops else None for title, rel in NAMESPACE_FILES.items()},
    )


def coverage(root: Path | None = None) -> Report:
    """Coverage of the overlay for the installed torch, or for the torch package at ``root``."""
    return report_for(build_overlay(root))


def main(argv: list[str]) -> int:
    """``device-types coverage ARGS`` (options and output: ``stubs/cli.py``)."""
    from device_types._cli import main as cli_main

    return cli_main(["coverage", *argv])
