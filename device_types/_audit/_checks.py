"""The rules: the known-issues table(s) and the backend markers must describe the same kernels.

Two modes: the default reports what is substantively missing (a table that carries the
policy's information under other names, with its backend from a heading, is fine); strict
also demands the policy's exact schema and wording. Matching a marker to its rows
(documented in docs/audit.md): the backend is the marker's backend directory; the rows are
found, first rule that finds any, by an ``aten.`` op in the issue, a kernel name a row's
kernel column lists, a backticked op, the op a vendor kernel name spells (``aclnnStd`` ->
``std``), the guarded or enclosing ``def`` (``_baddbmm_native`` -> ``baddbmm``, the longest
op wins), a row's op written in the issue, and the error code of exactly one op.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Final

from .._config import Config
from ._cells import camel_words, error_codes, is_empty, kernel_names, normalise_op, plain, read_op_cell
from ._findings import AuditError, Finding
from ._markers import Marker
from ._sections import BACKEND_SYNONYMS, Section, platform_named, table_section
from ._sources import DEFAULT_BACKENDS, BackendCode, locate_backends, relative, scan_backends
from ._table import FIELD_TITLES, Row, Table, parse_tables

MARKER_FORM: Final = "# TODO: re-enable native kernel when <platform> fixes <issue>"
OPEN: Final = "open (workaround active)"
RESOLVED: Final = "resolved (native kernel re-enabled)"
#: The fields a table must carry in the default mode (Backend may come from a heading, a
#: missing Status means open).
SUBSTANTIVE: Final = ("op", "error", "workaround", "platform")
#: Above this size the document is not a hand-written table (and is not read whole).
MAX_DOCS_BYTES: Final = 8 * 1024 * 1024

#: What each field holds, for "add the column" / "fill in the cell" messages (rule 4's words).
_FIELD_HINTS: Final = {
    "op": "the op, e.g. aten.baddbmm",
    "backend": "mps, cuda or npu",
    "error": "what happens when the native kernel runs",
    "workaround": "which smaller on-device ops replace it",
    "platform": "the platform version, e.g. macOS 15.3 / Metal 3 or CANN 8.0",
    "status": f"'{OPEN}' or '{RESOLVED}'",
}
_IDENTIFIER: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_ATEN_OP: Final = re.compile(r"(?:\btorch\.ops\.)?\baten(?:\.|::)([A-Za-z_][A-Za-z0-9_]*)")
_BACKTICKED: Final = re.compile(r"`([^`]+)`")
#: A vendor kernel name in a marker: a camel-case hump followed by more lower case or
#: digits (aclnnStd, cudnnConvFwd), which "macOS" and "cuBLAS" are not.
_KERNEL_NAME: Final = re.compile(r"^[a-z][a-z0-9]*[A-Z][A-Za-z0-9]*[a-z0-9]")


@dataclass(frozen=True)
class IssueRow:
    line: int
    #: Normalised ops: "aten.baddbmm.default", "`baddbmm`" and "baddbmm" are all "baddbmm";
    #: "`lt` / `gt`" is ("lt", "gt").
    ops: tuple[str, ...]
    backend: str
    status: str | None  # "open", "resolved", or None when the cell is not a valid status
    workaround: str  # the cell as written
    workaround_header: str  # the column header as written
    #: Kernel names from extra columns (``aclnnAvgPool2d``), for matching markers.
    kernels: tuple[str, ...] = ()
    #: Error codes in the Error cell (``161002``).
    errors: tuple[str, ...] = ()
    #: The configured platform the row's section heading names ("910B").
    platform: str | None = None

    @property
    def op(self) -> str:
        return self.ops[0]

    @property
    def label(self) -> str:
        return " / ".join(self.ops)


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
    text = _read_docs(docs_path, docs)
    backends = scan_backends(root, locate_backends(root, config))
    allowed = sorted(set(DEFAULT_BACKENDS) | set(config.backends.values()) | set(config.platforms.values()))

    findings: list[Finding] = []
    rows: list[IssueRow] = []
    rows_usable = True
    tables: list[tuple[Table, Section]] = []
    if text is None:
        findings.append(Finding(docs, 1, "audit-docs-missing", (
            f"{docs} does not exist; create it with a markdown table whose columns are "
            f"{_titles(FIELD_TITLES)} (one row per known kernel issue)"
        )))
    else:
        table_check = _TableCheck(docs, allowed, config, strict)
        table_check.run(parse_tables(text))
        findings += table_check.findings
        rows, rows_usable, tables = table_check.rows, table_check.usable, table_check.tables

    for code in backends.values():
        findings += [
            Finding(path, line, "audit-unreadable-source", f"{reason}; markers in this file were not checked")
            for path, line, reason in code.unreadable
        ]
        for found in code.markers:
            findings += _marker_form(found.path, found.marker, strict)
    if rows_usable:
        findings += _match(docs, rows, backends, config)
    return AuditResult(root, docs, sorted(set(findings)), backends, len(rows), tables, text)


def workaround_functions(cell: str, op: str) -> list[str]:
    """Backticked names in a workaround cell that refer to a function of the backend.

    A name counts when it is undotted and written as a call (```bmm_then_add()```) or
    contains the op (```baddbmm_composite``` for baddbmm); other backticked names
    (```torch.bmm```, ```add```) are prose about torch ops and are not looked up.
    """
    names: list[str] = []
    for token in _BACKTICKED.findall(cell):
        name = token.strip()
        call = name.endswith("()")
        name = name[:-2] if call else name
        if not _IDENTIFIER.match(name) or name in names:
            continue
        if call or (name.lower() != op.lower() and _contains_run(_words(name), _words(op))):
            names.append(name)
    return names


class _TableCheck:
    def __init__(self, docs: str, allowed_backends: list[str], config: Config, strict: bool) -> None:
        self.docs = docs
        self.allowed = allowed_backends
        self.config = config
        self.strict = strict
        self.findings: list[Finding] = []
        self.rows: list[IssueRow] = []
        self.tables: list[tuple[Table, Section]] = []
        #: False when an issue table has no Op column or no backend (column, heading, path
        #: or default): its rows cannot be matched, so marker/row findings would be noise
        #: until the table is fixed.
        self.usable = True
        self._seen: dict[tuple[str, str, str | None], int] = {}
        #: Tables that carry the policy's information but nothing names their backend:
        #: one configuration fixes them all, so they are one finding.
        self.without_backend: list[Table] = []

    def run(self, tables: list[Table]) -> None:
        issue_tables = [t for t in tables if t.is_issue_table]
        if not issue_tables:
            self._no_table(tables)
        for table in issue_tables:
            section = table_section(table, self.docs, self.config, self.allowed)
            self.tables.append((table, section))
            self._columns(table, section)
            if "op" not in table.columns or ("backend" not in table.columns and section.backend is None):
                self.usable = False
            for row in table.rows:
                self._row(table, section, row)
        if self.without_backend:
            self._add(self.without_backend[0].line, "audit-table-no-backend", _no_backend(self.without_backend))

    def _add(self, line: int, code: str, message: str) -> None:
        self.findings.append(Finding(self.docs, line, code, message))

    def _no_table(self, tables: list[Table]) -> None:
        message = f"no known-issues table; add a markdown table with the columns {_titles(FIELD_TITLES)}"
        if tables:
            first = tables[0]
            headers = ", ".join(f"'{h}'" for h in first.headers)
            message += f" (the table at line {first.line} has the columns {headers}; rename them)"
        self._add(tables[0].line if tables else 1, "audit-table-missing", message)

    def _columns(self, table: Table, section: Section) -> None:
        for found, header in table.duplicate_columns:
            first = table.headers[table.columns[found]]
            self._add(table.line, "audit-table-duplicate-column", (
                f"columns '{first}' and '{header}' both read as '{FIELD_TITLES[found]}'; "
                "rename or remove one"
            ))
        if self.strict:
            renames = [
                (table.headers[index], FIELD_TITLES[found])
                for found, index in sorted(table.columns.items(), key=lambda item: item[1])
                if table.headers[index] != FIELD_TITLES[found]
            ]
            if renames:
                self._add(table.line, "audit-table-header-name", (
                    f"{'column' if len(renames) == 1 else 'columns'} {_titles([old for old, _ in renames])} "
                    f"{'is' if len(renames) == 1 else 'are'} {_titles([new for _, new in renames])} in the "
                    "policy's schema; rename "
                    f"{'it' if len(renames) == 1 else 'them'} (device-types audit --fix does)"
                ))
        missing = table.missing
        inferred = section.backend is not None
        substantive = [f for f in missing if f in SUBSTANTIVE]
        if not self.strict and not substantive:
            # The table carries the policy's information: extra columns are welcome, the
            # backend comes from the heading (or path, or default), a missing Status is open.
            if "backend" in missing and not inferred:
                self.without_backend.append(table)
            return
        if inferred:
            missing = tuple(f for f in missing if f != "backend" or self.strict)
        if not missing:
            return
        # With one missing field and one unknown column the rename is certain; otherwise
        # only the author knows which column holds what.
        if len(missing) == 1 and len(table.unknown) == 1:
            advice = f"rename it to '{FIELD_TITLES[missing[0]]}'"
        elif len(missing) == 1:
            advice = f"rename it to '{FIELD_TITLES[missing[0]]}' if that is what it holds"
        else:
            advice = f"rename it to whichever of {_titles(missing, 'or')} it holds"
        if substantive:
            kernels = {table.headers[i] for i in table.kernel_columns}
            for header in table.unknown:
                if header not in kernels or "op" in missing:
                    self._add(table.line, "audit-table-unknown-column", f"column '{header}' not recognised; {advice}")
        for found in missing:
            self._add(table.line, "audit-table-missing-column", (
                f"table has no '{FIELD_TITLES[found]}' column; add it ({_FIELD_HINTS[found]})"
                + (_fixable(found, section) if self.strict else "")
            ))

    def _row(self, table: Table, section: Section, row: Row) -> None:
        width = len(table.headers)
        if row.width != width:
            fix = "add the missing cells" if row.width < width else "remove the extra cells"
            self._add(row.line, "audit-table-ragged-row", (
                f"row has {row.width} cells but the header has {width}; {fix} "
                "(write a '|' inside a cell as '\\|')"
            ))
        header = {f: table.headers[i] for f, i in table.columns.items()}
        ops = self._ops(row.line, row.cells.get("op"), header.get("op"))
        label = f"row for {' / '.join(ops)}" if ops else "row"
        for found, cell in row.cells.items():
            if is_empty(cell):
                self._add(row.line, "audit-table-empty-cell", (
                    f"{label} has an empty '{header[found]}' cell; fill in {_FIELD_HINTS[found]}"
                ))
        if "backend" in table.columns:
            backend = self._backend(row.line, row.cells.get("backend"), header.get("backend"))
        else:
            backend = section.backend
        if "status" in table.columns:
            status = self._status(row.line, row.cells.get("status"), header.get("status"))
        else:
            status = "open"  # no Status column: every row describes a workaround in use
        if not ops or backend is None:
            return
        for op in ops:
            first = self._seen.setdefault((op, backend, section.platform), row.line)
            if first != row.line:
                where = f" under {section.platform}" if section.platform else ""
                self._add(row.line, "audit-table-duplicate-row", (
                    f"{op} on {backend}{where} is already listed at line {first}; keep one row per op and backend"
                ))
                return
        kernels = tuple(
            name
            for index in table.kernel_columns
            if index < len(row.raw)
            for name in kernel_names(row.raw[index], True)
        )
        self.rows.append(IssueRow(
            row.line, ops, backend, status, row.cells.get("workaround", ""),
            header.get("workaround", FIELD_TITLES["workaround"]),
            kernels, error_codes(row.cells.get("error", "")), section.platform,
        ))

    def _ops(self, line: int, cell: str | None, header: str | None) -> tuple[str, ...]:
        if cell is None or is_empty(cell):
            return ()
        read = read_op_cell(cell)
        if read is None:
            self._add(line, "audit-table-bad-op", (
                f"'{header}' is '{cell}', not one op name; write it as aten.baddbmm, baddbmm "
                "or `baddbmm` (one row per op)"
            ))
            return ()
        return read[0]

    def _backend(self, line: int, cell: str | None, header: str | None) -> str | None:
        if cell is None:
            return None
        value = plain(cell).lower()
        if is_empty(value):
            return None
        if value in self.allowed:
            return value
        if re.search(r"[,/&+]|\band\b", value):
            hint = "; one backend per row: split it into one row per backend"
        elif value in BACKEND_SYNONYMS:
            hint = f"; write '{BACKEND_SYNONYMS[value]}'"
        else:
            hint = ""
        self._add(line, "audit-table-bad-backend",
                  f"'{header}' is '{cell}', not one of {_titles(self.allowed, 'or', quote=False)}{hint}")
        return None

    def _status(self, line: int, cell: str | None, header: str | None) -> str | None:
        if cell is None:
            return None
        value = plain(cell).lower()
        if is_empty(value):
            return None
        for status, wording in (("open", OPEN), ("resolved", RESOLVED)):
            if re.match(rf"{status}(?![a-z0-9])", value):
                if self.strict and plain(cell) != wording:
                    self._add(line, "audit-table-status-wording", (
                        f"'{header}' is '{cell}'; the policy's wording is '{wording}' (device-types audit --fix writes it)"
                    ))
                return status
        self._add(line, "audit-table-bad-status", (
            f"'{header}' is '{cell}'; use '{OPEN}' or '{RESOLVED}'"
        ))
        return None


def _no_backend(tables: list[Table]) -> str:
    """One message for every table whose backend nothing names, with the configuration
    that would name it (``platforms`` keyed by the headings they sit under)."""
    headed = [t for t in tables if t.headings]
    if len(tables) == 1:
        what = f"the table under '{_heading(tables[0])}' has" if headed else "the table has"
    else:
        where = ", ".join(f"'{_heading(t)}'" if t.headings else f"line {t.line}" for t in tables)
        what = f"{len(tables)} tables ({where}) have"
    names = dict.fromkeys(t.headings[-1].text for t in headed) or {"910B": None}
    example = ", ".join(f'"{name}" = "npu"' for name in names)
    return (
        f"{what} no 'Backend' column and neither a heading nor the document's path names a backend; "
        f"map the headings in [tool.device_types] platforms (e.g. platforms = {{ {example} }}), "
        "set default_backend, or add a 'Backend' column"
    )


def _heading(table: Table) -> str:
    return f"{'#' * table.headings[-1].level} {table.headings[-1].text}"


def _fixable(found: str, section: Section) -> str:
    if found == "status":
        return f"; a table without it is read as '{OPEN}' (device-types audit --fix adds it)"
    if found == "backend" and section.backend is not None:
        return f"; {section.source} says {section.backend} (device-types audit --fix adds it)"
    return ""


def _marker_form(path: str, marker: Marker, strict: bool) -> list[Finding]:
    findings = []
    if not marker.shaped:
        findings.append(Finding(path, marker.line, "audit-marker-malformed", (
            f"marker does not read '{MARKER_FORM}'; rewrite it in that form, e.g. "
            "'# TODO: re-enable native kernel when macOS 15.4 fixes aten.baddbmm crash'"
        )))
    elif marker.platform is None:
        findings.append(Finding(path, marker.line, "audit-marker-malformed", (
            "marker names no platform; write the platform whose fix re-enables the kernel "
            "after 'when', e.g. 'when macOS 15.4 fixes ...' or 'when CANN 8.1 fixes ...'"
        )))
    elif marker.issue is None:
        findings.append(Finding(path, marker.line, "audit-marker-malformed", (
            "marker names no issue; say after 'fixes' what must be fixed, e.g. "
            "'fixes aten.baddbmm crash on batched inputs'"
        )))
    elif strict and not marker.follows_form:
        findings.append(Finding(path, marker.line, "audit-marker-wording", (
            f"marker does not use the policy's wording '{MARKER_FORM}'; "
            "device-types audit --fix rewrites it, keeping the platform and the issue"
        )))
    if marker.guard is None:
        findings.append(Finding(path, marker.line, "audit-unguarded-marker", (
            "no guard keeps the native kernel here; put the marker on or directly above the "
            "'if'/'try' that switches to the native kernel, inside that branch, above the "
            "preserved native 'def', or on its 'USE_NATIVE_... = False' flag"
        )))
    return findings


def _match(docs: str, rows: list[IssueRow], backends: dict[str, BackendCode], config: Config) -> list[Finding]:
    findings: list[Finding] = []
    by_backend: dict[str, list[IssueRow]] = {}
    for row in rows:
        by_backend.setdefault(row.backend, []).append(row)
    covered: set[int] = set()  # lines of rows that have a marker
    for device, backend_code in backends.items():
        candidates = by_backend.get(device, [])
        for found in backend_code.markers:
            marker = found.marker
            matched, wanted = _rows_for(marker, candidates, config)
            if not matched:
                findings.append(_missing_row(docs, device, found.path, marker, wanted, rows))
            elif all(r.status == "resolved" for r in matched):
                row = matched[0]
                findings.append(Finding(found.path, marker.line, "audit-stale-marker", (
                    f"{docs}:{row.line} says {row.label} on {device} is resolved, but this marker is "
                    f"still here; remove the marker and its guard, or set the row back to '{OPEN}'"
                )))
            else:
                covered.update(r.line for r in matched)
    for row in rows:
        if row.status != "open":
            continue
        code = backends.get(row.backend)
        if code is None:
            where = (
                "no backend is configured for it in [tool.device_types] backends"
                if config.backends
                else f"no */_backends/{row.backend}/ directory under the root"
            )
            findings.append(Finding(docs, row.line, "audit-orphan-row", (
                f"{row.label} on {row.backend} is open, but {where}; add the backend or remove the row"
            )))
            continue
        if row.line not in covered:
            naming = f"aten.{row.op}" if not row.kernels else f"aten.{row.op} or {row.kernels[0]}"
            findings.append(Finding(docs, row.line, "audit-orphan-row", (
                f"{row.label} on {row.backend} is open, but no marker in the {row.backend} backend "
                f"matches it; keep the native kernel behind a guard marked '{MARKER_FORM}' "
                f"(naming {naming} in the issue), or set Status to '{RESOLVED}'"
            )))
        for name in dict.fromkeys(n for op in row.ops for n in workaround_functions(row.workaround, op)):
            if name not in code.defined:
                findings.append(Finding(docs, row.line, "audit-missing-workaround", (
                    f"'{row.workaround_header}' names `{name}`, but no function {name} is defined "
                    f"in the {row.backend} backend ({', '.join(code.locations)}); fix the name or "
                    "add the composite"
                )))
    return findings


def _rows_for(marker: Marker, rows: list[IssueRow], config: Config) -> tuple[list[IssueRow], str | None]:
    """The rows a marker belongs to, else a description of what it was looked up as.

    A marker may cover several rows: one kernel listed per chip (``avg_pool2d`` under 310B
    and 910B) is one preserved native kernel.
    """
    text = marker.text or marker.comment
    issue = marker.issue or ""
    named = list(dict.fromkeys(_ATEN_OP.findall(issue)))
    if named:  # "aten.baddbmm" in the issue decides alone
        for op in named:
            hits = [r for r in rows if op in r.ops]
            if hits:
                return _narrow(hits, marker, text, config), None
        return [], f"aten.{named[0]}"
    # What the marker says about the kernel: not its platform ("macOS" is no kernel name).
    about = " ".join([marker.what or "", issue, text[len(marker.comment):]])
    identifiers = list(dict.fromkeys(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", about)))
    # The kernel it names, as an extra column lists it (aclnnAvgPool2d).
    lowered = {w.lower() for w in identifiers}
    hits = [r for r in rows if any(k.lower() in lowered for k in r.kernels)]
    if hits:
        return _narrow(_by_function(hits, marker), marker, text, config), None
    # Backticked names may be platform symbols (`aclnnBaddbmm`), so they only count on a hit.
    for op in filter(None, map(normalise_op, _BACKTICKED.findall(issue))):
        hits = [r for r in rows if op in r.ops]
        if hits:
            return _narrow(hits, marker, text, config), None
    # A vendor kernel name spells the op (aclnnStd -> std, aclnnAvgPool2d -> avg_pool2d).
    kernels = [w for w in identifiers if _KERNEL_NAME.search(w)]
    for name in kernels:
        hits = [r for r in rows if camel_words(name) in r.ops]
        if hits:
            return _narrow(hits, marker, text, config), None
    for function in marker.functions:
        hits = _rows_for_function(function, rows)
        if hits:
            return _narrow(hits, marker, text, config), None
    for row in sorted(rows, key=lambda r: max(len(o) for o in r.ops), reverse=True):
        for op in row.ops:
            if re.search(rf"(?<!\w){re.escape(op)}(?!\w)", issue):
                return _narrow([r for r in rows if op in r.ops], marker, text, config), None
    if kernels:  # it names a kernel that no row lists: that row is what is missing
        return [], kernels[0]
    # Only the error code is left: it decides when exactly one op has that error.
    codes = set(error_codes(text))
    hits = [r for r in rows if codes & set(r.errors)]
    if hits and len({r.ops for r in hits}) == 1:
        return _narrow(hits, marker, text, config), None
    return [], (f"{marker.functions[0]}()" if marker.functions else None)


def _by_function(rows: list[IssueRow], marker: Marker) -> list[IssueRow]:
    """Of several ops that share a kernel (argsort, sort, topk on aclnnTopk), the one the
    marker's function is for, when that tells."""
    if len({r.ops for r in rows}) == 1:
        return rows
    for function in marker.functions:
        hits = _rows_for_function(function, rows)
        if hits:
            return hits
    return rows


