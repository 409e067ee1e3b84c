"""Sources: which files are checked, what module each one is, and the modules they import.

A file's module name comes from walking up ``__init__.py`` files (as mypy does); the
directory above the top package is a search root. Modules the checked files import from the
same project are loaded on demand, so a helper defined in a file the user did not name still
counts. A module is known by its *outline* (imports, aliases, defs, each function's
parameters and source hash), which the incremental cache keeps; its syntax tree is parsed
only when a function of it has to be walked. Nothing here raises on bad input: a file that
cannot be read or parsed becomes a ``SourceProblem`` and an empty module.
"""

from __future__ import annotations

import ast
import gc
import io
import os
import tokenize
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field, replace

try:  # hashlib's blake2b itself, without hashlib's loading of OpenSSL (about 3 ms of every run)
    from _blake2 import blake2b
except ImportError:  # another Python than CPython
    from hashlib import blake2b

from .._files import NotRegular, TooLarge, read_regular, split_lines

__all__ = ["MAX_FILE_BYTES", "TREE_BUDGET", "Def", "Edit", "FunctionInfo", "Module", "Project", "SourceProblem",
           "changed_meanings", "collect_idle", "discover", "edit_between", "file_stamp", "gc_paused", "import_bindings", "meaning"]

#: Larger files are skipped with a message: generated tables, not backend code.
MAX_FILE_BYTES = 4 * 1024 * 1024
#: Bytes of source whose syntax trees a run holds at once (``Project``): about 25 times as much
#: memory in trees; the module being walked is held whatever its size.
TREE_BUDGET: int | None = 4 * 1024 * 1024
_SKIP_DIRS = frozenset({"__pycache__", "node_modules", "build", "dist", "site-packages"})


@dataclass(frozen=True)
class SourceProblem:
    """A file that could not be analysed: reported once, never a traceback."""

    path: str
    line: int
    message: str


@dataclass(frozen=True)
class Edit:
    """Old lines ``first``..``last`` (1-based; ``last < first`` for a pure insertion) were
    replaced, and everything after them moved by ``delta``."""

    first: int
    last: int
    delta: int


def edit_between(old: list[str], new: list[str]) -> Edit:
    """The one block of ``old``'s lines that ``new`` replaced: the longest common prefix,
    then the longest common suffix of what is left (compared a slice of ``_STRIDE`` lines at
    a time, then line by line: a file of 10,000 lines takes a few dozen slice tests)."""
    limit = min(len(old), len(new))
    lo = 0
    while lo + _STRIDE <= limit and old[lo:lo + _STRIDE] == new[lo:lo + _STRIDE]:
        lo += _STRIDE
    while lo < limit and old[lo] == new[lo]:
        lo += 1
    tail, old_end, new_end = 0, len(old), len(new)
    while tail + _STRIDE <= limit - lo and \
            old[old_end - tail - _STRIDE:old_end - tail] == new[new_end - tail - _STRIDE:new_end - tail]:
        tail += _STRIDE
    while tail < limit - lo and old[-1 - tail] == new[-1 - tail]:
        tail += 1
    return Edit(lo + 1, len(old) - tail, len(new) - len(old))


_STRIDE = 256



@dataclass(frozen=True)
class FunctionInfo:
    """A function (or method, or nested def) as the analysis sees it, without its body."""

    module: str
    qualname: str
    path: str
    class_name: str | None
    #: Parameter names in call order (``self`` included for methods).
    params: tuple[str, ...]
    vararg: str | None
    kwarg: str | None
    line: int
    #: Hash of the function's source text: an unchanged function keeps its cached facts.
    source_hash: str
    #: Keyword-only parameter names (indices after ``params`` and the ``*args`` slot).
    kwonly: tuple[str, ...] = ()
    #: Parameters whose default is a literal (``op="sum"``, ``dim=None``): name -> value.
    #: A call that omits them passes that value, which decides the callee's branches.
    defaults: tuple[tuple[str, object], ...] = ()

    @property
    def key(self) -> tuple[str, str]:
        return self.module, self.qualname

    @property
    def short(self) -> str:
        return self.qualname.split(".<locals>.")[-1].rpartition(".")[2]


@dataclass
class Def:
    """A top-level or class-level def: a function, or a class with its members and bases."""

    kind: str  # "function" | "class"
    members: dict[str, Def] = field(default_factory=dict)
    bases: list[ast.expr] = field(default_factory=list)


