"""The one reporter of ``device-types check`` and ``device-types audit``: findings -> text
(``path:line: message [code]`` and a summary line), JSON (one schema, :data:`JSON_VERSION`),
SARIF 2.1.0 for code scanning, or GitHub workflow annotations.

The rule metadata of SARIF comes from the code registry (``device_types._codes``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from . import _codes, _links
from ._finding import Finding, Hop

__all__ = ["FORMATS", "JSON_VERSION", "Report", "render", "json_error"]

FORMATS = ("text", "json", "sarif", "github")
#: Bumped when a JSON key changes meaning or goes away (new keys do not bump it).
JSON_VERSION = 1
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


@dataclass
class Report:
    """What one run of a front end says: its findings, the summary, the exit status."""

    #: ``check`` or ``audit``.
    tool: str
    findings: Sequence[Finding]
    summary_line: str
    summary: dict[str, object]
    exit_code: int
    #: Files that could not be analysed (check: ``device-unanalysed``), listed after the findings.
    problems: Sequence[Finding] = ()
    #: Front-end keys of the JSON object (audit: root, docs, backends; check: baseline entries fixed).
    extra: dict[str, object] = field(default_factory=dict)
    #: Text lines after the summary (check: the baseline entries that are fixed).
    trailer: Sequence[str] = ()
    version: str = ""
    #: The configured base URL of the docs (``[tool.device_types] docs_url``); None: the
    #: installed package's copy (``device_types._links``).
    docs_url: str | None = None


def render(report: Report, fmt: str) -> str:
    if fmt == "json":
        return _json(report)
    if fmt == "sarif":
        return _sarif(report)
    if fmt == "github":
        return _github(report)
    return _text(report)


def json_error(tool: str, message: str) -> str:
    import json  # here and below, not at the top: the text report (every re-check) never needs it

    return json.dumps({"version": JSON_VERSION, "tool": tool, "error": message, "exit_code": 2}, indent=2)


# --- text -------------------------------------------------------------------------------------------

def text_line(f: Finding) -> str:
    return f"{f.path}:{f.line}: {f.message} [{f.code}]"


def _text(report: Report) -> str:
    lines = [text_line(f) for f in (*report.findings, *report.problems)]
    return "\n".join([*lines, report.summary_line, *report.trailer])


# --- JSON -------------------------------------------------------------------------------------------

def _column(column: int | None) -> int | None:
    return None if column is None else column + 1


def finding_json(f: Finding) -> dict[str, object]:
    """Columns are 1-based here, as in SARIF and editors."""
    return {"path": f.path, "line": f.line, "column": _column(f.column), "code": f.code, "message": f.message,
            "function": f.function, "backend": f.backend, "chain": list(f.chain), "anchor": f.anchor,
            "hops": [_hop_json(h) for h in f.hops], "condition": f.condition or None}


def _hop_json(h: Hop) -> dict[str, object]:
    return {"path": h.path, "line": h.line, "column": h.column + 1, "function": h.function, "what": h.what}


def _json(report: Report) -> str:
    import json

    return json.dumps({
        "version": JSON_VERSION,
        "tool": report.tool,
        **report.extra,
        "findings": [finding_json(f) for f in report.findings],
        "problems": [finding_json(f) for f in report.problems],
        "summary": report.summary,
        "exit_code": report.exit_code,
    }, indent=2)


# --- SARIF 2.1.0 ------------------------------------------------------------------------------------

def _level(code: str) -> str:
    entry = _codes.BY_NAME.get(code)
    return entry.severity if entry is not None else "error"


def _rule(code: str, docs_url: str | None) -> dict[str, object]:
    entry = _codes.BY_NAME[code]
    return {
        "id": code,
        "name": "".join(part.capitalize() for part in code.split("-")),
        "shortDescription": {"text": entry.summary},
        "fullDescription": {"text": f"{entry.summary}. Reported by {', '.join(entry.front_ends)}."},
        "help": {"text": _codes.explain(entry, docs_url)},
        "helpUri": _links.code_url(code, docs_url),
        "defaultConfiguration": {"level": entry.severity, "enabled": entry.default_enabled},
        "properties": {"tags": list(entry.front_ends)},
    }


def _location(path: str, line: int, column: int | None, message: str | None = None) -> dict[str, object]:
    region: dict[str, object] = {"startLine": max(line, 1)}
    if column is not None:
        region["startColumn"] = column + 1
    location: dict[str, object] = {"physicalLocation": {
        "artifactLocation": {"uri": path.replace("\\", "/"), "uriBaseId": "%SRCROOT%"},
        "region": region,
    }}
    if message is not None:
        location["message"] = {"text": message}
    return location


def _sarif_result(f: Finding, used: list[str]) -> dict[str, object]:
    result: dict[str, object] = {
        "ruleId": f.code,
        "ruleIndex": used.index(f.code),
        "level": _level(f.code),
        "message": {"text": f.message},
        "locations": [_location(f.path, f.line, f.column)],
    }
    if f.chain:
        result["partialFingerprints"] = {"deviceTypesChain/v1": " -> ".join(f.chain)}
    if len(f.hops) > 1:  # a path through other functions: a flow to walk (one place has none)
        steps = [_location(h.path, h.line, h.column, f"{h.function.rpartition('.')[2]}: {h.what}")
                 for h in f.hops]
        result["codeFlows"] = [{"threadFlows": [{"locations": [{"location": step} for step in steps]}]}]
        result["relatedLocations"] = [{"id": i, **step} for i, step in enumerate(steps)]
    if f.condition:
        result["properties"] = {"condition": f.condition}
    return result


def _sarif(report: Report) -> str:
    shown = [*report.findings, *report.problems]
    used = sorted({f.code for f in shown})
    driver: dict[str, object] = {"name": "device-types",
                                 "informationUri": _links.page_url(_links.TOOL_PAGE, configured=report.docs_url),
                                 "rules": [_rule(code, report.docs_url) for code in used]}
    if report.version:
        driver["version"] = report.version
    import json

    return json.dumps({
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": driver},
            "automationDetails": {"id": f"device-types/{report.tool}/"},
            "results": [_sarif_result(f, used) for f in shown],
        }],
    }, indent=2)


# --- GitHub workflow annotations -------------------------------------------------------------------

def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def github_line(f: Finding) -> str:
    command = "warning" if _level(f.code) == "warning" else "error"
    props = [f"file={_escape_property(f.path)}", f"line={max(f.line, 1)}"]
    if f.column is not None:
        props.append(f"col={f.column + 1}")
    props.append(f"title={_escape_property(f.code)}")
    return f"::{command} {','.join(props)}::{_escape_data(f.message)}"


def _github(report: Report) -> str:
    lines = [github_line(f) for f in (*report.findings, *report.problems)]
    return "\n".join([*lines, report.summary_line, *report.trailer])
