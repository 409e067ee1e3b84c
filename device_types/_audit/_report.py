"""Findings -> text (``path:line: message [code]`` and a summary line) or JSON for tools."""

from __future__ import annotations

import json

from ._checks import AuditResult

#: Bumped when a JSON key changes meaning or goes away (new keys do not bump it).
JSON_VERSION = 1


def text_report(result: AuditResult) -> str:
    """Findings ordered by file, then line (the docs table is one file among the others)."""
    lines = [f"{f.path}:{f.line}: {f.message} [{f.code}]" for f in result.findings]
    lines.append(summary(result))
    return "\n".join(lines)


def json_report(result: AuditResult) -> str:
    return json.dumps(
        {
            "version": JSON_VERSION,
            "root": result.root,
            "docs": result.docs,
            "backends": {device: code.locations for device, code in sorted(result.backends.items())},
            "findings": [
                {"path": f.path, "line": f.line, "code": f.code, "message": f.message}
                for f in result.findings
            ],
            "summary": {
                "findings": len(result.findings),
                "files_with_findings": len({f.path for f in result.findings}),
                "markers": result.markers,
                "backend_files": result.backend_files,
                "rows": result.rows,
            },
            "exit_code": exit_code(result),
        },
        indent=2,
    )


def json_error(message: str) -> str:
    return json.dumps({"version": JSON_VERSION, "error": message, "exit_code": 2}, indent=2)


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
