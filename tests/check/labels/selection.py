"""Which functions of candle's backends the labels must cover (reproducible selection).

Three sets, over every function (module-level def, method, nested def) of
``candle/_backends/{mps,cuda,npu}``:

* ``host-ish``: its own body (nested defs excluded: they are units of their own) mentions a
  host construct: numpy, readback/upload helpers, ``.numpy()``/``.tolist()``/``.item()``/
  ``.cpu()``, a ``"cpu"`` string, D2H copy helpers, RNGs, ctypes buffer reads, Accelerate;
* ``readback callers``: calls a unit whose own body reads device data to the host (their
  verdict decides host-sync versus fallback);
* ``callers``: calls, directly or through other backend functions, a function labelled
  ``fallback`` (needs the labels file; resolved by name inside the same module, through
  ``from .mod import f`` and through ``mod.f`` for imported backend modules);
* ``sample``: a seeded random sample of all functions (stable for one corpus).

This only *selects*; every verdict in the labels file is a judgement made by reading the
function against ``shared/policy/what-counts-as-a-fallback.md``.

Usage::

    python tests/check/labels/selection.py CANDLE_ROOT [--labels FILE] [--show] [--missing]

``CANDLE_ROOT`` is the directory that holds ``candle/`` (``tests.registry.unpacked(...)``).
"""

from __future__ import annotations

import argparse
import ast
import json
import random
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

BACKENDS = ("mps", "cuda", "npu")
SAMPLE_SIZE = 200
SAMPLE_SEED = 7

_HOST_NAMES = re.compile(
    r"^(np|numpy|scipy|_to_numpy|_from_numpy|_numpy_view|_accel|random|rng|_rng|"
    r"\w*memcpy\w*|_copy_\w*to_cpu\w*|_copy_cpu_to_\w*|\w*d2h\w*|\w*h2d\w*|\w*_to_host\w*|from_address|"
    r"string_at|memmove|"
    r"buffer_contents|frombuffer)$",
    re.IGNORECASE,
)
_HOST_METHODS = {"numpy", "tolist", "item", "cpu", "_numpy_view", "from_address", "string_at",
                 "memmove", "frombuffer"}


@dataclass
class Unit:
    path: str  # relative to the candle root, e.g. candle/_backends/mps/ops.py
    module: str  # dotted, e.g. candle._backends.mps.ops
    qualname: str
    lineno: int
    end_lineno: int
    markers: set[str] = field(default_factory=set)
    calls: set[tuple[str, str]] = field(default_factory=set)  # (module, qualname)


def _own_nodes(fn: ast.AST):
    """Nodes of ``fn``'s body, without descending into nested defs and classes."""
    stack = list(ast.iter_child_nodes(fn))
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        stack.extend(ast.iter_child_nodes(node))


def _resolve_from(module: str, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    parts = module.split(".")[: -node.level]
    return ".".join(parts + ([node.module] if node.module else []))


def _imports(module: str, tree: ast.AST) -> tuple[dict[str, tuple[str, str]], dict[str, str]]:
    """Names bound by ``from X import f`` (-> (X, f)) and module aliases (-> dotted module)."""
    names: dict[str, tuple[str, str]] = {}
    modules: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            base = _resolve_from(module, node)
            for alias in node.names:
                bound = alias.asname or alias.name
                names[bound] = (base, alias.name)
                modules.setdefault(bound, f"{base}.{alias.name}")
        elif isinstance(node, ast.Import):
            for alias in node.names:
                modules[alias.asname or alias.name.split(".")[0]] = alias.name
    return names, modules


def _host_aliases(tree: ast.AST) -> set[str]:
    """Names bound to numpy/scipy anywhere in the module (``import numpy as _np``)."""
    aliases = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] in ("numpy", "scipy"):
                    aliases.add(alias.asname or alias.name.split(".")[0])
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] in ("numpy", "scipy"):
            aliases.update(alias.asname or alias.name for alias in node.names)
    return aliases


def _markers(fn: ast.AST, aliases: set[str] = frozenset()) -> set[str]:
    found: set[str] = set()
    for node in _own_nodes(fn):
        if isinstance(node, ast.Name) and (_HOST_NAMES.match(node.id) or node.id in aliases):
            found.add(node.id)
        elif isinstance(node, ast.Attribute):
            if node.attr in _HOST_METHODS or _HOST_NAMES.match(node.attr):
                found.add("." + node.attr)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            if node.value.lower().startswith("cpu"):
                found.add(repr(node.value))
    return found


