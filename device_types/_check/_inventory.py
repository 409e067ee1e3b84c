"""The fallback inventory: per backend and op, what falls back, against the known-issues table.

Rule 4 of the policy wants a row in ``docs/known-kernel-issues.md`` for every known kernel
issue; a fallback (or the composite that replaced one) without a row breaks it. The op of a
backend function is its name without leading/trailing underscores and an ``_op``/``_impl``
suffix (``avg_pool3d_op`` -> ``avg_pool3d``). Rows are read with the audit's table reader.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field

from .._config import BACKEND_DEVICES, Config
from .._finding import Finding
from . import CheckResult
from . import _codes as codes

__all__ = ["inventory", "op_of"]

_SUFFIXES = ("_op", "_impl", "_kernel", "_fallback", "_composite", "_create")


def op_of(function: str) -> str:
    name = function.split(".<locals>.")[0].rpartition(".")[2].strip("_")
    for suffix in _SUFFIXES:
        if name.endswith(suffix) and len(name) > len(suffix):
            name = name[: -len(suffix)]
    return name.strip("_")


@dataclass
class _Entry:
    functions: list[str] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    row: int | None = None


def known_rows(config: Config) -> tuple[str, dict[tuple[str | None, str], int], str | None]:
    """(document shown, (backend, op) -> row line, problem), read as ``device-types audit``
    reads the table (sections, column synonyms, several ops per cell)."""
    from .._audit._findings import AuditError
    from .._audit._rows import TableCheck, read_docs
    from .._audit._table import parse_tables

    path = os.path.join(config.root, config.known_issues)
    shown = os.path.relpath(path)
    try:
        text = read_docs(path, shown)
    except AuditError as exc:
        return shown, {}, str(exc)
    if text is None:
        return shown, {}, f"{shown} does not exist"
    allowed = sorted(set(BACKEND_DEVICES) | set(config.backends.values()))
    table = TableCheck(shown, allowed, config, strict=False)
    table.run(parse_tables(text))
    rows: dict[tuple[str | None, str], int] = {}
    for row in table.rows:
        for op in row.ops:
            rows.setdefault((row.backend or None, op), row.line)
    return shown, rows, None


def inventory(result: CheckResult, findings: list[Finding], config: Config, form: str) -> tuple[str, int]:
    """(the report, number of fallback ops without a row)."""
    shown, rows, problem = known_rows(config)
    entries: dict[tuple[str, str], _Entry] = {}
    for finding in findings:
        if finding.code == codes.HOST_SYNC:
            continue
        entry = entries.setdefault((finding.backend, op_of(finding.function)), _Entry())
        if finding.function not in entry.functions:
            entry.functions.append(finding.function)
        entry.findings.append(finding)
    for (backend, op), entry in entries.items():
        entry.row = rows.get((backend, op), rows.get((None, op)))
    missing = sum(1 for e in entries.values() if e.row is None)
    if form == "json":
        return json.dumps({
            "document": shown,
            "document_problem": problem,
            "backends": {
                backend: {op: {"functions": e.functions, "findings": len(e.findings),
                               "codes": sorted({f.code for f in e.findings}),
                               "first": f"{e.findings[0].path}:{e.findings[0].line}", "row": e.row}
                          for (b, op), e in sorted(entries.items()) if b == backend}
                for backend in sorted({b for b, _ in entries})
            },
            "ops": len(entries),
            "ops_without_row": missing,
        }, indent=2), missing
    lines = ["# CPU fallback inventory", "",
             f"Found by `device-types check`; rows from `{shown}`" + (f" ({problem})" if problem else "") + ".", ""]
    for backend in sorted({b for b, _ in entries}):
        lines += [f"## {backend}", "", "| op | functions | findings | first finding | known-issues row |",
                  "|---|---|---|---|---|"]
        for (b, op), e in sorted(entries.items()):
            if b != backend:
                continue
            row = f"line {e.row}" if e.row is not None else "**missing** (Rule 4)"
            first = e.findings[0]
            lines.append(f"| `{op}` | {', '.join(f'`{f}`' for f in e.functions)} | {len(e.findings)} | "
                         f"{first.path}:{first.line} | {row} |")
        lines.append("")
    lines.append(f"{len(entries)} fallback op{'s' if len(entries) != 1 else ''} in "
                 f"{len({b for b, _ in entries})} backend(s); {missing} without a row in {shown}")
    return "\n".join(lines), missing
