"""``device-types audit --fix``: the mechanical part of converging on the policy's form.

It renames recognised column headers to the policy's names, adds the Backend column (when
a heading, the path or ``default_backend`` says which backend) and the Status column (a
table without one is read as open), writes statuses and backends in the policy's words, and
rewrites readable markers to the template, keeping their platform and issue text. It never
invents content: an empty cell stays empty, a marker without a platform or an issue stays
as it is, and both stay findings.
"""

from __future__ import annotations

import difflib
import io
import os
import re
import tokenize
from dataclasses import dataclass

from .._config import BACKEND_DEVICES
from .._files import WriteError, read_regular, split_lines_keepends
from ._cells import plain
from ._checks import AuditResult
from ._findings import OPEN, RESOLVED, AuditError
from ._markers import Marker
from ._sections import BACKEND_SYNONYMS, Section
from ._table import FIELD_TITLES, Table, split_cells


#: A source larger than this is not rewritten (the check's limit for one file).
MAX_SOURCE_BYTES = 4 * 1024 * 1024
#: An issue that only points back at the kernel named before it.
_PRONOUNS = frozenset({"it", "this", "that", "them", "this kernel", "the kernel"})


@dataclass(frozen=True)
class FixedFile:
    path: str  # relative to the root
    before: str
    after: str
    #: How the file is written back: its own encoding (PEP 263 for a source; a BOM is kept).
    encoding: str = "utf-8"

    def diff(self) -> str:
        lines = difflib.unified_diff(
            split_lines_keepends(self.before),
            split_lines_keepends(self.after),
            f"a/{self.path}",
            f"b/{self.path}",
        )
        return "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines)


def plan_fixes(result: AuditResult) -> list[FixedFile]:
    """The files ``--fix`` would change, with their text before and after."""
    fixed: list[FixedFile] = []
    if result.text is not None:
        lines = split_lines_keepends(result.text)
        for table, section in result.tables:
            _fix_table(lines, table, section)
        after = "".join(lines)
        if after != result.text:
            bom = _has_bom(os.path.join(result.root, result.docs))
            fixed.append(FixedFile(result.docs, result.text, after, "utf-8-sig" if bom else "utf-8"))
    by_file: dict[str, list[Marker]] = {}
    for code in result.backends.values():
        for found in code.markers:
            if found.marker.platform is not None and found.marker.issue is not None and not found.marker.follows_form:
                by_file.setdefault(found.path, []).append(found.marker)
    for path, markers in sorted(by_file.items()):
        before, encoding = _read(os.path.join(result.root, path), path)
        lines = split_lines_keepends(before)
        for marker in markers:
            _fix_marker(lines, marker)
        after = "".join(lines)
        if after != before:
            fixed.append(FixedFile(path, before, after, encoding))
    return fixed


def write_fixes(root: str, fixed: list[FixedFile]) -> None:
    """Every change, or none: each file is written beside itself, then all are renamed over
    the originals, through a journal in ``root`` (``_journal.write_all``): a failure leaves
    every file as it was, and a kill leaves a change the next run finishes or undoes."""
    from .._journal import JournalError, write_all

    files: dict[str, bytes] = {}
    for change in fixed:
        try:
            files[os.path.join(root, change.path)] = change.after.encode(change.encoding)
        except UnicodeEncodeError as exc:
            raise AuditError(f"{change.path}: the fix cannot be written in the file's encoding "
                             f"{change.encoding} ({exc.reason}); nothing was written") from None
    try:
        write_all(root, files)
    except WriteError as exc:
        raise AuditError(str(exc) if isinstance(exc, JournalError) else f"{exc}; no file was changed") from None


def template(marker: Marker) -> str:
    """The marker in the policy's words, with its platform and issue (and the kernel it
    names in place of "kernel", moved into the issue so that matching still finds it)."""
    issue = marker.issue or ""
    what = " ".join(w for w in (marker.what or "").split() if w.lower() not in {"path", "paths"})
    if what and issue.lower() in _PRONOUNS:
        issue = what  # "when CANN fixes it": "it" is the kernel it names
    elif what and what.lower() not in issue.lower():
        issue = f"{what} {issue}"
    owner = re.match(r"#+\s*TODO\s*(\([^)]*\))?", marker.comment, re.IGNORECASE)
    todo = f"TODO{owner.group(1) or ''}" if owner else "TODO"  # TODO(kim) stays kim's
    return f"# {todo}: re-enable native kernel when {marker.platform} fixes {issue}"


