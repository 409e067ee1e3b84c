"""``device-types coverage``: which torch ops have device-generic signatures.

Counts, for the installed torch, the public (no leading underscore; dunders count)
tensor-returning functions of
``torch._C._VariableFunctions`` and the tensor-returning methods and operators of
``torch.Tensor`` (``TensorBase`` plus what ``torch/_tensor.py`` adds), by name: an op
is covered when every overload of it that returns a tensor carries a device.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from dataclasses import asdict, dataclass

from .namespaces import NAMESPACES
from .overlay import C_MODULE, OverlayError, build_overlay
from .pyfunctions import FUNCTIONAL_STUB
from .signatures import Op

__all__ = ["main", "coverage"]

FUNCTIONS = "_C/_VariableFunctions.pyi"
METHODS = (C_MODULE, "_tensor.pyi")
TARGET = 0.95
#: The namespaces torch ships without stubs, by overlay file (namespaces.py, pyfunctions.py).
NAMESPACE_FILES = {
    **{"torch." + stub.split("/")[0]: stub for stub in NAMESPACES.values()},
    "torch.functional": FUNCTIONAL_STUB,
}


def _is_public(name: str) -> bool:
    return not name.startswith("_") or (name.startswith("__") and name.endswith("__"))


def _by_name(ops: list[Op]) -> tuple[set[str], set[str]]:
    """(public tensor-returning op names, those whose every tensor-returning overload is typed)."""
    returning: dict[str, list[Op]] = defaultdict(list)
    for op in ops:
        if op.returns_tensor and _is_public(op.name):
            returning[op.name].append(op)
    covered = {name for name, overloads in returning.items() if all(o.device_typed for o in overloads)}
    return set(returning), covered


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


def _measure(ops: list[Op]) -> OpCoverage:
    total, covered = _by_name(ops)
    kinds: dict[str, int] = defaultdict(int)
    for op in ops:
        if op.returns_tensor and op.name in covered:
            kinds[op.kind.value] += 1
    return OpCoverage(len(total), len(covered), sorted(total - covered), dict(sorted(kinds.items())))


def coverage() -> Report:
    overlay = build_overlay()
    method_ops = [op for rel in METHODS for op in overlay.ops.get(rel, [])]
    namespaces = {title: _measure(overlay.ops[rel]) if rel in overlay.ops else None for title, rel in NAMESPACE_FILES.items()}
    return Report(overlay.torch_version, _measure(overlay.ops[FUNCTIONS]), _measure(method_ops), namespaces)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="device-types coverage", description=__doc__.splitlines()[0])
    parser.add_argument("--format", choices=["text", "json"], default="text")
    parser.add_argument("--show-uncovered", action="store_true", help="list the ops without a device")
    args = parser.parse_args(argv)
    try:
        report = coverage()
    except OverlayError as exc:
        print(f"device-types: {exc}", file=sys.stderr)
        return 2
    if args.format == "json":
        data: dict[str, object] = {"functions": report.functions.as_json(), "methods": report.methods.as_json()}
        data["namespaces"] = {title: None if part is None else part.as_json() for title, part in report.namespaces.items()}
        print(json.dumps({**data, "torch": {"version": report.torch_version}}, indent=2))
    else:
        print(f"device-generic coverage for torch {report.torch_version} (target {TARGET:.0%}):")
        for title, part in (
            ("torch._C._VariableFunctions functions", report.functions),
            ("Tensor methods and operators", report.methods),
        ):
            verdict = "ok" if part.ratio >= TARGET else "BELOW TARGET"
            print(f"  {title}: {part.covered}/{part.total} = {part.ratio:.1%}  [{verdict}]")
            if args.show_uncovered and part.uncovered:
                print("    without a device: " + ", ".join(part.uncovered))
        for title, namespace in report.namespaces.items():
            if namespace is None:
                print(f"  {title}: no stub generated (this torch ships no native schemas)  [BELOW TARGET]")
                continue
            verdict = "ok" if namespace.ratio >= TARGET else "BELOW TARGET"
            print(f"  {title}: {namespace.covered}/{namespace.total} = {namespace.ratio:.1%}  [{verdict}]")
            if args.show_uncovered and namespace.uncovered:
                print("    without a device: " + ", ".join(namespace.uncovered))
    return 0 if report.meets_target else 1
