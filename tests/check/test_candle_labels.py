"""The labelled corpus and the fix pairs are consistent with the wheel (no engine needed).

These keep the ground truth honest: every selected function has a verdict, every verdict names
a real function, every fix pair's "before" is a labelled fallback, and every "after" only calls
names its module defines and functions that stay on the device once all pairs are applied.
"""

from __future__ import annotations

import ast
import builtins
import json
import textwrap
from pathlib import Path

import pytest

from tests.check.candle_corpus import LABELS, Label
from tests.check.labels import indirect, selection
from tests.check.pairs.candle_0_1_0a1 import PAIRS
from tests.check.pairs.model import Pair, before_source, find_def

VERDICTS = {"fallback", "host-sync", "clean"}


@pytest.fixture(scope="module")
def units(candle: Path) -> dict[tuple[str, str], selection.Unit]:
    return selection.collect(candle)


def _key(path: str, function: str) -> tuple[str, str]:
    return (path[:-3].replace("/", ".").removesuffix(".__init__"), function)


def test_labels_file_has_the_documented_shape() -> None:
    data = json.loads(LABELS.read_text(encoding="utf-8"))
    assert data["corpus"] == "candle-python==0.1.0a1"
    assert data["definition"] == "shared/policy/what-counts-as-a-fallback.md"
    bad = [e for e in data["functions"]
           if set(e) != {"path", "function", "label", "why"} or e["label"] not in VERDICTS or not e["why"].strip()]
    assert not bad, f"malformed entries: {bad[:5]}"
    keys = [(e["path"], e["function"]) for e in data["functions"]]
    assert len(keys) == len(set(keys)), "a function is labelled twice"


def test_every_label_names_a_function_of_the_wheel(labels: dict, units: dict) -> None:
    unknown = [key for key in labels if _key(*key) not in units]
    assert not unknown, f"labels for functions the wheel does not define: {unknown}"


def test_every_selected_function_is_labelled(labels: dict, units: dict) -> None:
    by_key = {_key(*key): label for key, label in labels.items()}
    entries = {k: {"label": v.label} for k, v in by_key.items()}
    missing = {k: why for k, why in selection.required(units, entries).items() if k not in by_key}
    assert not missing, "unlabelled functions the selection requires:\n" + "\n".join(
        f"  {units[k].path}: {k[1]}  [{why}]" for k, why in sorted(missing.items()))


def test_callers_of_fallbacks_are_fallbacks(labels: dict, units: dict) -> None:
    """Indirect fallbacks: a backend function that reaches a fallback is labelled fallback, unless
    every call on the way is judged ``reached: false`` in the indirect-edge labels."""
    fallbacks = {_key(*k) for k, v in labels.items() if v.label == "fallback"}
    taken = indirect.without_unreached_calls(units, indirect.edges())
    wrong = [(units[k].path, k[1], " -> ".join(q for _, q in chain))
             for k, chain in selection.callers_of(taken, fallbacks).items()
             if getattr(labels.get((units[k].path, k[1])), "label", None) != "fallback"]
    assert not wrong, "reach a fallback but are not labelled fallback:\n" + "\n".join(map(str, wrong))


def test_indirect_labels_reach_a_fallback_through_reached_calls(labels: dict, units: dict) -> None:
    """A function labelled fallback only through a chain (``indirect:``) has a chain that is taken."""
    fallbacks = {_key(*k) for k, v in labels.items() if v.label == "fallback" and not v.why.startswith("indirect:")}
    taken = indirect.without_unreached_calls(units, indirect.edges())
    reaching = selection.callers_of(taken, fallbacks)
    wrong = [k for k, v in labels.items() if v.why.startswith("indirect:") and _key(*k) not in reaching]
    assert not wrong, f"labelled indirect fallbacks whose every chain is judged not reached: {wrong}"