def _fix_marker(lines: list[str], marker: Marker) -> None:
    index = marker.line - 1
    if index >= len(lines):
        return
    line = lines[index]
    body = line.rstrip("\r\n")
    ending = line[len(body):]
    if body[marker.column:].strip() != marker.comment:
        return  # the file changed since it was read: leave it alone
    lines[index] = body[: marker.column] + template(marker) + ending


def _fix_table(lines: list[str], table: Table, section: Section) -> None:
    headers = list(table.headers)
    renamed = dict(table.columns)
    for found, index in table.columns.items():
        headers[index] = FIELD_TITLES[found]
    inserts: list[tuple[int, str, str]] = []  # (position, header, value for every row)
    if "backend" not in table.columns and section.backend is not None and "op" in table.columns:
        inserts.append((table.columns["op"] + 1, FIELD_TITLES["backend"], section.backend))
    if "status" not in table.columns:
        # Right after the last policy column, so the six stay together before any notes.
        inserts.append((max(table.columns.values()) + 1, FIELD_TITLES["status"], OPEN))

    def rebuilt(cells: list[str], fill: list[str], pad: str = "") -> list[str]:
        out = list(cells) + [pad] * (len(table.headers) - len(cells))
        for (position, _, _), value in sorted(zip(inserts, fill), key=lambda item: -item[0][0]):
            out.insert(position, value)
        return out

    _replace(lines, table.line, table.headers, rebuilt(headers, [h for _, h, _ in inserts]))
    delimiter = split_cells(lines[table.delimiter_line - 1])
    # A short delimiter row is padded with delimiters: an empty cell would end the table.
    _replace(lines, table.delimiter_line, delimiter, rebuilt(delimiter, ["---"] * len(inserts), "---"))
    for row in table.rows:
        cells = list(row.raw)
        if "status" in renamed and renamed["status"] < len(cells):
            cells[renamed["status"]] = _status_words(cells[renamed["status"]])
        if "backend" in renamed and renamed["backend"] < len(cells):
            cells[renamed["backend"]] = _backend_words(cells[renamed["backend"]])
        _replace(lines, row.line, row.raw, rebuilt(cells, [value for _, _, value in inserts]))


def _status_words(cell: str) -> str:
    value = plain(cell).lower()
    for short, wording in (("open", OPEN), ("resolved", RESOLVED)):
        if value in {short, wording}:
            return wording
    return cell  # "open since CANN 8.0" says more than the template: a human decides


def _backend_words(cell: str) -> str:
    value = plain(cell).lower()
    if value in BACKEND_DEVICES:
        return value
    return BACKEND_SYNONYMS.get(value, cell)


def _replace(lines: list[str], number: int, before: tuple[str, ...] | list[str], after: list[str]) -> None:
    """Rewrite table line ``number`` when its cells change; untouched lines keep their bytes."""
    if list(before) == after:
        return
    line = lines[number - 1]
    body = line.rstrip("\r\n")
    indent = body[: len(body) - len(body.lstrip())]
    cells = "|".join(f" {c.replace('|', chr(92) + '|')} " if c else " " for c in after)
    lines[number - 1] = f"{indent}|{cells}|{line[len(body):]}"


def _read(path: str, shown: str) -> tuple[str, str]:
    """A source's text and its encoding, as the audit read it (PEP 263; a BOM is ``utf-8-sig``)."""
    try:
        data = read_regular(path, MAX_SOURCE_BYTES)
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        return data.decode(encoding), encoding
    except (OSError, UnicodeDecodeError, SyntaxError, LookupError) as exc:
        raise AuditError(f"{shown}: cannot read the file to fix it ({exc})") from None


def _has_bom(path: str) -> bool:
    try:
        with open(path, "rb") as handle:
            return handle.read(3) == b"\xef\xbb\xbf"
    except OSError:
        return False