@dataclass
class Module:
    """One module's outline (imports, defs, functions, spans), and what a run holds of its text."""

    name: str
    path: str
    is_package: bool
    #: (size, content hash) of the file when it was read (``file_stamp``): the cache's test.
    stamp: tuple[int, int] = (0, 0)
    #: name -> dotted target ("numpy", "pkg.mod.func"), from the module's top-level imports.
    imports: dict[str, str] = field(default_factory=dict)
    defs: dict[str, Def] = field(default_factory=dict)
    #: top-level ``name = other`` aliases (``mm = matmul``).
    aliases: dict[str, ast.expr] = field(default_factory=dict)
    star_imports: list[str] = field(default_factory=list)
    functions: dict[str, FunctionInfo] = field(default_factory=dict)
    #: What reading or parsing the file reported: a run that reuses the outline reports it again.
    problems: tuple[SourceProblem, ...] = ()
    #: Parsed lazily; never cached.
    tree: ast.Module | None = field(default=None, repr=False, compare=False)
    lines: list[str] | None = field(default=None, repr=False, compare=False)
    #: The text it was outlined from (lines joined), so that an edit is found by a diff.
    source: str | None = field(default=None, repr=False, compare=False)
    #: (first line with decorators, last line) of each outermost function (no ``<locals>``).
    spans: dict[str, tuple[int, int]] = field(default_factory=dict, repr=False, compare=False)
    #: qualname -> def node (built on first use, or only the re-parsed function's when
    #: ``partial``); never cached.
    nodes: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] | None = field(default=None, repr=False, compare=False)
    partial: bool = field(default=False, repr=False, compare=False)
    #: Lines that the def of an outermost function must still move by (``_patch`` moves
    #: the defs below an edit lazily: shifting a whole tree costs more than re-parsing it).
    offsets: dict[str, int] = field(default_factory=dict, repr=False, compare=False)

    def current_lines(self) -> list[str] | None:
        if self.lines is not None:
            return self.lines
        if self.source is None:
            return None
        return self.source.split("\n") if self.source else []


@contextmanager
def gc_paused(freeze: bool = True) -> Iterator[None]:
    """Python's cycle collector off while the check runs.

    A run allocates millions of objects that live until it ends (syntax trees, facts,
    summaries) and makes almost no reference cycles; the collector would re-scan the growing
    heap again and again for nothing: half of a cold run's CPU time on candle's backends
    (benchmarks/lsp_bench.py). Reference counting still frees everything else. At the end
    what the run made is frozen (``gc.freeze``) before the collector is back on: else its
    first pass would scan all of it once more (0.5-0.7 s on candle), for the same nothing.

    ``freeze=False`` is for a long-lived process (the language server): the few cycles a
    run makes would stay forever once frozen (about 55 MB an edit on a 10k-function buffer,
    ``benchmarks/lsp_memory.py``); it collects instead, when it is idle (``collect_idle``)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if freeze:
            gc.freeze()
        if enabled:
            gc.enable()


def collect_idle() -> None:
    """A full collection: what a run left in cycles (the server calls it after publishing)."""
    gc.collect()


def module_name_for(path: str) -> tuple[str, str]:
    """(search root, dotted module name) of a ``.py`` file, from its ``__init__.py`` parents.

    A directory without ``__init__.py`` inside a package is a namespace portion of it (PEP
    420: ``pkg/_backends/mps/ops.py`` imports as ``pkg._backends.mps.ops`` with no
    ``mps/__init__.py``), so it does not end the package, unless it is a project's own top
    (``_PROJECT_MARKERS``); a namespace package at the top has no marker to find its root
    by, and its files are named from their own directory."""
    path = os.path.abspath(path)
    directory, filename = os.path.split(path)
    stem = filename[:-3] if filename.endswith(".py") else filename
    parts = [] if stem == "__init__" else [stem]
    while _in_package(directory):
        directory, package = os.path.split(directory)
        parts.insert(0, package)
    return directory, ".".join(parts)


#: A directory holding one of these is a project's top: never a namespace portion of the
#: package around it (a test project kept inside another project's tests, say).
_PROJECT_MARKERS = ("pyproject.toml", "setup.py", "setup.cfg")


def _in_package(directory: str) -> bool:
    """A package's directory, or a namespace portion of the package above it."""
    if os.path.isfile(os.path.join(directory, "__init__.py")):
        return True
    parent = os.path.dirname(directory)
    return parent != directory and os.path.isfile(os.path.join(parent, "__init__.py")) and not any(
        os.path.isfile(os.path.join(directory, marker)) for marker in _PROJECT_MARKERS)


def discover(paths: Iterable[str]) -> tuple[list[str], list[SourceProblem]]:
    """The ``.py`` files named or found under the named directories (sorted, no duplicates)."""
    files: list[str] = []
    problems: list[SourceProblem] = []
    for given in paths:
        if os.path.isdir(given):
            top = os.path.realpath(given)
            for directory, dirs, names in os.walk(given):  # symlinked directories are not entered
                dirs[:] = sorted(d for d in dirs if d not in _SKIP_DIRS and not d.startswith("."))
                for n in sorted(names):
                    path = os.path.join(directory, n)
                    if not n.endswith(".py"):
                        continue
                    if os.path.islink(path) and not _inside(os.path.realpath(path), top):
                        problems.append(SourceProblem(path, 0, f"skipped: a symlink that leaves {given} "
                                                      "(name the file itself to check it)"))
                        continue
                    files.append(path)
        elif os.path.isfile(given):
            files.append(given)
        elif os.path.exists(given):
            problems.append(SourceProblem(given, 0, "skipped: not a regular file"))
        else:
            problems.append(SourceProblem(given, 0, "no such file or directory"))
    seen: dict[str, str] = {}
    for f in files:
        seen.setdefault(os.path.abspath(f), f)
    return sorted(seen.values()), problems


def _inside(path: str, top: str) -> bool:
    return path == top or path.startswith(top.rstrip(os.sep) + os.sep)


