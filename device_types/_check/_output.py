"""Findings -> text (``path:line: message [code]``), JSON, or SARIF 2.1.0 for code scanning."""

from __future__ import annotations

import json
from collections.abc import Sequence

from .. import _codes
from ._findings import Finding
from ._project import SourceProblem

__all__ = ["JSON_VERSION", "text_report", "json_report", "sarif_report"]

#: Bumped when a JSON key changes meaning or goes away (new keys do not bump it).
JSON_VERSION = 1
TOOL_URI = "https://github.com/device-types/device-types"


def text_report(findings: Sequence[Finding], problems: Sequence[SourceProblem], summary: str) -> str:
    lines = [f"{f.path}:{f.line}: {f.message} [{f.code}]" for f in findings]
    lines += [f"{p.path}:{p.line}: {p.message} [{_codes.UNANALYSED.name}]" for p in problems]
    lines.append(summary)
    return "\n".join(lines)


def finding_json(f: Finding) -> dict[str, object]:
    return {"path": f.path, "line": f.line, "column": f.column + 1, "code": f.code, "message": f.message,
            "function": f.function, "backend": f.backend, "chain": list(f.chain), "anchor": f.anchor,
            "condition": f.condition or None,
            "hops": [{"path": h.path, "line": h.line, "column": h.column + 1, "function": h.function, "what": h.what}
                     for h in f.hops]}


def json_report(findings: Sequence[Finding], problems: Sequence[SourceProblem], summary: dict[str, object],
                extra: dict[str, object] | None = None) -> str:
    return json.dumps({
        "version": JSON_VERSION,
        "findings": [finding_json(f) for f in findings],
        "problems": [{"path": p.path, "line": p.line, "message": p.message, "code": _codes.UNANALYSED.name}
                     for p in problems],
        "summary": summary,
        **(extra or {}),
    }, indent=2)


def sarif_report(findings: Sequence[Finding], problems: Sequence[SourceProblem], version: str) -> str:
    used = sorted({f.code for f in findings} | ({_codes.UNANALYSED.name} if problems else set()))
    rules = [{
        "id": code,
        "name": code,
        "shortDescription": {"text": _codes.BY_NAME[code].description},
        "helpUri": f"{TOOL_URI}/blob/main/docs/errors.md#{code}",
        "defaultConfiguration": {"level": "error" if code != _codes.HOST_SYNC.name else "warning"},
    } for code in used]
    results = [_with_flow(_result(f.code, f.message, f.path, f.line, f.column + 1, used, f.chain), f)
               for f in findings]
    results += [_result(_codes.UNANALYSED.name, p.message, p.path, max(p.line, 1), 1, used, ()) for p in problems]
    return json.dumps({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "device-types", "version": version, "informationUri": TOOL_URI,
                                "rules": rules}},
            "results": results,
        }],
    }, indent=2)


def _result(code: str, message: str, path: str, line: int, column: int, used: list[str],
            chain: Sequence[str]) -> dict[str, object]:
    result: dict[str, object] = {
        "ruleId": code,
        "ruleIndex": used.index(code),
        "level": "error" if code != _codes.HOST_SYNC.name else "warning",
        "message": {"text": message},
        "locations": [{"physicalLocation": {
            "artifactLocation": {"uri": path.replace("\\", "/"), "uriBaseId": "%SRCROOT%"},
            "region": {"startLine": line, "startColumn": column},
        }}],
    }
    if chain:
        result["partialFingerprints"] = {"deviceTypesChain/v1": " -> ".join(chain)}
    return result


def _location(path: str, line: int, column: int, text: str) -> dict[str, object]:
    return {"physicalLocation": {"artifactLocation": {"uri": path.replace("\\", "/"), "uriBaseId": "%SRCROOT%"},
                                 "region": {"startLine": max(line, 1), "startColumn": column + 1}},
            "message": {"text": text}}


def _with_flow(result: dict[str, object], finding: Finding) -> dict[str, object]:
    """A finding with more than one step: a code flow (one thread flow, a location per hop) and
    the same steps as related locations, so code-scanning UIs and IDEs can walk the path."""
    if len(finding.hops) < 2:
        return result
    steps = [_location(h.path, h.line, h.column, f"{h.function.rpartition('.')[2]}: {h.what}") for h in finding.hops]
    result["codeFlows"] = [{"threadFlows": [{"locations": [{"location": step} for step in steps]}]}]
    result["relatedLocations"] = [{"id": i, **step} for i, step in enumerate(steps)]
    return result
