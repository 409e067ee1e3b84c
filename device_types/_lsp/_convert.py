"""Findings -> LSP diagnostics, and the text of a hover: no server state, no I/O.

Columns: the engine counts UTF-8 bytes (``ast``'s ``col_offset``); the client counts in the
position encoding agreed at ``initialize`` (UTF-16 unless it offered another).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence

from lsprotocol import types

from .. import _codes, _links

from .._finding import Finding
from .._check._project import FunctionInfo, Module, Project
from .._check._summary import Summary

__all__ = ["SOURCE", "ChainIndex", "Hop", "argument_phrase", "client_column", "code_uri", "finding_diagnostic", "line_range",
           "plain_diagnostic", "server_column", "summary_text"]

SOURCE = "device-types"

#: (path, line, column in UTF-8 bytes, function, what happens there) of one step of a chain:
#: a call of the next function, or (last) the root.
Hop = tuple[str, int, int, str, str]


def code_uri(code: str, docs_url: str | None = None) -> str:
    """``codeDescription.href`` must be a URI: the code's section of the docs (the same text
    ``device-types explain CODE`` prints), in the installed package's copy or under the
    configured ``docs_url`` (``device_types._links``)."""
    return _links.code_url(code, docs_url)


def client_column(line: str, byte_column: int, encoding: str) -> int:
    """An ``ast`` column (UTF-8 bytes) as the client counts it."""
    prefix = line.encode("utf-8", "surrogateescape")[:max(byte_column, 0)].decode("utf-8", "replace")
    if encoding == types.PositionEncodingKind.Utf8:
        return len(prefix.encode("utf-8", "surrogateescape"))
    if encoding == types.PositionEncodingKind.Utf32:
        return len(prefix)
    return len(prefix.encode("utf-16-le", "surrogatepass")) // 2


def server_column(line: str, client: int, encoding: str) -> int:
    """The client's column as an ``ast`` column (UTF-8 bytes)."""
    if encoding == types.PositionEncodingKind.Utf8:
        return client
    if encoding == types.PositionEncodingKind.Utf32:
        chars = line[:client]
    else:
        chars = line.encode("utf-16-le", "surrogatepass")[:client * 2].decode("utf-16-le", "replace")
    return len(chars.encode("utf-8", "surrogateescape"))


def line_range(lines: Sequence[str], line: int, byte_column: int, encoding: str) -> types.Range:
    """From the column to the end of the line's text (line 1-based; 0 means the file)."""
    index = max(line - 1, 0)
    text = lines[index] if index < len(lines) else ""
    start = client_column(text, byte_column, encoding) if line > 0 else 0
    end = client_column(text, len(text.rstrip().encode("utf-8", "surrogateescape")), encoding)
    return types.Range(types.Position(index, start), types.Position(index, max(end, start + 1)))


def finding_diagnostic(finding: Finding, lines: Sequence[str], hops: Sequence[Hop], encoding: str,
                       uri_of: Callable[[str], str], docs_url: str | None = None) -> types.Diagnostic:
    """One finding; its chain as related information, one entry per function on it."""
    related = []
    for index, (path, line, column, function, what) in enumerate(hops):
        role = " (the root)" if index == len(hops) - 1 and len(hops) > 1 else ""
        at = types.Position(max(line - 1, 0), 0)
        related.append(types.DiagnosticRelatedInformation(
            types.Location(uri_of(path), types.Range(at, at)), f"{index + 1}. {function}: {what}{role}"))
    return types.Diagnostic(
        range=line_range(lines, finding.line, finding.column or 0, encoding),
        message=finding.message,
        severity=(types.DiagnosticSeverity.Warning if finding.code == _codes.HOST_SYNC.name
                  else types.DiagnosticSeverity.Error),
        code=finding.code,
        code_description=types.CodeDescription(href=code_uri(finding.code, docs_url)),
        source=SOURCE,
        related_information=related or None,
        data={"kind": "check", "function": finding.function, "anchor": finding.anchor, "path": finding.path,
              "line": finding.line, "code": finding.code,
              "root": [uri_of(hops[-1][0]), hops[-1][1]] if len(hops) > 1 else None},
    )


def plain_diagnostic(lines: Sequence[str], line: int, code: str, message: str, encoding: str,
                     kind: str, severity: types.DiagnosticSeverity = types.DiagnosticSeverity.Error,
                     docs_url: str | None = None) -> types.Diagnostic:
    """An audit finding, an unanalysable file, a broken configuration."""
    return types.Diagnostic(range=line_range(lines, line, 0, encoding), message=message, severity=severity,
                            code=code, code_description=types.CodeDescription(href=code_uri(code, docs_url)),
                            source=SOURCE, data={"kind": kind, "code": code, "line": line})


