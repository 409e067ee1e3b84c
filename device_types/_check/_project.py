"""Sources: which files are checked, what module each one is, and the modules they import.

A file's module name comes from walking up ``__init__.py`` files (as mypy does); the
directory above the top package is a search root. Modules the checked files import from the
same project are loaded on demand (parsed, never reported on), so a helper defined in a
file the user did not name still counts. Nothing here raises on bad input: a file that
cannot be read or parsed becomes a ``SourceProblem`` and an empty module.
"""

from __future__ import annotations

import ast
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

__all__ = ["MAX_FILE_BYTES", "Module", "Project", "SourceProblem", "discover"]

#: Larger files are skipped with a message: generated tables, not backend code.
MAX_FILE_BYTES = 4 * 1024 * 1024
_SKIP_DIRS = frozenset({".git", ".hg", ".svn", "__pycache__", ".venv", "venv", "node_modules", ".tox", ".mypy_cache",
                        "build", "dist", ".eggs"})


@dataclass(frozen=True)
class SourceProblem:
    """A file that could not be analysed: reported once, never a traceback."""

    path: str
    line: int
    message: str


@dataclass
class Module:
    name: str
    path: str
    tree: ast.Module
    source_lines: list[str]
    is_package: bool
    #: name -> dotted target ("numpy", "pkg.mod.func"), from the module's top-level imports.
    imports: dict[str, str] = field(default_factory=dict)
    #: top-level functions and classes by name.
    defs: dict[str, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef] = field(default_factory=dict)
    #: top-level ``name = other`` aliases (``mm = matmul``).
    aliases: dict[str, ast.expr] = field(default_factory=dict)
    star_imports: list[str] = field(default_factory=list)

    def line_text(self, line: int) -> str:
        return self.source_lines[line - 1] if 0 < line <= len(self.source_lines) else ""


def module_name_for(path: str) -> tuple[str, str]:
    """(search root, dotted module name) of a ``.py`` file, from its ``__init__.py`` parents."""
    path = os.path.abspath(path)
    directory, filename = os.path.split(path)
    stem = filename[:-3] if filename.endswith(".py") else filename
    parts = [] if stem == "__init__" else [stem]
    while os.path.isfile(os.path.join(directory, "__init__.py")):
        directory, package = os.path.split(directory)
        parts.insert(0, package)
    return directory, ".".join(parts)


def discover(paths: Iterable[str]) -> tuple[list[str], list[SourceProblem]]:
    """The ``.py`` files named or found under the named directories (sorted, no duplicates)."""
    files: list[str] = []
    problems: list[SourceProblem] = []
    for given in paths:
        if os.path.isdir(given):
            for directory, dirs, names in os.walk(given):
                dirs[:] = sorted(d for d in dirs if d not in _SKIP_DIRS and not d.startswith("."))
                files.extend(os.path.join(directory, n) for n in sorted(names) if n.endswith(".py"))
        elif os.path.isfile(given):
            files.append(given)
        else:
            problems.append(SourceProblem(given, 0, "no such file or directory"))
    seen: dict[str, str] = {}
    for f in files:
        seen.setdefault(os.path.abspath(f), f)
    return sorted(seen.values()), problems


