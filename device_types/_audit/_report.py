"""An audit result -> the shared reporter's ``Report`` (``device_types._report``): the
summary line, the JSON summary and keys, the exit status."""

from __future__ import annotations

from .._report import Report
from ._checks import AuditResult


def report(result: AuditResult) -> Report:
    """Findings ordered by file, then line (the docs table is one file among the others)."""
    return Report(
        "audit", result.findings, summary(result),
        {
            "findings": len(result.findings),
            "files_with_findings": len({f.path for f in result.findings}),
            "markers": result.markers,
            "backend_files": result.backend_files,
            "rows": result.rows,
        },
        exit_code(result),
        extra={"root": result.root, "docs": result.docs,
               "backends": {device: code.locations for device, code in sorted(result.backends.items())}},
    )


def exit_code(result: AuditResult) -> int:
    return 1 if result.findings else 0


def summary(result: AuditResult) -> str:
    backends = ", ".join(sorted(result.backends)) or "no backend directories found"
    checked = (
        f"{_count(result.markers, 'marker')} in {_count(result.backend_files, 'backend file')} "
        f"({backends}) against {_count(result.rows, 'row')} of {result.docs}"
    )
    if not result.findings:
        return f"audit clean: {checked}"
    files = len({f.path for f in result.findings})
    return f"audit failed: {_count(len(result.findings), 'finding')} in {_count(files, 'file')}; checked {checked}"


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"