def test_indirect_edges_have_the_documented_shape(candle: Path) -> None:
    data = indirect.load()
    assert data["corpus"] == "candle-python==0.1.0a1"
    problems = []
    for e in data["edges"]:
        extra = set(e) - {"path", "caller", "callee", "call_line", "reached", "root", "condition", "why", "also_roots"}
        if extra or not isinstance(e["reached"], bool) or not e["why"].strip():
            problems.append(f"malformed: {e}")
        elif e["reached"] != (e["root"] is not None) or (not e["reached"] and e.get("also_roots")):
            problems.append(f"a reached edge needs a root, an unreached one has none: {e}")
        for root in ([e["root"]] if e["root"] else []) + e.get("also_roots", []):
            path, _, line = root.rpartition(":")
            lines = (candle / path).read_text(encoding="utf-8").splitlines() if (candle / path).is_file() else []
            if not line.isdigit() or not 0 < int(line) <= len(lines) or not lines[int(line) - 1].strip():
                problems.append(f"{e['caller']} -> {e['callee']}: root {root} is no line of code in the wheel")
    keys = [(e["path"], e["caller"], e["callee"], e["call_line"]) for e in data["edges"]]
    assert len(keys) == len(set(keys)), "a call site is judged twice"
    assert not problems, "\n".join(problems)


def test_every_indirect_edge_is_a_call_of_the_callee_in_the_caller(candle: Path) -> None:
    trees: dict[str, ast.Module] = {}
    wrong = []
    for edge in indirect.edges():
        tree = trees.setdefault(edge.path, ast.parse((candle / edge.path).read_text(encoding="utf-8")))
        fn = find_def(tree, edge.caller)
        called = {node.lineno for node in ast.walk(fn) if isinstance(node, ast.Call)
                  and _called_name(node.func) == edge.callee.split(".")[-1]}
        if edge.call_line not in called:
            wrong.append(f"{edge.path}:{edge.call_line}: {edge.caller} does not call {edge.callee} there")
    assert not wrong, "\n".join(wrong)


def test_reached_edges_reach_a_labelled_fallback_and_unreached_ones_are_judged_by_rule(labels: dict) -> None:
    """A reached edge's callee is a labelled fallback; every caller of the file is labelled."""
    problems = []
    for edge in indirect.edges():
        callee = labels.get((edge.path, edge.callee))
        if edge.reached and getattr(callee, "label", None) != "fallback":
            problems.append(f"{edge.caller} -> {edge.callee} is reached but the callee is labelled {callee}")
        if (edge.path, edge.caller) not in labels:
            problems.append(f"{edge.caller} is judged as a caller but has no function label")
    assert not problems, "\n".join(problems)


def test_indirect_pairs_cover_the_patterns_with_real_callers() -> None:
    """Reached/unreached pairs of real callers of one callee, one pattern of issue 14 each."""
    data = indirect.load()
    by_site = {(e.caller, e.callee, e.call_line): e for e in indirect.edges()}
    problems = []
    full = 0
    for pair in data["pairs"]:
        if pair["pattern"] not in indirect.PATTERNS:
            problems.append(f"unknown pattern {pair['pattern']!r}")
        sides = [(side, pair[side]) for side in ("reached", "unreached") if pair[side] is not None]
        if len(sides) < 2 and not pair.get("note", "").strip():
            problems.append(f"a half pair needs a note saying why the wheel has no partner: {pair}")
        full += len(sides) == 2
        for side, site in sides:
            edge = by_site.get((site["caller"], pair["callee"], site["call_line"]))
            if edge is None or edge.reached != (side == "reached"):
                problems.append(f"{pair['pattern']}: {site} is no {side} call of {pair['callee']}")
    assert not problems, "\n".join(problems)
    assert {p["pattern"] for p in data["pairs"]} == set(indirect.PATTERNS)
    assert full >= 3 and len(data["pairs"]) >= 6


def _called_name(func: ast.expr) -> str | None:
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None


def test_corpus_has_enough_of_each_verdict(labels: dict) -> None:
    counts = {(path.split("/")[2], v.label) for (path, _), v in labels.items()}
    for backend in ("mps", "npu", "cuda"):
        assert (backend, "fallback") in counts and (backend, "clean") in counts
    assert sum(v.label == "host-sync" for v in labels.values()) >= 10
    assert sum(v.label == "fallback" for v in labels.values()) >= 300