class Project:
    """The checked files plus every module of the same project that they import.

    Syntax trees are the bulk of a run's memory (about 25 bytes of tree per byte of source),
    so few are held at once: a file given to ``add_file`` is read at once but parsed only
    when its outline is first needed (``opened``: ``Analysis.run`` opens the given modules
    one at a time and walks each one's functions while its tree is fresh), and the trees
    parsed are kept for the most recently used modules only, up to ``tree_budget`` bytes of
    their source (``TREE_BUDGET`` when the project is made; None: every tree is kept). A
    function of a module whose tree was let go is parsed again alone, from the text its
    outline was made from (``function_node``).
    """

    def __init__(self, display_root: str = ".", cached: Mapping[str, Module] | None = None,
                 overlay: dict[str, bytes] | None = None) -> None:
        self.display_root = os.path.abspath(display_root)
        #: absolute path -> text to use instead of the file's (an editor's unsaved buffers)
        self.overlay = overlay or {}
        self.roots: list[str] = []
        self.modules: dict[str, Module] = {}
        #: modules whose file changed since the cache was written (or were never cached)
        self.changed: set[str] = set()
        #: path -> the edit of each changed file that was in the cache (None: its old text is
        #: unknown), for carrying cached facts into the new lines (``_lines``)
        self.edits: dict[str, Edit | None] = {}
        self.tree_budget = TREE_BUDGET
        #: The module whose functions a run is walking (``Analysis.run``): its tree is held
        #: while it is, whatever else is parsed meanwhile.
        self.walking: str | None = None
        #: Whole-file parses and single-function parses so far (``benchmarks/memory_large_tree.py``).
        self.parses = 0
        self.function_parses = 0
        self._cached = cached or {}
        self._missing: set[str] = set()
        self._shown: dict[str, str] = {}
        self._rewritten: dict[str, bool] = {}
        #: path -> its ``file_stamp``, read once a run (``stamp``)
        self._stamps: dict[str, tuple[int, int]] = {}
        #: What reading and parsing reported, one group per module in the order the modules
        #: were added (a module parsed later still reports in its place), then one per
        #: ``report``: ``problems`` in the order a run that parsed each file when it read it
        #: would have found them.
        self._groups: list[list[SourceProblem]] = []
        #: Modules added but not parsed yet: their bytes and their group of problems.
        self._pending: dict[str, tuple[bytes, list[SourceProblem]]] = {}
        #: name -> (the module, the bytes it counts) for each module whose tree (or some of its
        #: defs) and lines are held, least recently used first.
        self._held: dict[str, tuple[Module, int]] = {}
        self._held_bytes = 0
        #: The order each module was added in (``order``).
        self._order: dict[str, int] = {}

    @property
    def problems(self) -> list[SourceProblem]:
        """Every file problem so far, in order (a new list: add with ``report``)."""
        return [problem for group in self._groups for problem in group]

    def report(self, problem: SourceProblem) -> None:
        self._groups.append([problem])

    def order(self, name: str) -> int:
        """When module ``name`` was added, among the modules of this project (-1: never)."""
        return self._order.get(name, -1)

    # --- what changed since the cache --------------------------------------------------

    def rewritten(self, name: str) -> bool:
        """Whether module ``name``'s file is not the one the cache outlined (changed, new, or
        gone); a file whose stamp is the cached one is not opened to tell."""
        known = self._rewritten.get(name)
        if known is None:
            if name not in self.modules and name not in self._missing:
                stamp_of = getattr(self._cached, "stamp_of", None)
                held = stamp_of(name) if stamp_of is not None else _path_and_stamp(self._cached.get(name))
                if held is not None and held[0] not in self.overlay and self.stamp(held[0]) == held[1]:
                    known = self._rewritten[name] = False
                    return known
            module = self.module(name)
            cached = name in self._cached
            known = self._rewritten[name] = name in self.changed if module is not None else cached
        return known

    def stamp(self, path: str) -> tuple[int, int]:
        """``file_stamp(path)`` (an absolute path), read once in the project's run: an
        unchanged file is stamped when the run decides to leave it unopened, and again when
        a walk asks whether it changed."""
        known = self._stamps.get(path)
        if known is None:
            known = self._stamps[path] = file_stamp(path)
        return known

    def cached_outline(self, name: str) -> Module | None:
        return self._cached.get(name)

    # --- loading -----------------------------------------------------------------------

    def add_root(self, root: str) -> None:
        """A directory that module names are looked up under (a checked file's top)."""
        if root not in self.roots:
            self.roots.append(root)

    def add_file(self, path: str) -> Module:
        """The module of ``path``; a file not seen before is read now and parsed when its
        outline is first needed (``opened``)."""
        root, name = module_name_for(path)
        self.add_root(root)
        return self.modules.get(name) or self._load(name, os.path.abspath(path), later=True)

    def opened(self, module: Module) -> Module:
        """``module`` with its outline: parsed now if ``add_file`` left it for later."""
        if module.name in self._pending and self.modules.get(module.name) is module:
            self._open_pending(module)
        return module

    def module(self, name: str) -> Module | None:
        """The project module ``name``, loaded on first use; None outside the project."""
        found = self.modules.get(name)
        if found is not None:
            if name in self._pending:
                self._open_pending(found)
            return found
        if name in self._missing:
            return None
        rel = name.replace(".", os.sep)
        for root in self.roots:
            for candidate in (os.path.join(root, rel + ".py"), os.path.join(root, rel, "__init__.py")):
                if os.path.isfile(candidate):
                    return self._load(name, candidate)
        self._missing.add(name)
        return None

    def function_node(self, module: Module, qualname: str) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
        """The def of ``qualname`` in ``module``: from its tree (indexed on first use), or,
        when the tree is not held, from a parse of that function's own lines."""
        index = module.nodes
        if index is None or (module.partial and qualname not in index):
            if module.tree is None and self._parse_function(module, qualname):
                index = module.nodes
                assert index is not None
            else:
                # a whole parse of the current text: every line number is current
                module.offsets, module.partial = {}, False
                index = module.nodes = dict(_def_nodes(self.tree(module).body, ""))
        else:
            self._use(module)
        if module.offsets:
            unit = qualname.split(".<locals>.", 1)[0]
            offset = module.offsets.pop(unit, 0)
            if offset and unit in index:
                ast.increment_lineno(index[unit], offset)
        return index.get(qualname)

    def tree(self, module: Module) -> ast.Module:
        if module.tree is None:
            text = module.current_lines()
            if text is not None:  # the text it was outlined from: the tree matches the outline
                self._parse_text(module, text)
            else:
                group: list[SourceProblem] = []
                self._groups.append(group)
                self._parse(module, self._read(module.path) or b"", group)
            self._hold(module)
        else:
            self._use(module)
        assert module.tree is not None
        return module.tree

    def source_lines(self, module: Module) -> list[str]:
        if module.lines is None:
            raw = self._read(module.path, report=False) or b""
            module.lines = split_lines(decode_source(raw))
        return module.lines

    def display(self, path: str) -> str:
        shown = self._shown.get(path)
        if shown is None:  # asked once per function and finding: relpath is not cheap
            rel = os.path.relpath(path, self.display_root)
            shown = self._shown[path] = path if rel.startswith("..") else rel
        return shown

    def _load(self, name: str, path: str, later: bool = False) -> Module:
        """Read ``path`` as module ``name``: the cached outline when the file is the one the
        cache outlined, else a patch of it (an edit inside one function), else a parse (left
        for ``opened`` when ``later``)."""
        self._order.setdefault(name, len(self._order))
        group: list[SourceProblem] = []
        self._groups.append(group)
        given = self.overlay.get(path)
        raw: bytes | None
        if given is not None:
            raw, stamp = given, _text_stamp(given)
        else:
            # a file stamped this run as the one the cache outlined (left unopened, then woken)
            # is not read again: its outline is the cached one
            raw, stamp = None, self._stamps.get(path, (0, 0))
            cached = self._cached.get(name)
            if cached is None or cached.path != path or cached.stamp != stamp or stamp == (0, 0):
                raw, why, stamp = read_source(path)
                if why is not None:
                    group.append(SourceProblem(self.display(path), 0, why))
                self._stamps[path] = stamp
        cached = self._cached.get(name)
        if cached is not None and cached.path == path and cached.stamp == stamp and stamp != (0, 0):
            self.modules[name] = cached
            group.extend(cached.problems)
            if cached.lines is not None or cached.nodes is not None:  # a session's: its tree counts here too
                self._hold(cached)
            return cached
        if cached is not None and cached.path == path:
            old_lines, new_lines = cached.current_lines(), _text_lines(raw)
            edit = None
            if old_lines is None or new_lines is None:
                self.edits[path] = None
            elif new_lines != old_lines:
                edit = self.edits[path] = edit_between(old_lines, new_lines)
            patched = _patch(cached, stamp, old_lines, new_lines, edit) if raw is not None else None
            if patched is not None:
                self.modules[name] = patched
                if edit is not None:
                    patched.problems = tuple(group)
                    self.changed.add(name)
                else:  # the same text: what it reported still holds
                    group.extend(patched.problems)
                if patched.lines is not None:
                    self._hold(patched)
                return patched
        module = Module(name, path, path.endswith("__init__.py"), stamp)
        self.modules[name] = module
        self.changed.add(name)
        if raw is not None:
            if later:
                self._pending[name] = (raw, group)
                return module
            self._open(module, raw, group)
        module.problems = tuple(group)
        return module

    def _open_pending(self, module: Module) -> None:
        raw, group = self._pending.pop(module.name)
        self._open(module, raw, group)
        module.problems = tuple(group)

    def _open(self, module: Module, raw: bytes, group: list[SourceProblem]) -> None:
        """Parse and outline ``module`` (its problems into ``group``); its tree is held."""
        self._parse(module, raw, group)
        if module.tree is not None:
            _outline(module, module.tree)
        self._hold(module)

    # --- which trees are held ------------------------------------------------------------

    def _hold(self, module: Module) -> None:
        """``module``'s tree (or defs) and lines were just made: held, as the most recently
        used; the least recently used others are let go past ``tree_budget``."""
        budget = self.tree_budget
        if budget is None:
            return
        name = module.name
        previous = self._held.pop(name, None)
        if previous is not None:
            self._held_bytes -= previous[1]
        size = module.stamp[0]
        if size <= 0:  # an editor's buffer
            size = sum(map(len, module.lines or ()))
        self._held[name] = (module, size)
        self._held_bytes += size
        if self._held_bytes > budget:
            for victim in [n for n in self._held if n != name and n != self.walking]:
                held, held_size = self._held.pop(victim)
                self._held_bytes -= held_size
                _let_go(held)
                if self._held_bytes <= budget:
                    break

    def _use(self, module: Module) -> None:
        """``module``'s tree was used: the most recently used."""
        held = self._held.pop(module.name, None)
        if held is not None:
            self._held[module.name] = held

    def _parse_function(self, module: Module, qualname: str) -> bool:
        """Parse the outermost def holding ``qualname`` alone, from its lines (``spans``), and
        add its defs to ``module.nodes``; False when that cannot be done (no span or no
        text, a parse that fails or finds something else there, ``qualname`` not among
        the defs found): then the file is parsed whole."""
        unit = qualname.split(".<locals>.", 1)[0]
        span = module.spans.get(unit)
        if span is None:
            return False
        lines = module.lines
        if lines is None:
            lines = module.current_lines()
            if lines is None:
                return False
            module.lines = lines
        node = _parse_def(lines, span, unit.rpartition(".")[2])
        self.function_parses += 1
        if node is None:
            return False
        prefix = unit.rpartition(".")[0]
        found = dict(_def_nodes([node], f"{prefix}." if prefix else ""))
        if qualname not in found:
            return False
        if module.nodes is None or not module.partial:
            module.nodes, module.partial, module.offsets = {}, True, {}
        module.nodes.update(found)
        self._hold(module)
        return True

    def _parse_text(self, module: Module, lines: list[str]) -> None:
        """A whole parse of the text ``module`` was outlined from (it was parsed before: no
        problem to report, unless it fails now, which is reported as it happens)."""
        group: list[SourceProblem] = []
        self._groups.append(group)
        self.parses += 1
        try:
            module.tree = ast.parse("\n".join(lines), filename=module.path)
        except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
            group.append(SourceProblem(self.display(module.path), getattr(exc, "lineno", None) or 0,
                                       f"cannot be parsed, file not analysed: {exc}"))
            module.tree = ast.Module(body=[], type_ignores=[])
        module.lines = lines

    def _read(self, path: str, report: bool = True) -> bytes | None:
        shown = self.display(path)
        given = self.overlay.get(path)
        if given is not None:
            return given
        raw, why, _ = read_source(path)
        if why is not None:
            if report:
                self.report(SourceProblem(shown, 0, why))
            return None
        return raw

    def _parse(self, module: Module, raw: bytes, group: list[SourceProblem]) -> None:
        shown = self.display(module.path)
        empty = ast.Module(body=[], type_ignores=[])
        self.parses += 1
        text, undecodable = _decoded(raw)
        module.lines = split_lines(text)
        if undecodable is not None:  # ast.parse takes such bytes in comments; Python refuses to import them
            line, message = undecodable
            group.append(SourceProblem(shown, line, f"{message}, file not analysed"))
            module.tree = empty
            return
        try:
            module.tree = ast.parse(raw, filename=module.path)
        except SyntaxError as exc:
            group.append(SourceProblem(shown, exc.lineno or 0, f"syntax error, file not analysed: {exc.msg}"))
            module.tree = empty
        except (ValueError, RecursionError, MemoryError) as exc:
            group.append(SourceProblem(shown, 0, f"cannot be parsed, file not analysed: {exc}"))
            module.tree = empty


