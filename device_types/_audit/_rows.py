"""The known-issues document -> rows to match, and what is wrong with its tables.

The default mode asks for what the policy's table is for (the op, the error, the composite
workaround, the platform version, a backend); a table that has them under other names is
fine, with its backend from a heading (``_sections``) and a missing Status read as open.
Strict mode also asks for the policy's six column titles and its status words.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import Final

from .. import _codes as codes
from .._config import Config
from ._cells import error_codes, is_empty, kernel_names, plain, read_op_cell
from ._findings import OPEN, RESOLVED, AuditError, Finding, finding, titles
from ._sections import BACKEND_SYNONYMS, Section, kernel_vendor, table_section
from ._table import FIELD_TITLES, Row, Table

#: The fields a table must carry in the default mode (Backend may come from a heading, a
#: missing Status means open).
SUBSTANTIVE: Final = ("op", "error", "workaround", "platform")
#: Fields that two columns cannot both hold without contradicting each other (which one
#: is the backend?); two Error or two Platform columns only say more.
_CONFLICTING: Final = ("op", "backend", "status")
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


class TableCheck:
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
            self._add(self.without_backend[0].line, codes.TABLE_NO_BACKEND, _no_backend(self.without_backend))

    def _add(self, line: int, code: codes.Code, message: str) -> None:
        self.findings.append(finding(self.docs, line, code, message))

    def _no_table(self, tables: list[Table]) -> None:
        message = f"no known-issues table; add a markdown table with the columns {titles(FIELD_TITLES)}"
        if tables:
            first = tables[0]
            headers = ", ".join(f"'{h}'" for h in first.headers)
            message += f" (the table at line {first.line} has the columns {headers}; rename them)"
        self._add(tables[0].line if tables else 1, codes.TABLE_MISSING, message)

    def _columns(self, table: Table, section: Section) -> None:
        missing_substance = any(f not in table.columns for f in SUBSTANTIVE)
        for found, header in table.duplicate_columns:
            if found not in _CONFLICTING and not (self.strict or missing_substance):
                continue  # "Error" beside "Error code": one describes, the other adds to it
            first = table.headers[table.columns[found]]
            self._add(table.line, codes.TABLE_DUPLICATE_COLUMN, (
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
                self._add(table.line, codes.TABLE_HEADER_NAME, (
                    f"{'column' if len(renames) == 1 else 'columns'} {titles([old for old, _ in renames])} "
                    f"{'is' if len(renames) == 1 else 'are'} {titles([new for _, new in renames])} in the "
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
            advice = f"rename it to whichever of {titles(missing, 'or')} it holds"
        if substantive:
            kernels = {table.headers[i] for i in table.kernel_columns}
            for header in table.unknown:
                if header not in kernels or "op" in missing:
                    self._add(table.line, codes.TABLE_UNKNOWN_COLUMN, f"column '{header}' not recognised; {advice}")
        for found in missing:
            self._add(table.line, codes.TABLE_MISSING_COLUMN, (
                f"table has no '{FIELD_TITLES[found]}' column; add it ({_FIELD_HINTS[found]})"
                + (_fixable(found, section) if self.strict else "")
            ))

    def _row(self, table: Table, section: Section, row: Row) -> None:
        width = len(table.headers)
        if row.width != width:
            fix = "add the missing cells" if row.width < width else "remove the extra cells"
            self._add(row.line, codes.TABLE_RAGGED_ROW, (
                f"row has {row.width} cells but the header has {width}; {fix} "
                "(write a '|' inside a cell as '\\|')"
            ))
        header = {f: table.headers[i] for f, i in table.columns.items()}
        ops = self._ops(row.line, row.cells.get("op"), header.get("op"))
        label = f"row for {' / '.join(ops)}" if ops else "row"
        for found, cell in row.cells.items():
            if is_empty(cell):
                self._add(row.line, codes.TABLE_EMPTY_CELL, (
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
                self._add(row.line, codes.TABLE_DUPLICATE_ROW, (
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
            self._add(line, codes.TABLE_BAD_OP, (
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
        bare = re.sub(r"\s*\([^)]*\)", "", value).strip()  # "npu (910B only)"
        if bare in self.allowed:
            return bare
        if re.search(r"[,/&+]|\band\b", value):
            hint = "; one backend per row: split it into one row per backend"
        elif value in BACKEND_SYNONYMS:
            hint = f"; write '{BACKEND_SYNONYMS[value]}'"
        else:
            hint = ""
        self._add(line, codes.TABLE_BAD_BACKEND,
                  f"'{header}' is '{cell}', not one of {titles(self.allowed, 'or', quote=False)}{hint}")
        return None

    def _status(self, line: int, cell: str | None, header: str | None) -> str | None:
        if cell is None:
            return None
        # A leading mark ("✅ resolved", "🔴 Open") says the same as the word after it.
        value = re.sub(r"^[^\w(]+", "", plain(cell).lower())
        if is_empty(value):
            return None
        for status, wording in (("open", OPEN), ("resolved", RESOLVED)):
            if re.match(rf"{status}(?![a-z0-9])", value):
                if self.strict and plain(cell) != wording:
                    self._add(line, codes.TABLE_STATUS_WORDING, (
                        f"'{header}' is '{cell}'; the policy's wording is '{wording}' (device-types audit --fix writes it)"
                    ))
                return status
        self._add(line, codes.TABLE_BAD_STATUS, (
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
    names = {t.headings[-1].text: kernel_vendor(t) for t in headed} or {"910B": "npu"}
    example = ", ".join(f'"{name}" = "{device or "npu"}"' for name, device in names.items())
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


def read_docs(path: str, shown: str) -> str | None:
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


