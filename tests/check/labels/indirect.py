"""The indirect-edge labels (``candle-0.1.0a1-indirect.json``): one judged call site per entry.

Each edge is a call of a backend function that has a host step, judged by reading the callee
with what the caller passes (literals, keyword defaults, the guards and early returns that
dominate the call). ``reached`` says whether the callee's host path is taken from that call;
``root`` is the host step it reaches (``path:line``), ``also_roots`` other lines a finding
may name for the same step (or for another reached host path), ``condition`` when it is
reached. Used by the labels-consistency tests and by ``benchmarks/indirect_eval.py``.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from pathlib import Path

INDIRECT = Path(__file__).parent / "candle-0.1.0a1-indirect.json"

# The six patterns of issue 14, spelled as the ``pattern`` field of a pair spells them.
PATTERNS = (
    "constant argument picks the callee's branch",
    "caller's guard rules out the callee's host branch",
    "early-return device guard",
    "metadata is not host data",
    "staging one user scalar is not a fallback",
    "chip- and dtype-specific paths still count",
)


@dataclass(frozen=True)
class Edge:
    path: str
    caller: str
    callee: str
    call_line: int
    reached: bool
    root: str | None
    condition: str | None
    why: str
    also_roots: tuple[str, ...] = ()

    @property
    def roots(self) -> tuple[str, ...]:
        """Every ``path:line`` a finding may name as this edge's root (none if unreached)."""
        return ((self.root,) + self.also_roots) if self.root else ()


def load(path: Path = INDIRECT) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def edges(data: dict | None = None) -> list[Edge]:
    data = load() if data is None else data
    return [Edge(e["path"], e["caller"], e["callee"], e["call_line"], e["reached"], e["root"],
                 e["condition"], e["why"], tuple(e.get("also_roots", ()))) for e in data["edges"]]


def module_of(path: str) -> str:
    return path[:-3].replace("/", ".").removesuffix(".__init__")


def unreached_calls(all_edges: list[Edge]) -> set[tuple[tuple[str, str], str]]:
    """(caller key, callee qualname) whose every judged call site is ``reached: false``."""
    verdicts: dict[tuple[tuple[str, str], str], set[bool]] = {}
    for edge in all_edges:
        verdicts.setdefault(((module_of(edge.path), edge.caller), edge.callee), set()).add(edge.reached)
    return {key for key, seen in verdicts.items() if seen == {False}}


def without_unreached_calls(units: dict, all_edges: list[Edge]) -> dict:
    """``units`` (from ``selection.collect``) with the calls judged never to reach the host removed."""
    dropped = unreached_calls(all_edges)
    out = {}
    for key, unit in units.items():
        calls = {c for c in unit.calls if (key, c[1]) not in dropped}
        out[key] = dataclasses.replace(unit, calls=calls) if calls != unit.calls else unit
    return out