def _let_go(module: Module) -> None:
    """Drop ``module``'s tree, its defs and its lines (kept as one text, to parse again from)."""
    if module.lines is not None:
        if module.source is None:
            module.source = "\n".join(module.lines)
        module.lines = None
    module.tree, module.nodes, module.partial, module.offsets = None, None, False, {}


def _parse_def(lines: list[str], span: tuple[int, int], name: str) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """The def at ``span`` (first line with its decorators, last line) of ``lines``, parsed
    alone with its line numbers and columns as in the whole file; None when its lines do not
    hold exactly one def of that name with that span."""
    start, end = span
    segment = lines[start - 1:end]
    if not segment:
        return None
    indented = segment[0][:1] in (" ", "\t")
    # an indented def goes in an ``if`` on the line above it, which keeps its columns; blank
    # lines put the def at its own line, cheaper than moving every node of it after the parse
    # (``ast.increment_lineno``) up to some thousands of lines down a file
    above = start - 2 if indented else start - 1
    blank = above if above <= _BLANK_LINES else 0
    head = "\n" * blank + ("if 1:\n" if indented else "")
    try:
        body = ast.parse(head + "\n".join(segment) + "\n").body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    if indented:
        if len(body) != 1 or not isinstance(body[0], ast.If):
            return None
        body = body[0].body
    if len(body) != 1 or not isinstance(body[0], (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    node = body[0]
    if above > blank:
        ast.increment_lineno(node, above - blank)
    return node if node.name == name and _span(node) == span else None


#: Up to this many lines above a def, ``_parse_def`` puts blank lines there (a parse of 10,000
#: blank lines costs about as much as moving a small def's nodes).
_BLANK_LINES = 10_000


def read_source(path: str) -> tuple[bytes | None, str | None, tuple[int, int]]:
    """(the file's bytes, None, its stamp), or (None, why it is not read, its stamp): only a
    regular file of at most ``MAX_FILE_BYTES`` (``_files.read_regular``: a FIFO or
    ``/dev/zero`` named ``*.py`` is refused, never waited on or read without end), with no
    NUL byte. The stamp (``file_stamp``) is (0, 0) when nothing could be read."""
    try:
        raw = read_regular(path, MAX_FILE_BYTES)
    except TooLarge as exc:
        return None, (f"skipped: {exc.size // 1024} KiB is over the {MAX_FILE_BYTES // 1024 // 1024} MiB limit "
                      "for one file"), (exc.size, -1)
    except NotRegular:
        return None, "skipped: not a regular file", (0, 0)
    except OSError as exc:
        return None, f"cannot be read: {exc.strerror or exc}", (0, 0)
    if b"\0" in raw:
        return None, "skipped: not a text file (it holds NUL bytes)", content_stamp(raw)
    return raw, None, content_stamp(raw)


def _decoded(raw: bytes) -> tuple[str, tuple[int, str] | None]:
    """The file's text (``decode_source``'s), and (line, why) when it is not text in its
    declared encoding (PEP 263; UTF-8 by default)."""
    declared: SyntaxError | None = None
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(raw).readline)
    except SyntaxError as exc:  # a bad cookie, or the first lines are not UTF-8
        encoding, declared = "utf-8", exc
    try:
        text = raw.decode(encoding)
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        return decode_source(raw), (line, f"not valid {encoding} (byte 0x{raw[exc.start]:02x} on line {line})")
    except LookupError:
        return decode_source(raw), (1, f"unknown source encoding {encoding!r}")
    if declared is not None:
        return text, (declared.lineno or 1, f"unknown source encoding ({declared.msg})")
    return text, None


def _text_stamp(raw: bytes) -> tuple[int, int]:
    """An unsaved buffer's stamp: never equal to a file's (whose mtime is not negative)."""
    return -1, int.from_bytes(blake2b(raw, digest_size=8).digest(), "little")


def _text_lines(raw: bytes | None) -> list[str] | None:
    if raw is None or b"\0" in raw:
        return None
    try:
        return split_lines(raw.decode(_encoding(raw)))
    except (UnicodeDecodeError, LookupError):
        return None


def _encoding(raw: bytes) -> str:
    """The file's declared encoding (PEP 263; ``utf-8-sig`` with a BOM, UTF-8 by default)."""
    try:
        return tokenize.detect_encoding(io.BytesIO(raw).readline)[0]
    except SyntaxError:
        return "utf-8"


def decode_source(raw: bytes) -> str:
    """The text of a source file as Python reads it (its declared encoding; bad bytes replaced)."""
    try:
        return raw.decode(_encoding(raw), errors="replace")
    except LookupError:
        return raw.decode("utf-8", errors="replace")


def _patch(old: Module, stamp: tuple[int, int], old_lines: list[str] | None, new_lines: list[str] | None,
           edit: Edit | None) -> Module | None:
    """``old`` after an edit that stays inside one function, re-parsing only that function's
    text; None when the edit is anything else (then the whole file is parsed).

    ``edit`` is the diff of the text ``old`` was outlined from (kept in the cache) against
    the new one (``edit_between``; None: the same text). Functions below it keep their
    facts, moved (``_lines``). When ``old``'s tree is in memory (a
    session) the new def takes the old one's place in it and the defs below move lazily
    (``Module.offsets``); otherwise only the new def is known (``partial``) and the file is
    parsed whole if another function of it has to be walked."""
    if old_lines is None or new_lines is None:
        return None
    if edit is None:  # the same text (a touch, or a save without a change)
        return _moved(old, stamp, new_lines)
    first, last, delta = edit.first, edit.last, edit.delta
    inside = [(q, span) for q, span in old.spans.items()
              if (span[0] < first <= span[1] if last < first else span[0] <= first and last <= span[1])]
    if len(inside) != 1:
        return None
    qualname, (start, end) = inside[0]
    new_node = _parse_def(new_lines, (start, end + delta), qualname.rpartition(".")[2])
    if new_node is None:
        return None
    prefix = qualname.rpartition(".")[0]
    prefix = f"{prefix}." if prefix else ""
    fresh_nodes = dict(_def_nodes([new_node], prefix))
    in_memory = old.tree is not None and old.lines is not None
    if in_memory:
        if old.nodes is None:
            old.nodes = dict(_def_nodes(old.tree.body, ""))  # type: ignore[union-attr]
        replaced = old.nodes.get(qualname)
        if replaced is None or type(replaced) is not type(new_node) or not _replace(old.tree.body, replaced, new_node):  # type: ignore[union-attr]
            return None
    module = _moved(old, stamp, new_lines)
    owner = old.functions.get(qualname)
    fresh = list(_functions(module, new_lines, [new_node], prefix, owner.class_name if owner is not None else None))
    functions: dict[str, FunctionInfo] = {}
    for name, info in old.functions.items():
        if name == qualname:
            functions.update((f.qualname, f) for f in fresh)
        elif name.startswith(qualname + ".<locals>."):
            continue
        elif delta and info.line > end:
            functions[name] = replace(info, line=info.line + delta)
        else:
            functions[name] = info
    module.functions = functions
    module.spans = {q: (span if span[0] <= end else (span[0] + delta, span[1] + delta))
                    for q, span in old.spans.items()}
    module.spans[qualname] = (start, end + delta)
    if in_memory:
        assert old.nodes is not None
        nodes = {k: v for k, v in old.nodes.items() if k != qualname and not k.startswith(qualname + ".<locals>.")}
        nodes.update(fresh_nodes)
        offsets = {k: v for k, v in old.offsets.items() if k != qualname}
        if delta:
            for name, (span_start, _) in module.spans.items():
                if span_start > end + delta:
                    offsets[name] = offsets.get(name, 0) + delta
        module.nodes, module.offsets, module.partial = nodes, {k: v for k, v in offsets.items() if v}, False
    else:
        module.tree, module.nodes, module.offsets, module.partial = None, fresh_nodes, {}, True
    return module


def _moved(old: Module, stamp: tuple[int, int], lines: list[str]) -> Module:
    module = replace(old, stamp=stamp, lines=lines, source=None)
    module.nodes, module.offsets, module.partial = old.nodes, dict(old.offsets), old.partial
    return module


def _replace(body: list[ast.stmt], old: ast.stmt, new: ast.stmt) -> bool:
    """Put ``new`` where ``old`` is, in ``body`` or the blocks and classes ``_flat`` looks into."""
    for index, node in enumerate(body):
        if node is old:
            body[index] = new
            return True
        if isinstance(node, ast.ClassDef):
            if _replace(node.body, old, new):
                return True
        elif isinstance(node, (ast.If, ast.Try, ast.With, ast.AsyncWith)) or node.__class__.__name__ == "TryStar":
            for name in ("body", "orelse", "finalbody"):
                if _replace(getattr(node, name, []), old, new):
                    return True
            for handler in getattr(node, "handlers", []):
                if _replace(handler.body, old, new):
                    return True
    return False


def _path_and_stamp(module: Module | None) -> tuple[str, tuple[int, int]] | None:
    return None if module is None else (module.path, module.stamp)


def meaning(module: Module | None, name: str) -> object:
    """What a lookup of ``name`` in ``module`` finds, as a value to compare between two
    outlines of it: "" is the module itself, "#q" its function ``q`` (its parameters), any
    other name what the module binds it to (a def with its members, an import, an alias,
    else the star imports it may come from). A walk that looked names up is valid while
    each means what it meant (``_solver``)."""
    if module is None:
        return None
    if not name:
        return True
    if name[0] == "#":
        info = module.functions.get(name[1:])
        return None if info is None else (info.params, info.vararg, info.kwarg, info.kwonly, info.defaults,
                                          info.class_name)
    definition = module.defs.get(name)
    alias = module.aliases.get(name)
    target = module.imports.get(name)
    if definition is None and alias is None and target is None:
        return tuple(module.star_imports)
    return (_shape(definition) if definition is not None else None, target,
            ast.dump(alias) if alias is not None else None)


def changed_meanings(old: Module | None, new: Module | None) -> frozenset[str] | None:
    """The names (as ``meaning`` takes them) that mean something else in ``new`` than in
    ``old``; None when any name may (the module came or went, or its star imports changed)."""
    if old is None and new is None:
        return frozenset()
    if old is None or new is None or old.star_imports != new.star_imports:
        return None
    changed: set[str] = set()
    for table in ("defs", "imports", "aliases"):  # a patched outline shares these with the old one
        if getattr(old, table) is not getattr(new, table):
            names = getattr(old, table).keys() | getattr(new, table).keys()
            changed.update(name for name in names if meaning(old, name) != meaning(new, name))
    if old.functions is not new.functions:
        names = old.functions.keys() | new.functions.keys()
        changed.update(f"#{q}" for q in names if meaning(old, f"#{q}") != meaning(new, f"#{q}"))
    return frozenset(changed)


def _shape(definition: Def) -> object:
    return (definition.kind, tuple(sorted((name, _shape(member)) for name, member in definition.members.items())),
            tuple(ast.dump(base) for base in definition.bases))


def file_stamp(path: str) -> tuple[int, int]:
    """(size, hash of the content) of a file the check can read; (0, 0) for any other.

    The content, not the modification time: a same-length edit whose time is put back (``cp
    -p``, ``rsync -a``, ``tar``) is still an edit, and the cache compares stamps."""
    return read_source(path)[2]


def content_stamp(raw: bytes) -> tuple[int, int]:
    return len(raw), int.from_bytes(blake2b(raw, digest_size=8).digest(), "little")


def resolve_relative(module_name: str, is_package: bool, level: int, target: str | None) -> str:
    """The absolute module named by ``from <level dots><target> import ...`` inside a module."""
    if level == 0:
        return target or ""
    parts = module_name.split(".")
    base = parts if is_package else parts[:-1]
    if level > 1:
        base = base[: len(base) - (level - 1)] if level - 1 <= len(base) else []
    return ".".join([*base, target] if target else base)


def import_bindings(module_name: str, is_package: bool, node: ast.Import | ast.ImportFrom) -> Iterator[tuple[str, str]]:
    """(local name, dotted target) for each name an import statement binds."""
    if isinstance(node, ast.Import):
        for alias in node.names:
            if alias.asname:
                yield alias.asname, alias.name
            else:
                head = alias.name.partition(".")[0]
                yield head, head
        return
    source = resolve_relative(module_name, is_package, node.level, node.module)
    for alias in node.names:
        if alias.name == "*":
            continue
        yield alias.asname or alias.name, f"{source}.{alias.name}" if source else alias.name


def _outline(module: Module, tree: ast.Module) -> None:
    lines = module.lines or []
    for stmt in _flat(tree.body):
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            module.defs[stmt.name] = _def(stmt)
        elif isinstance(stmt, (ast.Import, ast.ImportFrom)):
            if isinstance(stmt, ast.ImportFrom) and any(a.name == "*" for a in stmt.names):
                module.star_imports.append(resolve_relative(module.name, module.is_package, stmt.level, stmt.module))
            for local, target in import_bindings(module.name, module.is_package, stmt):
                module.imports.setdefault(local, target)
        elif isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            # a name for another (``mm = matmul``), or a constant (``CPU = "cpu"``,
            # ``HOST = torch.device("cpu")``): what a device argument may be spelled as
            if isinstance(stmt.value, (ast.Name, ast.Attribute)) or _is_constant(stmt.value):
                module.aliases.setdefault(stmt.targets[0].id, stmt.value)
    for info in _functions(module, lines, tree.body, "", None):
        module.functions[info.qualname] = info
    module.spans = {qualname: _span(node) for qualname, node in _def_nodes(tree.body, "")
                    if ".<locals>." not in qualname}


def _is_constant(value: ast.expr) -> bool:
    """A string literal, a call of literals alone (``torch.device("cpu")``), or a collection of
    names and literals (``_GPU_DTYPES = frozenset({float32_dtype, float16_dtype})``: what a test of
    membership in it means)."""
    if isinstance(value, ast.Constant):
        return isinstance(value.value, str)
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and len(value.args) == 1 \
            and value.func.id in ("frozenset", "set", "tuple") and not value.keywords:
        value = value.args[0]
    if isinstance(value, (ast.Set, ast.Tuple, ast.List)):
        return all(isinstance(e, (ast.Constant, ast.Name, ast.Attribute)) for e in value.elts)
    return isinstance(value, ast.Call) and isinstance(value.func, (ast.Name, ast.Attribute)) \
        and all(isinstance(a, ast.Constant) for a in value.args) and not value.keywords


def _span(node: ast.FunctionDef | ast.AsyncFunctionDef) -> tuple[int, int]:
    return min([node.lineno, *(d.lineno for d in node.decorator_list)]), node.end_lineno or node.lineno


def _def(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> Def:
    if not isinstance(node, ast.ClassDef):
        return Def("function")
    members: dict[str, Def] = {}
    for stmt in _flat(node.body):
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            members[stmt.name] = _def(stmt)
    return Def("class", members, list(node.bases))


def _functions(module: Module, lines: list[str], body: list[ast.stmt], prefix: str,
               class_name: str | None) -> Iterator[FunctionInfo]:
    for node in _flat(body):
        if isinstance(node, ast.ClassDef):
            yield from _functions(module, lines, node.body, f"{prefix}{node.name}.", node.name if not prefix else None)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            qualname = f"{prefix}{node.name}"
            args = node.args
            names = tuple(a.arg for a in (*args.posonlyargs, *args.args))
            start = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            text = "\n".join(lines[start - 1: node.end_lineno or node.lineno])
            digest = blake2b(text.encode("utf-8", "replace"), digest_size=12).hexdigest()
            yield FunctionInfo(module.name, qualname, module.path, class_name, names,
                               args.vararg.arg if args.vararg else None, args.kwarg.arg if args.kwarg else None,
                               node.lineno, digest, tuple(a.arg for a in args.kwonlyargs), _literal_defaults(args))
            yield from _functions(module, lines, node.body, f"{qualname}.<locals>.", None)


def _literal_defaults(args: ast.arguments) -> tuple[tuple[str, object], ...]:
    positional = [*args.posonlyargs, *args.args]
    pairs = [*zip(positional[len(positional) - len(args.defaults):], args.defaults),
             *((a, d) for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None)]
    return tuple((a.arg, d.value) for a, d in pairs
                 if isinstance(d, ast.Constant) and isinstance(d.value, (str, int, float, bool, type(None))))


def _def_nodes(body: list[ast.stmt], prefix: str) -> Iterator[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]]:
    """(qualname, def) of every function in ``body``, as ``_functions`` names them (a later
    def of the same name wins, as at run time)."""
    for node in _flat(body):
        if isinstance(node, ast.ClassDef):
            yield from _def_nodes(node.body, f"{prefix}{node.name}.")
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            qualname = f"{prefix}{node.name}"
            yield qualname, node
            yield from _def_nodes(node.body, f"{qualname}.<locals>.")


#: Blocks whose statements run in the enclosing scope (conditional defs, optional imports).
_BLOCKS = frozenset({ast.If, ast.Try, ast.With, ast.AsyncWith, *(getattr(ast, "TryStar", ast.Try),)})


def _flat(body: list[ast.stmt]) -> list[ast.stmt]:
    """Statements of a body, looking into ``if``/``try``/``with`` blocks (conditional defs, optional
    imports), in source order. A list, not a generator: it runs for every def of every module.
    With an explicit stack: a 1,000-branch ``elif`` chain is 1,000 nested ``If`` nodes."""
    if _BLOCKS.isdisjoint(map(type, body)):
        return body
    out: list[ast.stmt] = []
    stack: list[list[ast.stmt]] = [list(reversed(body))]
    while stack:
        top = stack[-1]
        if not top:
            stack.pop()
            continue
        node = top.pop()
        if node.__class__ in _BLOCKS:
            # body, orelse, finalbody, then the handlers' bodies (the order the recursive form had)
            ordered = [getattr(node, name, []) for name in ("body", "orelse", "finalbody")]
            ordered.extend(handler.body for handler in getattr(node, "handlers", []))
            for block in reversed(ordered):
                if block:
                    stack.append(list(reversed(block)))
        else:
            out.append(node)
    return out
