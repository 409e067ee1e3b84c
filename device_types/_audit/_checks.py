"""The rules: the known-issues table(s) and the backend markers must describe the same kernels.

Matching a marker to its row (documented in docs/audit.md):

* backend: the backend directory the marker's file is in;
* op: an op named explicitly in the marker's issue text (``aten.baddbmm``, ``aten::baddbmm``
  or a backticked name) decides alone; otherwise the guarded ``def`` (marker directly above
  it) or the enclosing ``def``s, innermost first, where a function matches the row whose op
  is a run of its underscore-separated words (``_baddbmm_native`` -> ``baddbmm``; the
  longest op wins); otherwise a row's op written as a word in the issue text.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final

from .._config import Config
from ._findings import AuditError, Finding
from ._markers import Marker
from ._sources import DEFAULT_BACKENDS, BackendCode, locate_backends, relative, scan_backends
from ._table import FIELD_TITLES, Row, Table, parse_tables

MARKER_FORM: Final = "# TODO: re-enable native kernel when <platform> fixes <issue>"
OPEN: Final = "open (workaround active)"
RESOLVED: Final = "resolved (native kernel re-enabled)"

#: What each field holds, for "add the column" / "fill in the cell" messages (rule 4's words).
_FIELD_HINTS: Final = {
    "op": "the op, e.g. aten.baddbmm",
    "backend": "mps, cuda or npu",
    "error": "what happens when the native kernel runs",
    "workaround": "which smaller on-device ops replace it",
    "platform": "the platform version, e.g. macOS 15.3 / Metal 3 or CANN 8.0",
    "status": f"'{OPEN}' or '{RESOLVED}'",
}
#: Backend names people write instead of the device type.
_BACKEND_SYNONYMS: Final = {
    "metal": "mps", "apple": "mps", "macos": "mps",
    "ascend": "npu", "cann": "npu", "huawei": "npu",
    "nvidia": "cuda", "gpu": "cuda", "rocm": "cuda",
}
_EMPTY_CELLS: Final = frozenset({"", "-", "--", "\u2013", "\u2014"})
_IDENTIFIER: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_ATEN_OP: Final = re.compile(r"(?:\btorch\.ops\.)?\baten(?:\.|::)([A-Za-z_][A-Za-z0-9_]*)")
_BACKTICKED: Final = re.compile(r"`([^`]+)`")
_LINK: Final = re.compile(r"\[([^\]]*)\]\([^)]*\)")


@dataclass(frozen=True)
class IssueRow:
    line: int
    op: str  # normalised: "aten.baddbmm.default", "`baddbmm`" and "baddbmm" are all "baddbmm"
    backend: str
    status: str | None  # "open", "resolved", or None when the cell is not a valid status
    workaround: str  # the cell as written
    workaround_header: str  # the column header as written


@dataclass
class AuditResult:
    root: str
    docs: str  # the known-issues document, relative to the root
    findings: list[Finding]
    backends: dict[str, BackendCode]
    rows: int = 0

    @property
    def markers(self) -> int:
        return sum(len(code.markers) for code in self.backends.values())

    @property
    def backend_files(self) -> int:
        return sum(code.files for code in self.backends.values())


def run_audit(root: str, config: Config) -> AuditResult:
    """Every finding for the project at ``root``; raises AuditError when it cannot run."""
    docs_path = os.path.join(root, config.known_issues)
    docs = relative(root, docs_path)
    text = _read_docs(docs_path, docs)
    backends = scan_backends(root, locate_backends(root, config))
    allowed = sorted(set(DEFAULT_BACKENDS) | set(config.backends.values()))

    findings: list[Finding] = []
    rows: list[IssueRow] = []
    rows_usable = True
    if text is None:
        findings.append(Finding(docs, 1, "audit-docs-missing", (
            f"{docs} does not exist; create it with a markdown table whose columns are "
            f"{_titles(FIELD_TITLES)} (one row per known kernel issue)"
        )))
    else:
        table_check = _TableCheck(docs, allowed)
        table_check.run(parse_tables(text))
        findings += table_check.findings
        rows, rows_usable = table_check.rows, table_check.usable

    for code in backends.values():
        findings += [
            Finding(path, line, "audit-unreadable-source", f"{reason}; markers in this file were not checked")
            for path, line, reason in code.unreadable
        ]
        for found in code.markers:
            findings += _marker_form(found.path, found.marker)
    if rows_usable:
        findings += _match(docs, rows, backends, config)
    return AuditResult(root, docs, sorted(set(findings)), backends, len(rows))


def plain(cell: str) -> str:
    """A cell without markdown presentation: links become their text, emphasis and code
    marks around the value go."""
    return _LINK.sub(r"\1", cell).strip().strip("*").strip().strip("`").strip()


def normalise_op(text: str) -> str | None:
    """The bare op name in a cell or backticked token, or None when it is not one op."""
    name = plain(text)
    if name.endswith("()"):
        name = name[:-2]
    aten = re.fullmatch(r"(?:torch\.ops\.)?aten(?:\.|::)([A-Za-z_]\w*)(?:\.\w+)?", name)
    if aten:
        return aten.group(1)  # the overload (".default", ".Tensor") names no other kernel
    parts = name.split(".")
    return parts[-1] if all(_IDENTIFIER.match(p) for p in parts) else None


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
    def __init__(self, docs: str, allowed_backends: list[str]) -> None:
        self.docs = docs
        self.allowed = allowed_backends
        self.findings: list[Finding] = []
        self.rows: list[IssueRow] = []
        #: False when an issue table lacks the Op or Backend column: its rows cannot be
        #: matched, so marker/row findings would be noise until the table is fixed.
        self.usable = True
        self._seen: dict[tuple[str, str], int] = {}

    def run(self, tables: list[Table]) -> None:
        issue_tables = [t for t in tables if t.is_issue_table]
        if not issue_tables:
            self._no_table(tables)
        for table in issue_tables:
            self._columns(table)
            if "op" not in table.columns or "backend" not in table.columns:
                self.usable = False
            for row in table.rows:
                self._row(table, row)

    def _add(self, line: int, code: str, message: str) -> None:
        self.findings.append(Finding(self.docs, line, code, message))

    def _no_table(self, tables: list[Table]) -> None:
        message = f"no known-issues table; add a markdown table with the columns {_titles(FIELD_TITLES)}"
        if tables:
            first = tables[0]
            headers = ", ".join(f"'{h}'" for h in first.headers)
            message += f" (the table at line {first.line} has the columns {headers}; rename them)"
        self._add(tables[0].line if tables else 1, "audit-table-missing", message)

    def _columns(self, table: Table) -> None:
        for found, header in table.duplicate_columns:
            first = table.headers[table.columns[found]]
            self._add(table.line, "audit-table-duplicate-column", (
                f"columns '{first}' and '{header}' both read as '{FIELD_TITLES[found]}'; "
                "rename or remove one"
            ))
        missing = table.missing
        if not missing:
            return  # extra columns ("Notes", "Tracking issue") are welcome
        # With one missing field and one unknown column the rename is certain; otherwise
        # only the author knows which column holds what.
        if len(missing) == 1 and len(table.unknown) == 1:
            advice = f"rename it to '{FIELD_TITLES[missing[0]]}'"
        elif len(missing) == 1:
            advice = f"rename it to '{FIELD_TITLES[missing[0]]}' if that is what it holds"
        else:
            advice = f"rename it to whichever of {_titles(missing, 'or')} it holds"
        for header in table.unknown:
            self._add(table.line, "audit-table-unknown-column", f"column '{header}' not recognised; {advice}")
        for found in missing:
            self._add(table.line, "audit-table-missing-column", (
                f"table has no '{FIELD_TITLES[found]}' column; add it ({_FIELD_HINTS[found]})"
            ))

    def _row(self, table: Table, row: Row) -> None:
        width = len(table.headers)
        if row.width != width:
            fix = "add the missing cells" if row.width < width else "remove the extra cells"
            self._add(row.line, "audit-table-ragged-row", (
                f"row has {row.width} cells but the header has {width}; {fix} "
                "(write a '|' inside a cell as '\\|')"
            ))
        header = {f: table.headers[i] for f, i in table.columns.items()}
        op = self._op(row.line, row.cells.get("op"), header.get("op"))
        label = f"row for {op}" if op else "row"
        for found, cell in row.cells.items():
            if plain(cell) in _EMPTY_CELLS:
                self._add(row.line, "audit-table-empty-cell", (
                    f"{label} has an empty '{header[found]}' cell; fill in {_FIELD_HINTS[found]}"
                ))
        backend = self._backend(row.line, row.cells.get("backend"), header.get("backend"))
        status = self._status(row.line, row.cells.get("status"), header.get("status"))
        if op is None or backend is None:
            return
        first = self._seen.setdefault((op, backend), row.line)
        if first != row.line:
            self._add(row.line, "audit-table-duplicate-row", (
                f"{op} on {backend} is already listed at line {first}; keep one row per op and backend"
            ))
            return
        self.rows.append(IssueRow(
            row.line, op, backend, status, row.cells.get("workaround", ""),
            header.get("workaround", FIELD_TITLES["workaround"]),
        ))

    def _op(self, line: int, cell: str | None, header: str | None) -> str | None:
        if cell is None or plain(cell) in _EMPTY_CELLS:
            return None
        op = normalise_op(cell)
        if op is None:
            self._add(line, "audit-table-bad-op", (
                f"'{header}' is '{cell}', not one op name; write it as aten.baddbmm, baddbmm "
                "or `baddbmm` (one row per op)"
            ))
        return op

    def _backend(self, line: int, cell: str | None, header: str | None) -> str | None:
        if cell is None:
            return None
        value = plain(cell).lower()
        if value in _EMPTY_CELLS:
            return None
        if value in self.allowed:
            return value
        if re.search(r"[,/&+]|\band\b", value):
            hint = "; one backend per row: split it into one row per backend"
        elif value in _BACKEND_SYNONYMS:
            hint = f"; write '{_BACKEND_SYNONYMS[value]}'"
        else:
            hint = ""
        self._add(line, "audit-table-bad-backend",
                  f"'{header}' is '{cell}', not one of {_titles(self.allowed, 'or', quote=False)}{hint}")
        return None

    def _status(self, line: int, cell: str | None, header: str | None) -> str | None:
        if cell is None:
            return None
        value = plain(cell).lower()
        if value in _EMPTY_CELLS:
            return None
        for status in ("open", "resolved"):
            if re.match(rf"{status}(?![a-z0-9])", value):
                return status
        self._add(line, "audit-table-bad-status", (
            f"'{header}' is '{cell}'; use '{OPEN}' or '{RESOLVED}'"
        ))
        return None


def _marker_form(path: str, marker: Marker) -> list[Finding]:
    findings = []
    if not marker.follows_form:
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
            matched, wanted = _row_for(marker, candidates)
            if matched is None:
                findings.append(_missing_row(docs, device, found.path, marker, wanted, rows))
            elif matched.status == "resolved":
                findings.append(Finding(found.path, marker.line, "audit-stale-marker", (
                    f"{docs}:{matched.line} says {matched.op} on {device} is resolved, but this marker is "
                    f"still here; remove the marker and its guard, or set the row back to '{OPEN}'"
                )))
            else:
                covered.add(matched.line)
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
                f"{row.op} on {row.backend} is open, but {where}; add the backend or remove the row"
            )))
            continue
        if row.line not in covered:
            findings.append(Finding(docs, row.line, "audit-orphan-row", (
                f"{row.op} on {row.backend} is open, but no marker in the {row.backend} backend "
                f"matches it; keep the native kernel behind a guard marked '{MARKER_FORM}' "
                f"(naming aten.{row.op} in the issue), or set Status to '{RESOLVED}'"
            )))
        for name in workaround_functions(row.workaround, row.op):
            if name not in code.defined:
                findings.append(Finding(docs, row.line, "audit-missing-workaround", (
                    f"'{row.workaround_header}' names `{name}`, but no function {name} is defined "
                    f"in the {row.backend} backend ({', '.join(code.locations)}); fix the name or "
                    "add the composite"
                )))
    return findings


def _row_for(marker: Marker, rows: list[IssueRow]) -> tuple[IssueRow | None, str | None]:
    """The row a marker belongs to, else a description of the op it was looked up as."""
    issue = marker.issue or ""
    named = list(dict.fromkeys(_ATEN_OP.findall(issue)))
    if named:  # "aten.baddbmm" in the issue decides alone
        for op in named:
            for row in rows:
                if row.op == op:
                    return row, None
        return None, f"aten.{named[0]}"
    # Backticked names may be platform symbols (`aclnnBaddbmm`), so they only count on a hit.
    for op in filter(None, map(normalise_op, _BACKTICKED.findall(issue))):
        for row in rows:
            if row.op == op:
                return row, None
    for function in marker.functions:
        by_function = _row_for_function(function, rows)
        if by_function is not None:
            return by_function, None
    for row in sorted(rows, key=lambda r: len(r.op), reverse=True):
        if re.search(rf"(?<!\w){re.escape(row.op)}(?!\w)", issue):
            return row, None
    return None, (f"{marker.functions[0]}()" if marker.functions else None)


def _row_for_function(function: str, rows: list[IssueRow]) -> IssueRow | None:
    bare = function.lstrip("_")
    for row in rows:
        if row.op == bare:
            return row
    words = _words(function)
    best: IssueRow | None = None
    for row in rows:
        if _contains_run(words, _words(row.op)) and (best is None or len(row.op) > len(best.op)):
            best = row
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
        elsewhere = [r for r in rows if r.op == op]
        hint = f" (line {elsewhere[0].line} lists it for {elsewhere[0].backend})" if elsewhere else ""
        message = (
            f"no row for {wanted} on {device} in {docs}{hint}; add one with Backend '{device}' "
            f"and Status '{OPEN}'"
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
            data = f.read()
    except OSError as exc:
        raise AuditError(f"{shown}: cannot read the file ({exc.strerror or exc})") from None
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