def collect(root: Path) -> dict[tuple[str, str], Unit]:
    """Every function unit of the three backends, keyed by (module, qualname)."""
    units: dict[tuple[str, str], Unit] = {}
    for backend in BACKENDS:
        for file in sorted((root / "candle" / "_backends" / backend).glob("*.py")):
            rel = file.relative_to(root).as_posix()
            module = rel[:-3].replace("/", ".").removesuffix(".__init__")
            tree = ast.parse(file.read_text(encoding="utf-8"), filename=rel)
            names, modules = _imports(module, tree)
            aliases = _host_aliases(tree)
            top_level = {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
            pending: list[tuple[ast.AST, str]] = [(tree, "")]
            while pending:
                scope, prefix = pending.pop()
                for node in ast.iter_child_nodes(scope):
                    if isinstance(node, ast.ClassDef):
                        pending.append((node, f"{prefix}{node.name}."))
                    elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                        qual = f"{prefix}{node.name}"
                        unit = Unit(rel, module, qual, node.lineno, node.end_lineno or node.lineno,
                                    _markers(node, aliases), _calls(node, module, top_level, names, modules))
                        units[(module, qual)] = unit
                        pending.append((node, f"{qual}.<locals>."))
                    elif not isinstance(node, (ast.expr, ast.Import, ast.ImportFrom)):
                        # defs inside if/try blocks at the same level
                        if isinstance(node, (ast.If, ast.Try, ast.With, ast.For, ast.While)):
                            pending.append((node, prefix))
    return units


def _calls(fn, module, top_level, names, modules) -> set[tuple[str, str]]:
    out: set[tuple[str, str]] = set()
    for node in _own_nodes(fn):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Name):
            if func.id in names:
                out.add(names[func.id])
            elif func.id in top_level:
                out.add((module, func.id))
        elif isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
            if func.value.id in modules:
                out.add((modules[func.value.id], func.attr))
    return out


def host_ish(units):
    return {key for key, unit in units.items() if unit.markers}


_READBACK_MARKERS = re.compile(
    r"(d2h|device_to_host|to_cpu|_to_numpy|_numpy_view|^\.numpy$|^\.tolist$|^\.item$|^\.cpu$|'cpu)",
    re.IGNORECASE,
)


def readback_callers(units):
    """Units that directly call a unit whose own body reads device data to the host."""
    readers = {k for k, u in units.items() if any(_READBACK_MARKERS.search(m) for m in u.markers)}
    return {k for k, u in units.items() if u.calls & readers} - readers


def sample(units, seed: int = SAMPLE_SEED, size: int = SAMPLE_SIZE):
    # Drawn from every unit (not only the non-host-ish ones) so that a change to the marker
    # list does not reshuffle the sample.
    everything = sorted(units)
    return set(random.Random(seed).sample(everything, min(size, len(everything))))


def callers_of(units, targets: set[tuple[str, str]]) -> dict[tuple[str, str], list[tuple[str, str]]]:
    """Each unit that reaches one of ``targets`` through calls -> one call chain to it."""
    chains: dict[tuple[str, str], list[tuple[str, str]]] = {t: [t] for t in targets if t in units}
    changed = True
    while changed:
        changed = False
        for key, unit in units.items():
            if key in chains:
                continue
            for callee in sorted(unit.calls):
                if callee in chains:
                    chains[key] = [key, *chains[callee]]
                    changed = True
                    break
    return {k: v for k, v in chains.items() if k not in targets}


def load_labels(path: Path) -> dict[tuple[str, str], dict]:
    data = json.loads(path.read_text(encoding="utf-8"))
    out = {}
    for entry in data["functions"]:
        module = entry["path"][:-3].replace("/", ".").removesuffix(".__init__")
        out[(module, entry["function"])] = entry
    return out


def required(units, labels) -> dict[tuple[str, str], str]:
    """Every unit the labels must cover -> why it is selected."""
    why: dict[tuple[str, str], str] = {}
    for key in sample(units):
        why[key] = "sample"
    for key in readback_callers(units):
        why[key] = "calls a readback: " + ", ".join(
            sorted(q for (_, q) in units[key].calls if units.get((_, q)) and units[(_, q)].markers))
    for key in host_ish(units):
        why[key] = "host-ish: " + ", ".join(sorted(units[key].markers))
    fallbacks = {k for k, e in labels.items() if e["label"] == "fallback"}
    for key, chain in callers_of(units, fallbacks).items():
        why[key] = "calls fallback: " + " -> ".join(q for _, q in chain)
    return why


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root", type=Path)
    parser.add_argument("--labels", type=Path)
    parser.add_argument("--show", action="store_true", help="print each function's source")
    parser.add_argument("--missing", action="store_true", help="only units without a label")
    args = parser.parse_args(argv)
    units = collect(args.root)
    labels = load_labels(args.labels) if args.labels and args.labels.exists() else {}
    why = required(units, labels)
    for key in sorted(why, key=lambda k: (units[k].path, units[k].lineno)):
        if args.missing and key in labels:
            continue
        unit = units[key]
        print(f"## {unit.path}:{unit.lineno} {unit.qualname}  [{why[key]}]")
        if args.show:
            lines = (args.root / unit.path).read_text(encoding="utf-8").splitlines()
            print("\n".join(lines[unit.lineno - 1: unit.end_lineno]))
    print(f"# {len(units)} units, {len(why)} required, {len(set(why) - set(labels))} unlabelled",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