class Project:
    """The checked files plus every module of the same project that they import."""

    def __init__(self, display_root: str = ".") -> None:
        self.display_root = os.path.abspath(display_root)
        self.roots: list[str] = []
        self.modules: dict[str, Module] = {}
        self.problems: list[SourceProblem] = []
        self._missing: set[str] = set()

    # --- loading -----------------------------------------------------------------------

    def add_file(self, path: str) -> Module | None:
        root, name = module_name_for(path)
        if root not in self.roots:
            self.roots.append(root)
        if name in self.modules:
            return self.modules[name]
        return self._load(name, os.path.abspath(path))

    def module(self, name: str) -> Module | None:
        """The project module ``name``, loaded on first use; None outside the project."""
        found = self.modules.get(name)
        if found is not None or name in self._missing:
            return found
        rel = name.replace(".", os.sep)
        for root in self.roots:
            for candidate in (os.path.join(root, rel + ".py"), os.path.join(root, rel, "__init__.py")):
                if os.path.isfile(candidate):
                    return self._load(name, candidate)
        self._missing.add(name)
        return None

    def display(self, path: str) -> str:
        rel = os.path.relpath(path, self.display_root)
        return path if rel.startswith("..") else rel

    def _load(self, name: str, path: str) -> Module | None:
        shown = self.display(path)
        try:
            size = os.path.getsize(path)
            if size > MAX_FILE_BYTES:
                self.problems.append(SourceProblem(shown, 0, f"skipped: {size // 1024} KiB is over the "
                                                   f"{MAX_FILE_BYTES // 1024 // 1024} MiB limit for one file"))
                return self._empty(name, path)
            with open(path, "rb") as handle:
                raw = handle.read()
        except OSError as exc:
            self.problems.append(SourceProblem(shown, 0, f"cannot be read: {exc.strerror or exc}"))
            return self._empty(name, path)
        if b"\0" in raw:
            self.problems.append(SourceProblem(shown, 0, "skipped: not a text file (it holds NUL bytes)"))
            return self._empty(name, path)
        try:
            tree = ast.parse(raw, filename=path)
        except SyntaxError as exc:
            where = exc.lineno or 0
            self.problems.append(SourceProblem(shown, where, f"syntax error, file not analysed: {exc.msg}"))
            return self._empty(name, path)
        except (ValueError, RecursionError, MemoryError) as exc:
            self.problems.append(SourceProblem(shown, 0, f"cannot be parsed, file not analysed: {exc}"))
            return self._empty(name, path)
        text = raw.decode("utf-8", errors="replace")
        module = Module(name, path, tree, text.splitlines(), path.endswith("__init__.py"))
        _index(module)
        self.modules[name] = module
        return module

    def _empty(self, name: str, path: str) -> Module:
        module = Module(name, path, ast.Module(body=[], type_ignores=[]), [], path.endswith("__init__.py"))
        self.modules[name] = module
        return module


def resolve_relative(module: Module, level: int, target: str | None) -> str:
    """The absolute module named by ``from <level dots><target> import ...`` inside ``module``."""
    if level == 0:
        return target or ""
    parts = module.name.split(".")
    base = parts if module.is_package else parts[:-1]
    if level > 1:
        base = base[: len(base) - (level - 1)] if level - 1 <= len(base) else []
    return ".".join([*base, target] if target else base)


def import_bindings(module: Module, node: ast.Import | ast.ImportFrom) -> Iterator[tuple[str, str]]:
    """(local name, dotted target) for each name an import statement binds."""
    if isinstance(node, ast.Import):
        for alias in node.names:
            if alias.asname:
                yield alias.asname, alias.name
            else:
                head = alias.name.partition(".")[0]
                yield head, head
        return
    source = resolve_relative(module, node.level, node.module)
    for alias in node.names:
        if alias.name == "*":
            continue
        yield alias.asname or alias.name, f"{source}.{alias.name}" if source else alias.name


def _index(module: Module) -> None:
    for node in module.tree.body:
        for stmt in _top_level(node):
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                module.defs.setdefault(stmt.name, stmt)
            elif isinstance(stmt, (ast.Import, ast.ImportFrom)):
                if isinstance(stmt, ast.ImportFrom) and any(a.name == "*" for a in stmt.names):
                    module.star_imports.append(resolve_relative(module, stmt.level, stmt.module))
                for local, target in import_bindings(module, stmt):
                    module.imports.setdefault(local, target)
            elif isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
                if isinstance(stmt.value, (ast.Name, ast.Attribute)):
                    module.aliases.setdefault(stmt.targets[0].id, stmt.value)


def _top_level(node: ast.stmt) -> Iterator[ast.stmt]:
    """Top-level statements, looking inside ``if``/``try`` blocks (optional imports)."""
    if isinstance(node, ast.If):
        for child in (*node.body, *node.orelse):
            yield from _top_level(child)
    elif isinstance(node, ast.Try):
        for child in (*node.body, *node.orelse, *node.finalbody):
            yield from _top_level(child)
        for handler in node.handlers:
            for child in handler.body:
                yield from _top_level(child)
    else:
        yield node
