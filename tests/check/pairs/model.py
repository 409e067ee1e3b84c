"""The shape of a fix pair, and how the "after" replaces the "before" in a copy of the wheel."""

from __future__ import annotations

import ast
import textwrap
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Pair:
    """A fallback function of the wheel (``before``, read from the wheel by qualname) and its fix.

    ``after`` is the whole replacement ``def`` (our code, dedented). ``after=None`` marks an
    indirect fallback that the fixes of its callees (``fixed_by``) repair: it stays unchanged.
    """

    path: str
    function: str
    after: str | None
    why: str = ""
    fixed_by: tuple[str, ...] = ()

    @property
    def indirect(self) -> bool:
        return self.after is None


def find_def(tree: ast.Module, qualname: str) -> ast.FunctionDef | ast.AsyncFunctionDef:
    """The def node named by a ``__qualname__``-style path (``f``, ``C.m``, ``f.<locals>.g``)."""
    scope: ast.AST = tree
    parts = [p for p in qualname.split(".") if p != "<locals>"]
    node = None
    for part in parts:
        node = _child_named(scope, part)
        if node is None:
            raise LookupError(f"no definition {qualname!r}")
        scope = node
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        raise LookupError(f"{qualname!r} is not a function")
    return node


def _child_named(scope: ast.AST, name: str) -> ast.AST | None:
    pending = list(ast.iter_child_nodes(scope))
    while pending:
        node = pending.pop(0)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            if node.name == name:
                return node
            continue
        if isinstance(node, (ast.If, ast.Try, ast.With, ast.For, ast.While)):
            pending.extend(ast.iter_child_nodes(node))
    return None


def def_span(source: str, qualname: str) -> tuple[int, int, int]:
    """(first line, last line, indentation) of a def, decorators included, 1-based inclusive."""
    node = find_def(ast.parse(source), qualname)
    first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
    return first, node.end_lineno or node.lineno, node.col_offset


def before_source(root: Path, pair: Pair) -> str:
    source = (root / pair.path).read_text(encoding="utf-8")
    first, last, _ = def_span(source, pair.function)
    return textwrap.dedent("\n".join(source.splitlines()[first - 1:last]))


def apply_pairs(root: Path, pairs: list[Pair]) -> None:
    """Replace each pair's def in the tree under ``root`` by its ``after`` (in place)."""
    by_path: dict[str, list[Pair]] = {}
    for pair in pairs:
        if not pair.indirect:
            by_path.setdefault(pair.path, []).append(pair)
    for path, file_pairs in by_path.items():
        file = root / path
        source = file.read_text(encoding="utf-8")
        spans = sorted(((def_span(source, p.function), p) for p in file_pairs), key=lambda s: -s[0][0])
        lines = source.splitlines()
        for (first, last, indent), pair in spans:
            assert pair.after is not None
            body = textwrap.indent(textwrap.dedent(pair.after).strip("\n"), " " * indent).splitlines()
            lines[first - 1:last] = body
        file.write_text("\n".join(lines) + "\n", encoding="utf-8")