class ChainIndex:
    """Where functions are, by the names a finding's chain gives (built once per run)."""

    def __init__(self, project: Project) -> None:
        self.by_path = {project.display(m.path): m for m in project.modules.values()}
        self.by_qualname: dict[str, list[Module]] = {}
        for module in project.modules.values():
            for qualname in module.functions:
                self.by_qualname.setdefault(qualname, []).append(module)

    def hops(self, finding: Finding) -> list[Hop]:
        """Each step of the chain, as the engine gives it (``Finding.hops``); for a finding
        without them (an older engine), each function's def, looked up by name."""
        given = getattr(finding, "hops", None)
        if given:
            return [(h.path, h.line, h.column, h.function, h.what) for h in given]
        hops: list[Hop] = []
        here = self.by_path.get(finding.path)
        for index, qualname in enumerate(finding.chain):
            if here is None:
                break
            info = self._locate(qualname, here) if index else here.functions.get(qualname)
            if info is None:
                break
            hops.append((info.path, info.line, 0, info.qualname, "defined here"))
            here = next((m for m in self.by_qualname.get(qualname, []) if m.name == info.module), here)
        return hops

    def _locate(self, qualname: str, near: Module) -> FunctionInfo | None:
        """``qualname`` in the module ``near`` imports it from, itself, or the nearest package."""
        candidates = self.by_qualname.get(qualname, [])
        if not candidates:
            return None
        imported = set(near.imports.values())
        head = qualname.split(".")[0]
        for module in candidates:
            if module.name == near.name or f"{module.name}.{head}" in imported or module.name in imported:
                return module.functions[qualname]
        best = max(candidates, key=lambda m: len(os.path.commonprefix([m.name, near.name])))
        return best.functions[qualname]


def summary_text(info: FunctionInfo, summary: Summary | None, is_backend: bool, shown_path: str) -> str:
    """Markdown for a hover: what a call of ``info`` does with device data, as the check sees it."""
    head = f"**device-types:** `{info.qualname}` (`{shown_path}:{info.line}`)"
    if summary is None:
        return f"{head}\n\nnot analysed yet"
    parts: list[str] = []
    paths = tuple(getattr(summary, "fallbacks", ()) or ((summary.fallback,) if summary.fallback else ()))
    for path in paths[:3]:
        verb = "reads back to the host" if path.code == _codes.READBACK.name else "computes on the host"
        where = f"line {path.line}" if os.path.abspath(path.path) == os.path.abspath(info.path) else \
            f"{os.path.basename(path.path)}:{path.line}"
        through = f", through {' -> '.join(c.rpartition('.')[2] for c in path.chain)}" if len(path.chain) > 1 else ""
        when = _when(path, info)
        parts.append(f"{verb} ({where}: {path.what}{through}){' when ' + when if when else ''} [`{path.code}`]")
    if len(paths) > 3:
        parts.append(f"and {len(paths) - 3} more way{'s' if len(paths) > 4 else ''} to the host")
    path = paths[0] if paths else None
    def named(indices: frozenset[int]) -> str:
        return _and([argument_phrase(info, i) for i in sorted(indices)])
    if summary.returns_read_of:
        parts.append(f"returns {named(summary.returns_read_of)} read back to the host")
    if summary.reads_into:
        parts.append(f"copies device data into {named(summary.reads_into)} on the host")
    if summary.returned_roots:
        first = min(summary.returned_roots, key=lambda r: (r.line, r.column))
        parts.append(f"returns host data it makes ({first.what}, line {first.line})")
    if summary.uploads or summary.array_uploads:
        parts.append(f"uploads {named(summary.uploads | summary.array_uploads)} to the device")
    if summary.returns_param:
        parts.append(f"returns the host data of {named(summary.returns_param)}")
    if not parts:
        parts.append("stays on the device" if is_backend else "moves no data between host and device")
    elif path is None and is_backend:
        parts.insert(0, "stays on the device (no fallback)")
    return head + "\n\n" + "; ".join(parts)


_ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth")


def _ordinal(n: int) -> str:
    if 1 <= n <= len(_ORDINALS):
        return _ORDINALS[n - 1]
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def argument_phrase(info: FunctionInfo, index: int) -> str:
    """A parameter index of a summary, as a reader names it: "its first argument `kernel`"
    (counted as a caller writes the call: a method's ``self`` is the object it is called on),
    "its extra positional arguments `*args`", "its keyword argument `out`"."""
    params = info.params
    method = info.class_name is not None and bool(params) and params[0] in ("self", "cls")
    if 0 <= index < len(params):
        if method and index == 0:
            return f"the object it is called on (`{params[0]}`)"
        return f"its {_ordinal(index + 1 - method)} argument `{params[index]}`"
    if index == len(params):
        return (f"its extra positional arguments `*{info.vararg}`" if info.vararg
                else f"its {_ordinal(index + 1 - method)} argument")
    keyword = index - len(params) - 1
    if 0 <= keyword < len(info.kwonly):
        return f"its keyword argument `{info.kwonly[keyword]}`"
    return f"its keyword arguments `**{info.kwarg}`" if info.kwarg else "one of its arguments"


def _and(items: list[str]) -> str:
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


def _when(path: object, info: FunctionInfo) -> str:
    """When the path is taken, over the function's parameters ("" always, or when the engine
    has no conditions)."""
    condition = getattr(path, "when", None)
    if condition is None:
        return ""
    try:
        from .._check._conditions import render
    except ImportError:  # an engine without conditioned summaries
        return ""
    return render(condition, info.params)