def _narrow(rows: list[IssueRow], marker: Marker, text: str, config: Config) -> list[IssueRow]:
    """Rows first by the chip the marker names ("on 910B"), then by its error code; the
    first row is the one messages cite, every row counts as having its marker."""
    platform = platform_named(text, config)
    codes = set(error_codes(text))
    return sorted(rows, key=lambda r: (r.platform != platform, not (codes & set(r.errors)), r.line))


def _rows_for_function(function: str, rows: list[IssueRow]) -> list[IssueRow]:
    bare = function.lstrip("_")
    exact = [r for r in rows if bare in r.ops]
    if exact:
        return exact
    words = _words(function)
    best: list[IssueRow] = []
    best_length = 0
    for row in rows:
        for op in row.ops:
            if _contains_run(words, _words(op)) and len(op) >= best_length:
                if len(op) > best_length:
                    best, best_length = [], len(op)
                best.append(row)
    return best


def _missing_row(
    docs: str, device: str, path: str, marker: Marker, wanted: str | None, rows: list[IssueRow]
) -> Finding:
    if wanted is None:
        return Finding(path, marker.line, "audit-marker-no-op", (
            "cannot tell which op this marker is for; name it in the issue (e.g. 'fixes "
            "aten.baddbmm crash') or put the marker inside or directly above the op's function"
        ))
    if wanted.startswith("aten."):
        op = wanted[len("aten."):]
        elsewhere = [r for r in rows if op in r.ops]
        hint = f" (line {elsewhere[0].line} lists it for {elsewhere[0].backend})" if elsewhere else ""
        message = (
            f"no row for {wanted} on {device} in {docs}{hint}; add one with Backend '{device}' "
            f"and Status '{OPEN}'"
        )
    elif not wanted.endswith("()"):
        message = (
            f"no {device} row in {docs} matches this marker's kernel {wanted} (by kernel name or its op "
            f"{camel_words(wanted)}); add a row for it with Backend '{device}' and Status '{OPEN}'"
        )
    else:
        message = (
            f"no {device} row in {docs} matches this marker in {wanted}; add a row for the op "
            f"with Backend '{device}' and Status '{OPEN}', or name the op in the marker "
            "('fixes aten.<op> ...')"
        )
    return Finding(path, marker.line, "audit-missing-row", message)


