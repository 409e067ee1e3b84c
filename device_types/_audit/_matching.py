"""Markers against rows: which rows a marker is for, and what is missing on either side.

Matching (documented in docs/audit.md): the backend is the marker's backend directory;
the rows are found, first rule that finds any, by an ``aten.`` op in the issue, a kernel
name a row's kernel column lists, a backticked op, the op a vendor kernel name spells
(``aclnnStd`` -> ``std``), the guarded or enclosing ``def`` (``_baddbmm_native`` ->
``baddbmm``, the longest op wins), a row's op written in the issue, and the error code of
exactly one op. One kernel listed under several chips is one marker's rows.
"""

from __future__ import annotations

import re
from typing import Final

from .. import _codes as codes
from .._config import Config
from ._cells import camel_words, error_codes, normalise_op
from ._findings import MARKER_FORM, OPEN, RESOLVED, Finding, finding
from ._markers import Marker
from ._rows import IssueRow
from ._sections import platform_named
from ._sources import BackendCode

_IDENTIFIER: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_ATEN_OP: Final = re.compile(r"(?:\btorch\.ops\.)?\baten(?:\.|::)([A-Za-z_][A-Za-z0-9_]*)")
_BACKTICKED: Final = re.compile(r"`([^`]+)`")
#: A vendor kernel name in a marker: a camel-case hump followed by more lower case or
#: digits (aclnnStd, cudnnConvFwd), which "macOS" and "cuBLAS" are not.
_KERNEL_NAME: Final = re.compile(r"^[a-z][a-z0-9]*[A-Z][A-Za-z0-9]*[a-z0-9]")


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


def marker_findings(path: str, marker: Marker, strict: bool) -> list[Finding]:
    findings = []
    if not marker.shaped:
        findings.append(finding(path, marker.line, codes.MARKER_MALFORMED, (
            f"marker does not read '{MARKER_FORM}'; rewrite it in that form, e.g. "
            "'# TODO: re-enable native kernel when macOS 15.4 fixes aten.baddbmm crash'"
        )))
    elif marker.platform is None:
        findings.append(finding(path, marker.line, codes.MARKER_MALFORMED, (
            "marker names no platform; write the platform whose fix re-enables the kernel "
            "after 'when', e.g. 'when macOS 15.4 fixes ...' or 'when CANN 8.1 fixes ...'"
        )))
    elif marker.issue is None:
        findings.append(finding(path, marker.line, codes.MARKER_MALFORMED, (
            "marker names no issue; say after 'fixes' what must be fixed, e.g. "
            "'fixes aten.baddbmm crash on batched inputs'"
        )))
    elif strict and not marker.follows_form:
        findings.append(finding(path, marker.line, codes.MARKER_WORDING, (
            f"marker does not use the policy's wording '{MARKER_FORM}'; "
            "device-types audit --fix rewrites it, keeping the platform and the issue"
        )))
    if marker.guard is None:
        findings.append(finding(path, marker.line, codes.UNGUARDED_MARKER, (
            "no guard keeps the native kernel here; put the marker on or directly above the "
            "'if'/'try' that switches to the native kernel, inside that branch, above the "
            "preserved native 'def', or on its 'USE_NATIVE_... = False' flag"
        )))
    return findings


def match_markers(docs: str, rows: list[IssueRow], backends: dict[str, BackendCode], config: Config) -> list[Finding]:
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
                findings.append(finding(found.path, marker.line, codes.STALE_MARKER, (
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
            findings.append(finding(docs, row.line, codes.ORPHAN_ROW, (
                f"{row.label} on {row.backend} is open, but {where}; add the backend or remove the row"
            )))
            continue
        if row.line not in covered:
            naming = f"aten.{row.op}" if not row.kernels else f"aten.{row.op} or {row.kernels[0]}"
            findings.append(finding(docs, row.line, codes.ORPHAN_ROW, (
                f"{row.label} on {row.backend} is open, but no marker in the {row.backend} backend "
                f"matches it; keep the native kernel behind a guard marked '{MARKER_FORM}' "
                f"(naming {naming} in the issue), or set Status to '{RESOLVED}'"
            )))
        for name in dict.fromkeys(n for op in row.ops for n in workaround_functions(row.workaround, op)):
            if name not in code.defined:
                findings.append(finding(docs, row.line, codes.MISSING_WORKAROUND, (
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
            if re.search(rf"(?<!\w){re.escape(op)}(?!\w)", about):  # "native matmul path"
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
        return finding(path, marker.line, codes.MARKER_NO_OP, (
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
    return finding(path, marker.line, codes.MISSING_ROW, message)


def _words(name: str) -> list[str]:
    return [w for w in name.lower().split("_") if w]


def _contains_run(words: list[str], run: list[str]) -> bool:
    n = len(run)
    return n > 0 and any(words[i : i + n] == run for i in range(len(words) - n + 1))


