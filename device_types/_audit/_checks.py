"""The audit: the known-issues table(s) and the backend markers must describe the same kernels.

Data flow: sources (backend code, the document) -> rows and table findings (``_rows``) ->
marker findings and matching (``_matching``) -> one sorted list of findings.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from .. import _codes as codes
from .._config import BACKEND_DEVICES, Config
from ._findings import Finding, finding, titles
from ._matching import marker_findings, match_markers
from ._rows import IssueRow, TableCheck, read_docs
from ._sections import Section
from ._sources import BackendCode, locate_backends, relative, scan_backends
from ._table import FIELD_TITLES, Table, parse_tables


@dataclass
class AuditResult:
    root: str
    docs: str  # the known-issues document, relative to the root
    findings: list[Finding]
    backends: dict[str, BackendCode]
    rows: int = 0
    #: What ``--fix`` needs: the parsed tables with their sections, and the document's text.
    tables: list[tuple[Table, Section]] = field(default_factory=list)
    text: str | None = None

    @property
    def markers(self) -> int:
        return sum(len(code.markers) for code in self.backends.values())

    @property
    def backend_files(self) -> int:
        return sum(code.files for code in self.backends.values())


def run_audit(root: str, config: Config, strict: bool | None = None) -> AuditResult:
    """Every finding for the project at ``root``; raises AuditError when it cannot run.

    ``strict`` overrides the configuration's ``strict`` (the policy's exact schema and wording).
    """
    strict = config.strict if strict is None else strict
    docs_path = os.path.join(root, config.known_issues)
    docs = relative(root, docs_path)
    text = read_docs(docs_path, docs)
    backends = scan_backends(root, locate_backends(root, config))
    allowed = sorted(set(BACKEND_DEVICES) | set(config.backends.values()) | set(config.platforms.values()))

    findings: list[Finding] = []
    rows: list[IssueRow] = []
    rows_usable = True
    tables: list[tuple[Table, Section]] = []
    if text is None:
        findings.append(finding(docs, 1, codes.DOCS_MISSING, (
            f"{docs} does not exist; create it with a markdown table whose columns are "
            f"{titles(FIELD_TITLES)} (one row per known kernel issue)"
        )))
    else:
        table_check = TableCheck(docs, allowed, config, strict)
        table_check.run(parse_tables(text))
        findings += table_check.findings
        rows, rows_usable, tables = table_check.rows, table_check.usable, table_check.tables

    for code in backends.values():
        findings += [
            finding(path, line, codes.UNREADABLE_SOURCE, f"{reason}; markers in this file were not checked")
            for path, line, reason in code.unreadable
        ]
        for found in code.markers:
            findings += marker_findings(found.path, found.marker, strict)
    if rows_usable:
        findings += match_markers(docs, rows, backends, config)
    return AuditResult(root, docs, sorted(set(findings)), backends, len(rows), tables, text)


