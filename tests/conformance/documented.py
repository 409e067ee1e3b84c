"""The documented disagreements: the table in docs/limits.md, "Run-time conformance".

Each row names the ops, the parameters the disagreement is about, the devices it was seen
on, what torch does and how it is resolved (a limit of the types or of a stand-in device;
a disagreement where torch is right is fixed in the op-semantics table instead). The
conformance suite explains a disagreement only by such a row, so a new one fails CI until
someone documents it or fixes the table, and a row that stops happening on a device CI
runs fails too (tests/conformance/test_conformance.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

__all__ = ["ANY", "CPU_SCALAR", "LIMITS", "Row", "SECTION", "rows"]

LIMITS = Path(__file__).resolve().parents[2] / "docs" / "limits.md"
SECTION = "## Run-time conformance"
#: An ops or parameter cell that matches everything.
ANY = "any"
#: The parameter cell of the row for torch's CPU-scalar rule: every tensor off the op's
#: device is a 0-dim CPU tensor.
CPU_SCALAR = "0-dim CPU tensor"
_CODE = re.compile(r"`([^`]+)`")


@dataclass(frozen=True)
class Row:
    id: str
    ops: frozenset[str] | None  # None: any op
    parameters: frozenset[str] | None  # None: any parameter; {CPU_SCALAR}: the CPU-scalar rule
    seen_on: frozenset[str]
    line: int

    def matches(self, op: str, device: str, parameters: str, cpu_scalars_only: bool) -> bool:
        if device not in self.seen_on or (self.ops is not None and op not in self.ops):
            return False
        if self.parameters is None:
            return True
        if self.parameters == {CPU_SCALAR}:
            return cpu_scalars_only
        return bool(parameters) and set(parameters.split(",")) <= self.parameters


def _cell_names(cell: str) -> frozenset[str] | None:
    if cell.strip().lower() == ANY:
        return None
    if cell.strip() == CPU_SCALAR:
        return frozenset({CPU_SCALAR})
    return frozenset(_CODE.findall(cell))


def rows(path: Path = LIMITS) -> list[Row]:
    """The rows of the section's table (columns: id, ops, parameters, seen on, ...)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    try:
        start = lines.index(SECTION)
    except ValueError:
        raise ValueError(f"{path} has no section {SECTION!r}") from None
    found: list[Row] = []
    for number, line in enumerate(lines[start + 1 :], start + 2):
        if line.startswith("## "):
            break
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if not line.startswith("|") or len(cells) < 4 or set(cells[0]) <= {"-", " "} or cells[0] == "id":
            continue
        seen = frozenset(d.strip() for d in cells[3].split(","))
        found.append(Row(cells[0].strip("`"), _cell_names(cells[1]), _cell_names(cells[2]), seen, number))
    return found
