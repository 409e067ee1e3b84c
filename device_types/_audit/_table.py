"""Markdown tables of docs/known-kernel-issues.md -> rows with line numbers.

Only parsing happens here; ``_checks`` decides what is wrong. The parser follows GitHub's
table syntax (a header line, a ``|---|`` delimiter line, rows until a blank or pipe-less
line) but never rejects a table: ragged rows, unknown columns and missing fields are kept
as facts so the checks can say what to fix instead of silently skipping the table.
Tables inside fenced code blocks and HTML comments are not tables (the template keeps its
example row in a comment).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cached_property
from typing import Final

from .._files import split_lines
from ._cells import is_empty, kernel_names

#: The six fields of rule 4, in the policy's order, with the title the checks report.
FIELD_TITLES: Final = {
    "op": "Op name",
    "backend": "Backend",
    "error": "Error description",
    "workaround": "Composite workaround",
    "platform": "Platform version",
    "status": "Status",
}

# Header names are compared after lower-casing and dropping everything that is not a letter
# or digit, so "Op name", "op_name", "OP-NAME" and "**Op name**" are one name.
_HEADER_SYNONYMS: Final = {
    "op": {
        "opname", "op", "ops", "operator", "operatorname", "operation", "atenop", "atenopname",
        "opnames", "operators", "torchop", "atenops",
    },
    "backend": {"backend", "backends", "device", "devicetype", "backenddevice", "devicebackend"},
    "error": {
        "errordescription", "error", "errors", "description", "errormessage", "symptom",
        "symptoms", "problem", "failure", "whathappens", "errorcode", "errorcodes", "issue",
        "bug", "knownissue",
    },
    "workaround": {
        "compositeworkaround", "workaround", "composite", "compositeop", "compositeops",
        "compositereplacement", "replacement", "compositeimplementation", "workarounds",
        "mitigation", "compositeworkarounds",
    },
    "platform": {
        "platformversion", "platform", "version", "versions", "platformversions",
        "affectedversion", "affectedversions", "sdkversion", "toolkitversion", "osversion",
        "verifiedon", "testedon", "seenon", "reproducedon", "cannversion", "cudaversion",
        "macosversion", "driverversion",
    },
    "status": {"status", "state"},
}
_FIELD_BY_HEADER: Final = {name: f for f, names in _HEADER_SYNONYMS.items() for name in names}

#: A table whose header names fewer distinct fields than this is some other table
#: (a glossary, a version matrix) and is not checked.
MIN_FIELDS_FOR_ISSUE_TABLE: Final = 2

#: A column header that says its cells are kernel names ("ACLNN kernel", "Metal shader").
_KERNEL_HEADER: Final = re.compile(r"kernel|aclnn|shader|symbol", re.IGNORECASE)

_DELIMITER_CELL = re.compile(r"^:?-+:?$")
_ATX_HEADING = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.*?)[ \t#]*$")
_SETEXT_UNDERLINE = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_ONE_LINE_COMMENT = re.compile(r"<!--.*?-->")


def field_of_header(header: str) -> str | None:
    """The rule-4 field a column header stands for, or None when it is not recognised."""
    return _FIELD_BY_HEADER.get(re.sub(r"[^a-z0-9]", "", header.lower()))


@dataclass(frozen=True)
class Row:
    line: int
    #: Field -> cell text as written (stripped); fields the row has no cell for are absent.
    cells: dict[str, str]
    #: Number of cells on the line (compared with the header's width).
    width: int
    #: Every cell of the line, in order (extra columns included).
    raw: tuple[str, ...] = ()


@dataclass(frozen=True)
class Heading:
    line: int
    level: int
    text: str


@dataclass(frozen=True)
class Table:
    #: Line of the header row (table-level findings point here).
    line: int
    headers: tuple[str, ...]
    #: Field -> index of the first column recognised as that field.
    columns: dict[str, int]
    #: Headers that name no field, as written.
    unknown: tuple[str, ...]
    #: (field, header as written) for each second column naming an already-seen field.
    duplicate_columns: tuple[tuple[str, str], ...]
    rows: tuple[Row, ...] = field(default=())
    #: The headings the table sits under, outermost first.
    headings: tuple[Heading, ...] = ()
    #: Line of the ``|---|`` delimiter row.
    delimiter_line: int = 0

    @property
    def is_issue_table(self) -> bool:
        return len(self.columns) >= MIN_FIELDS_FOR_ISSUE_TABLE

    @property
    def missing(self) -> tuple[str, ...]:
        return tuple(f for f in FIELD_TITLES if f not in self.columns)

    @cached_property
    def kernel_columns(self) -> tuple[int, ...]:
        """Extra columns that hold kernel names: the header says so ("ACLNN kernel"), or
        every filled cell holds a camel-case identifier (``aclnnAvgPool2d``)."""
        found = []
        for index, header in enumerate(self.headers):
            if index in self.columns.values():
                continue
            says_kernel = bool(_KERNEL_HEADER.search(header))
            cells = [r.raw[index] for r in self.rows if index < len(r.raw) and not is_empty(r.raw[index])]
            if says_kernel or (cells and all(kernel_names(c, False) for c in cells)):
                found.append(index)
        return tuple(found)


def parse_tables(text: str) -> list[Table]:
    """Every markdown table in ``text`` (issue tables and others), in document order."""
    lines = list(_visible_lines(text))
    tables: list[Table] = []
    headings: list[Heading] = []
    i = 0
    while i + 1 < len(lines):
        number, header_line = lines[i]
        next_number, delimiter_line = lines[i + 1]
        heading = _heading(header_line, delimiter_line if next_number == number + 1 else None, number)
        if heading is not None:
            headings = [h for h in headings if h.level < heading.level] + [heading]
            i += 1
            continue
        if (
            "|" in header_line
            and next_number == number + 1
            and _is_delimiter(delimiter_line, len(split_cells(header_line)))
        ):
            headers = split_cells(header_line)
            columns, unknown, duplicates = _read_header(headers)
            rows: list[Row] = []
            j = i + 2
            while j < len(lines) and lines[j][0] == lines[j - 1][0] + 1 and _is_row(lines[j][1]):
                cells = split_cells(lines[j][1])
                by_field = _cells_by_field(headers, cells)
                rows.append(Row(lines[j][0], by_field, len(cells), tuple(cells)))
                j += 1
            tables.append(Table(
                number, tuple(headers), columns, unknown, duplicates, tuple(rows), tuple(headings), next_number,
            ))
            i = j
        else:
            i += 1
    return tables


def _cells_by_field(headers: list[str], cells: list[str]) -> dict[str, str]:
    """Field -> cell; where two columns read as one field ("Error code", "Error"), the
    first filled one (the first one when none is)."""
    by_field: dict[str, str] = {}
    for index, header in enumerate(headers):
        found = field_of_header(header)
        if found is None or index >= len(cells):
            continue
        if found not in by_field or (is_empty(by_field[found]) and not is_empty(cells[index])):
            by_field[found] = cells[index]
    return by_field


def _heading(line: str, next_line: str | None, number: int) -> Heading | None:
    """An ATX (``## 910B``) or setext (a line underlined with ``===``/``---``) heading."""
    atx = _ATX_HEADING.match(line)
    if atx:
        return Heading(number, len(atx.group(1)), atx.group(2).strip())
    if (
        next_line is not None
        and "|" not in line
        and line.strip()
        and not line.startswith((" " * 4, "\t"))
        and _SETEXT_UNDERLINE.match(next_line)
    ):
        return Heading(number, 1 if "=" in next_line else 2, line.strip())
    return None


def split_cells(line: str) -> list[str]:
    """Cells of one table line; ``\\|`` is a literal pipe, outer pipes are optional."""
    text = line.strip()
    if text.startswith("|"):
        text = text[1:]
    if text.endswith("|") and not text.endswith("\\|"):
        text = text[:-1]
    cells: list[str] = []
    current: list[str] = []
    i = 0
    while i < len(text):
        if text.startswith("\\|", i):
            current.append("|")
            i += 2
            continue
        if text[i] == "|":
            cells.append("".join(current).strip())
            current = []
        else:
            current.append(text[i])
        i += 1
    cells.append("".join(current).strip())
    return cells


def _read_header(
    headers: list[str],
) -> tuple[dict[str, int], tuple[str, ...], tuple[tuple[str, str], ...]]:
    """(field -> first column index, unrecognised headers, (field, header) of repeated fields)."""
    columns: dict[str, int] = {}
    unknown: list[str] = []
    duplicates: list[tuple[str, str]] = []
    for index, header in enumerate(headers):
        found = field_of_header(header)
        if found is None:
            unknown.append(header)
        elif found in columns:
            duplicates.append((found, header))
        else:
            columns[found] = index
    return columns, tuple(unknown), tuple(duplicates)


def _is_delimiter(line: str, header_width: int) -> bool:
    if "-" not in line:
        return False
    cells = split_cells(line)
    if "|" not in line and len(cells) != header_width:
        return False  # "---" under "a | b" is a heading underline, not a one-column table
    return all(_DELIMITER_CELL.match(c.replace(" ", "")) for c in cells)


def _is_row(line: str) -> bool:
    return "|" in line and bool(line.strip())


def _visible_lines(text: str) -> Iterator[tuple[int, str]]:
    """(1-based line number, text) of lines outside code fences and HTML comments.

    Hidden lines are skipped entirely, so a table interrupted by a comment ends there
    (line numbers must be consecutive for rows to continue a table).
    """
    fence: str | None = None
    in_comment = False
    for number, raw in enumerate(split_lines(text), start=1):
        if fence is not None:
            if raw.lstrip().startswith(fence):
                fence = None
            continue
        line = raw
        if in_comment:
            end = line.find("-->")
            if end < 0:
                continue
            in_comment = False
            line = line[end + 3 :]
        line = _ONE_LINE_COMMENT.sub("", line)
        start = line.find("<!--")
        if start >= 0:
            in_comment = True
            line = line[:start]
            if not line.strip():
                continue
        opening = _FENCE.match(line)
        if opening:
            fence = opening.group(1)[:3]
            continue
        yield number, line