def _read_docs(path: str, shown: str) -> str | None:
    if not os.path.lexists(path):
        return None
    if os.path.isdir(path):
        raise AuditError(f"{shown} is a directory; the known-issues document must be a markdown file")
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_DOCS_BYTES + 1)
    except OSError as exc:
        raise AuditError(f"{shown}: cannot read the file ({exc.strerror or exc})") from None
    if len(data) > MAX_DOCS_BYTES:
        raise AuditError(
            f"{shown} is larger than {MAX_DOCS_BYTES // (1024 * 1024)} MiB; the known-issues document "
            "must be a hand-written markdown file (set known_issues in [tool.device_types] to it)"
        )
    if b"\0" in data:
        line = data.count(b"\n", 0, data.index(b"\0")) + 1
        raise AuditError(f"{shown} is a binary file (a NUL byte on line {line}), not markdown; "
                         "set known_issues in [tool.device_types] to the markdown document")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise AuditError(
            f"{shown} is not valid UTF-8 (byte {data[exc.start]:#04x} on line {line}); save it as UTF-8"
        ) from None


def _words(name: str) -> list[str]:
    return [w for w in name.lower().split("_") if w]


def _contains_run(words: list[str], run: list[str]) -> bool:
    n = len(run)
    return n > 0 and any(words[i : i + n] == run for i in range(len(words) - n + 1))


def _titles(names: Iterable[str], conjunction: str = "and", quote: bool = True) -> str:
    """'Op name', 'Backend' and 'Status' (field keys become their titles)."""
    items = [FIELD_TITLES.get(n, n) for n in names]
    shown = [f"'{i}'" if quote else i for i in items]
    return shown[0] if len(shown) == 1 else f"{', '.join(shown[:-1])} {conjunction} {shown[-1]}"
