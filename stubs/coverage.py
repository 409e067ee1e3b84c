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

from .overlay import C_MODULE, OverlayError, build_overlay
from .signatures import Op

__all__ = ["main", "coverage"]

FUNCTIONS = "_C/_VariableFunctions.pyi"
METHODS = (C_MODULE, "_tensor.pyi")
TARGET = 0.95


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


def coverage() -> dict[str, dict[str, object]]:
    overlay = build_overlay()
    method_ops = [op for rel in METHODS for op in overlay.ops.get(rel, [])]
    report: dict[str, dict[str, object]] = {}
    for label, ops in (("functions", overlay.ops[FUNCTIONS]), ("methods", method_ops)):
        total, covered = _by_name(ops)
        kinds: dict[str, int] = defaultdict(int)
        for op in ops:
            if op.returns_tensor and op.name in covered:
                kinds[op.kind.value] += 1
        report[label] = {
            "total": len(total),
            "covered": len(covered),
            "ratio": len(covered) / len(total) if total else 1.0,
            "uncovered": sorted(total - covered),
            "overloads_by_kind": dict(sorted(kinds.items())),
        }
    report["torch"] = {"version": overlay.torch_version}
    return report


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
        print(json.dumps(report, indent=2))
    else:
        print(f"device-generic coverage for torch {report['torch']['version']} (target {TARGET:.0%}):")
        for label, title in (("functions", "torch._C._VariableFunctions functions"), ("methods", "Tensor methods and operators")):
            r = report[label]
            verdict = "ok" if r["ratio"] >= TARGET else "BELOW TARGET"  # type: ignore[operator]
            print(f"  {title}: {r['covered']}/{r['total']} = {r['ratio']:.1%}  [{verdict}]")
            if args.show_uncovered and r["uncovered"]:
                print("    without a device: " + ", ".join(r["uncovered"]))  # type: ignore[arg-type]
    ok = all(report[k]["ratio"] >= TARGET for k in ("functions", "methods"))  # type: ignore[operator]
    return 0 if ok else 1