def test_pairs_are_enough_and_unique() -> None:
    keys = [(p.path, p.function) for p in PAIRS]
    assert len(keys) == len(set(keys))
    assert len(PAIRS) >= 60
    backends = {p.path.split("/")[2] for p in PAIRS}
    assert backends == {"mps", "npu", "cuda"}


@pytest.mark.parametrize("pair", PAIRS, ids=lambda p: f"{p.path.split('/')[2]}:{p.function}")
def test_pair_before_is_a_labelled_fallback_of_the_wheel(pair: Pair, candle: Path, labels: dict) -> None:
    label = labels.get((pair.path, pair.function))
    assert label is not None and label.label == "fallback", f"{pair.function}: {label}"
    assert before_source(candle, pair).lstrip().startswith(("def ", "async def "))


@pytest.mark.parametrize("pair", [p for p in PAIRS if not p.indirect],
                         ids=lambda p: f"{p.path.split('/')[2]}:{p.function}")
def test_pair_after_only_uses_names_its_module_defines(pair: Pair, candle: Path) -> None:
    assert pair.after is not None
    after = ast.parse(textwrap.dedent(pair.after))
    node = find_def(after, pair.function.split(".")[-1])
    module = ast.parse((candle / pair.path).read_text(encoding="utf-8"))
    known = set(dir(builtins)) | _module_names(module) | _local_names(node)
    unknown = sorted({n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)} - known)
    assert not unknown, f"{pair.function} after uses undefined names {unknown}"


def test_afters_only_reach_device_code(candle: Path, labels: dict, units: dict) -> None:
    """Once all pairs apply, no after (and no indirect pair) reaches a remaining fallback."""
    fixed = {_key(p.path, p.function) for p in PAIRS if not p.indirect}
    roots = {_key(*k) for k, v in labels.items() if v.label == "fallback" and not v.why.startswith("indirect:")}
    remaining = roots - fixed
    problems = []
    for pair in PAIRS:
        key = _key(pair.path, pair.function)
        if pair.indirect:
            starts = units[key].calls
        else:
            starts = _after_calls(pair, units)
        reached = _reach(starts, units, fixed)
        bad = sorted(q for (m, q) in reached & remaining)
        if bad:
            problems.append(f"{pair.path}: {pair.function} still reaches fallback roots {bad}")
    assert not problems, "\n".join(problems)


def _module_names(module: ast.Module) -> set[str]:
    names: set[str] = set()
    for node in module.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                names.update(n.id for n in ast.walk(target) if isinstance(n, ast.Name))
        elif isinstance(node, (ast.If, ast.Try)):
            names.update(_module_names(ast.Module(body=list(ast.iter_child_nodes(node)), type_ignores=[])))
    return names


def _local_names(fn: ast.AST) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(fn):
        if isinstance(node, ast.arg):
            names.add(node.arg)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            names.add(node.name)
    return names


def _after_calls(pair: Pair, units: dict) -> set[tuple[str, str]]:
    """Backend functions the after calls: module functions by name, ``from .x import f``."""
    module = pair.path[:-3].replace("/", ".")
    tree = ast.parse(textwrap.dedent(pair.after or ""))
    imported = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level:
            base = ".".join(module.split(".")[: -node.level] + ([node.module] if node.module else []))
            for alias in node.names:
                imported[alias.asname or alias.name] = (base, alias.name)
    calls = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            name = node.func.id
            target = imported.get(name, (module, name))
            if target in units:
                calls.add(target)
    return calls


def _reach(starts: set, units: dict, fixed: set) -> set:
    """Functions reachable from ``starts`` in the wheel's call graph; fixed ones are checked by
    their own after, so the walk does not enter them."""
    seen: set = set()
    pending = [s for s in starts]
    while pending:
        key = pending.pop()
        if key in seen:
            continue
        seen.add(key)
        if key in fixed:
            continue
        pending.extend(units[key].calls if key in units else ())
    return seen
