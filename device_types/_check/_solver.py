"""Whole-program part: names to functions, summaries to a fixpoint.

Every function of the checked files is walked (``_interpret``); a call into the project reads
the callee's summary, computing it on demand from the callee's module (loaded lazily). When a
summary changes, every caller that saw another summary of that callee is walked again, until
nothing changes: summaries only grow, so this ends, and cycles between helpers are fine.
Facts and summaries of functions whose source did not change come from the cache
(``_cache``) instead of a walk; the same rule re-walks whatever depends on what did change.
"""

from __future__ import annotations

import ast
import builtins
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .. import _semantics as sem
from .._config import Config
from .._vocabulary import HostVocabulary
from . import _codes as codes
from ._conditions import ALWAYS, NEVER, Condition, disjoin
from ._walk import Facts, interpret
from ._lines import LineMap, Unmappable
from ._records import Deferred, FunctionRecord, Key, Looked, RunTokens
from ._project import Def, FunctionInfo, Module, Project, SourceProblem, changed_meanings
from ._summary import EMPTY_SUMMARY, FallbackPath, Hop, Summary
from ._values import Atom, Param, ReadOf, Root, root_fields, roots

__all__ = ["Analysis", "BackendMap", "FunctionResult", "root_order"]

_BUILTINS = frozenset(dir(builtins))
#: Walks per function before the solver stops (a guard; summaries converge long before).
_MAX_WALKS = 50
#: Fallback paths a summary keeps; the conditions of the rest join the last one kept.
_MAX_PATHS = 8

def root_order(root: Root) -> tuple[object, ...]:
    """First root first, at one site a readback before a host build (it is the cause); a
    loop-filled container only when nothing stronger explains the path."""
    return root.weak, root.line, root.column, root.kind != "read", root_fields(root)


@dataclass(frozen=True)
class FunctionResult:
    """One analysed function: its outline, its summary and its facts."""

    info: FunctionInfo
    summary: Summary
    #: The walk's facts, or the cached record that holds them (kept as it was).
    source: Facts | FunctionRecord

    @property
    def facts(self) -> Facts:
        return self.source if isinstance(self.source, Facts) else self.source.facts

    @property
    def kept(self) -> bool:
        """Neither walked nor moved this run: its findings are the ones the cache holds."""
        return isinstance(self.source, FunctionRecord)


class BackendMap:
    """Which modules are device backends (the configuration's one longest-prefix rule), which
    are CPU backends, and which helpers the configuration declares."""

    def __init__(self, config: Config) -> None:
        self.config = config
        self.backends = config.backends
        check = config.check
        self.declared = {**{name: "upload" for name in check.uploads}, **{name: "readback" for name in check.readbacks}}
        cpu_backends = check.cpu_backends
        self.cpu_prefixes = list(cpu_backends)
        self._cpu: dict[str, bool] = {}
        self._prefix: dict[str, str | None] = {}
        if not cpu_backends:
            for prefix in self.backends:
                head, _, _ = prefix.rpartition(".")
                if head:
                    self.cpu_prefixes.append(f"{head}.cpu")

    def backend_prefix_of(self, module: str) -> str | None:
        try:
            return self._prefix[module]
        except KeyError:  # asked for every function, a handful of modules: answered once each
            prefix = self._prefix[module] = self.config.backend_prefix_of(module)
            return prefix

    def device_of(self, module: str) -> str | None:
        prefix = self.backend_prefix_of(module)
        return None if prefix is None else self.backends[prefix]

    def is_cpu_backend(self, module: str) -> bool:
        known = self._cpu.get(module)
        if known is None:
            known = self._cpu[module] = any(module == p or module.startswith(p + ".") for p in self.cpu_prefixes)
        return known


def path_order(path: FallbackPath) -> tuple[object, ...]:
    """Shortest chain first, then by where its hops are: deterministic."""
    return len(path.chain), path.chain, tuple((h.path, h.line, h.column) for h in path.hops)


def direct_path(info: FunctionInfo, root: Root, when: Condition) -> FallbackPath:
    hops = [Hop(root.path, root.line, root.column, info.qualname, root.what)]
    # each helper's call of the next, then the step inside the last helper
    hops.extend(Hop(path, line, column, function, what)
                for (path, line, column, what), function in zip(root.steps, root.chain))
    if root.chain and root.origin:  # read or built inside a helper: the helper's own step too
        origin_path, origin_line, origin_what = root.origin
        hops.append(Hop(origin_path, origin_line, 0, root.chain[-1], origin_what))
    return FallbackPath(root.code, root.what, root.path, root.line, (info.qualname, *root.chain), when, tuple(hops))


def indirect_path(info: FunctionInfo, line: int, column: int, callee: FunctionInfo,
                  inner: FallbackPath) -> FallbackPath:
    """``inner`` (a path of ``callee``, its condition already over this function's parameters),
    reached from this function's call at ``line``."""
    hop = Hop(info.path, line, column, info.qualname, f'calls "{callee.short}()"')
    return FallbackPath(inner.code, inner.what, inner.path, inner.line, (info.qualname, *inner.chain), inner.when,
                        (hop, *inner.hops))


def _distinct(paths: list[FallbackPath]) -> tuple[FallbackPath, ...]:
    """One path per distinct condition (the first, in order), none after one that is always
    taken; past ``_MAX_PATHS`` the remaining conditions widen the last path kept."""
    kept: list[FallbackPath] = []
    seen: set[Condition] = set()
    for path in paths:
        if path.when in seen or not path.when:
            continue
        if len(kept) == _MAX_PATHS:
            last = kept[-1]
            kept[-1] = FallbackPath(last.code, last.what, last.path, last.line, last.chain,
                                    disjoin(last.when, path.when), last.hops)
            continue
        seen.add(path.when)
        kept.append(path)
        if path.when == ALWAYS:
            break
    return tuple(kept)


class Analysis:
    def __init__(self, project: Project, backends: BackendMap, cached: Mapping[Key, FunctionRecord] | None = None,
                 tokens: RunTokens | None = None) -> None:
        self.project = project
        self.backends = backends
        self.records: dict[Key, FunctionRecord] = {}
        self.walks = 0
        self._cached = cached or {}
        self.tokens = tokens or RunTokens()
        self._lines = LineMap(project.edits)
        #: Cached records adopted as they are (not walked, nothing moved): kept, not rebuilt.
        self._kept: dict[Key, FunctionRecord] = {}
        #: The cached record each moved one was read as (its file's documents may serve it).
        self._moved_from: dict[Key, FunctionRecord] = {}
        self._functions: dict[str, FunctionInfo | None] = {}
        self._summaries: dict[Key, Summary] = {}
        self._facts: dict[Key, Facts] = {}
        self._seen: dict[Key, dict[Key, Summary]] = {}
        #: callee -> its callers, in the order they met it (a dict: a set's order would make
        #: the order of walks, and so their number, change from process to process)
        self._callers: dict[Key, dict[Key, None]] = {}
        self._infos: dict[Key, FunctionInfo] = {}
        self._walk_count: dict[Key, int] = {}
        self._queue: deque[Key] = deque()
        self._queued: set[Key] = set()
        self._current: Key | None = None
        #: Functions whose summary is not the cached one this run: what deferred
        #: modules are woken by.
        self._differs: set[Key] = set()
        #: Deferred modules that ``run`` had to open, in order.
        self.opened: list[str] = []
        #: Deferred modules not opened yet.
        self._waiting: dict[str, Deferred] = {}
        #: The names the walk under way looked up, by module (None: no walk).
        self._looking: dict[str, set[str]] | None = None
        self._looks: dict[Key, Looked] = {}
        #: What looking each dotted name up looked at (``function`` answers from a memo).
        self._function_looks: dict[str, dict[str, set[str]]] = {}
        self._interned: dict[object, Any] = {}
        #: Modules whose names this run compared with the cached outline's.
        self._compared: set[str] = set()
        #: Functions the walk could not finish, not reported yet (``_report_unanalysed``).
        self._unanalysed_now: list[tuple[tuple[bool, int, int], SourceProblem]] = []

    # --- the fixpoint ------------------------------------------------------------------------

    def run(self, modules: list[Module], deferred: Mapping[str, Deferred] | None = None) -> list[FunctionResult]:
        """Results for every function of ``modules``, and of each ``deferred`` module that
        had to be opened (``opened``): a deferred module is one whose file did not change
        since the cache, opened only once a summary its records saw, or a name they looked
        up, changed after its last check. The others keep what the cache holds."""
        reported: list[FunctionInfo] = []
        waiting = self._waiting = dict(deferred or {})
        for module in modules:  # one at a time: its tree is parsed, walked, and let go (``Project``)
            self.project.walking = module.name
            infos = list(self.project.opened(module).functions.values())
            reported.extend(infos)
            self._start_all(infos)
            self._fixpoint()
        self.project.walking = None
        self._report_unanalysed()
        while waiting:
            woken = [name for name, (_, saw, looked, since) in waiting.items()
                     if not self._saw_current(saw, since) or not self._still_means(looked, since)]
            if not woken:
                break
            for name in woken:
                path = waiting.pop(name)[0]
                module = self.project.opened(self.project.add_file(path))  # parsed, if its cache file is gone
                self.opened.append(module.name)
                infos = list(module.functions.values())
                reported.extend(infos)
                self._start_all(infos)
            self._fixpoint()
            self._report_unanalysed()
        for key in self._differs:
            self.tokens.summaries[key] = self.tokens.run
        for key, facts in self._facts.items():  # walked or moved: checked as of this run
            self.records[key] = FunctionRecord(self._infos[key].source_hash, self._infos[key].line, facts,
                                               self._summaries.get(key, EMPTY_SUMMARY), self._seen.get(key, {}),
                                               self._looks.get(key, ()), self.tokens.run, self._moved_from.get(key))
        self.records.update(self._kept)
        return [FunctionResult(i, self._summaries.get(i.key, EMPTY_SUMMARY),
                               self._kept.get(i.key) or self._facts.get(i.key) or Facts()) for i in reported]

    def _start_all(self, infos: list[FunctionInfo]) -> None:
        for info in infos:
            if self.backends.device_of(info.module) is not None:  # only backends get findings
                self._start(info)

    def _fixpoint(self) -> None:
        while self._queue:
            key = self._queue.popleft()
            self._queued.discard(key)
            self._walk(self._infos[key])

    def _still_means(self, looked: Looked, since: int) -> bool:
        """Whether every name of ``looked`` finds what it found in run ``since``: none changed
        meaning in a later run, this one included (a rewritten file's names are compared with
        the cached outline's, once per run)."""
        project, tokens = self.project, self.tokens
        for module_name, names in looked:
            if module_name not in self._compared:
                self._compared.add(module_name)
                if project.rewritten(module_name):
                    changed = changed_meanings(project.cached_outline(module_name), project.module(module_name))
                    if changed is None or changed:
                        tokens.names_changed(module_name, changed)
            if not tokens.name_current(module_name, names, since):
                return False
        return True

    def _current_since(self, record: FunctionRecord) -> bool:
        """Whether no summary ``record`` saw, and no name it looked up, changed after its walk."""
        return self.tokens.summaries_current(record.seen, record.run) and self._still_means(record.looked, record.run)

    def _saw_current(self, saw: frozenset[Key], since: int) -> bool:
        """Whether every summary of ``saw`` is what it was in run ``since``, this run included."""
        return saw.isdisjoint(self._differs) and self.tokens.summaries_current(saw, since)

    def _start(self, first: FunctionInfo) -> None:
        """First contact with a function: adopt its cached record, or queue a walk.

        Adopting a record brings in the callees it saw (their summaries must still be what it
        saw); an explicit stack keeps long helper chains off Python's call stack."""
        pending = [first]
        while pending:
            info = pending.pop()
            key = info.key
            if key in self._infos:
                continue
            self._infos[key] = info
            cached = record = self._cached.get(key)
            if record is not None and record.source_hash == info.source_hash and self._lines:
                record = self._carried(record, info)
            if record is None or record.source_hash != info.source_hash or record.line != info.line or any(
                    self._summaries.get(callee, seen) is not seen and self._summaries.get(callee, seen) != seen
                    for callee, seen in record.seen.items()) or not self._current_since(record):
                self._enqueue(key)
                continue
            if record is cached:
                self._kept[key] = record  # its facts stay in the file unless a walk or a finding needs them
            else:  # moved by an edit above it: what it saw was checked as of this run, so it is dated by it
                self._facts[key] = record.facts
                self._looks[key] = record.looked
                if record.origin is not None:
                    self._moved_from[key] = record.origin
            summary = record.summary
            self._seen[key] = dict(record.seen)
            for callee in record.seen:
                self._callers.setdefault(callee, {})[key] = None
            self._set_summary(key, summary)
            for callee in record.seen:
                if callee[0] in self._waiting:
                    continue  # a deferred module: opened, and its changes passed on, once it is woken
                callee_info = self._info_for(callee)
                if callee_info is not None and callee not in self._infos:
                    pending.append(callee_info)

    def _carried(self, record: FunctionRecord, info: FunctionInfo) -> FunctionRecord | None:
        """``record`` in the lines of the current sources: moved where an edit above moved
        what it names (its own lines, its callees' hops and roots), None where it names a
        line the edit replaced."""
        lines, own = self._lines, info.path
        if lines.keeps(own, record.line) and not any(lines.mentions(seen) for seen in record.seen.values()):
            return record  # its own lines did not move, nor did any its callees' summaries name
        try:
            facts = lines.facts(record.facts, own)
            seen = {callee: lines.summary(summary) for callee, summary in record.seen.items()}
            line = lines.line(own, record.line)
            # rewritten, not summarised again: the same order, since its roots are sites of
            # its own file (whose lines keep their order) and chains sort by file first
            summary = lines.summary(record.summary)
        except Unmappable:
            return None
        if line == record.line and seen == record.seen and facts == record.facts:
            return record  # nothing it names moved (the edit is below): the record as it was
        # the record read from the cache file stays its origin: the next file copies what the move left alone
        origin = record if record.from_file else record.origin
        return FunctionRecord(record.source_hash, line, facts, summary, seen, record.looked, record.run, origin)

    def _info_for(self, key: Key) -> FunctionInfo | None:
        known = self._infos.get(key)
        if known is not None:
            return known
        module = self.project.module(key[0])
        return module.functions.get(key[1]) if module is not None else None

    def _enqueue(self, key: Key) -> None:
        if key not in self._queued and self._walk_count.get(key, 0) < _MAX_WALKS:
            self._queued.add(key)
            self._queue.append(key)

    def updated_modules(self) -> set[str]:
        """Modules with a record this run made or changed (what the cache must write)."""
        return {key[0] for key, record in self.records.items() if self._cached.get(key) is not record}

    def _walk(self, info: FunctionInfo) -> None:
        key = info.key
        self._kept.pop(key, None)
        self._walk_count[key] = self._walk_count.get(key, 0) + 1
        self.walks += 1
        module = self.project.module(info.module)
        node = self.project.function_node(module, info.qualname) if module is not None else None
        self._seen[key] = {}
        previous_current, self._current = self._current, key
        previous_looking, self._looking = self._looking, {}
        try:
            # a nested def sees the imports its enclosing functions make (``import numpy as _np``)
            outer = info.qualname.split(".<locals>.")[:-1]
            enclosing = [self.project.function_node(module, ".<locals>.".join(outer[:depth + 1]))
                         for depth in range(len(outer))] if module is not None else []
            facts = interpret(info, node, self, [n for n in enclosing if n is not None]) if node is not None else Facts()
        except RecursionError:
            facts = Facts()  # absurdly deep code (a 1,000-branch elif): reported, never a clean result
            self._unanalysed(info, module, "nested too deeply for the analysis (split it up, or see the limits)")
        finally:
            self._current = previous_current
            looking, self._looking = self._looking, previous_looking
        self._looks[key] = self._frozen(looking)
        self._facts[key] = facts
        self._set_summary(key, self._summarize(info, facts))

    def _unanalysed(self, info: FunctionInfo, module: Module | None, why: str) -> None:
        """A function the walk could not finish: a "not analysed" line (``device-unanalysed``,
        exit 2), kept with its module's outline so that a cached run reports it again."""
        problem = SourceProblem(self.project.display(info.path), info.line, f'function "{info.qualname}" not analysed: {why}')
        if module is not None and problem not in module.problems:
            module.problems = (*module.problems, problem)
        functions = list(module.functions) if module is not None else []
        position = functions.index(info.qualname) if info.qualname in functions else 0
        key = (not self.is_backend(info.module), self.project.order(info.module), position)
        self._unanalysed_now.append((key, problem))

    def _report_unanalysed(self) -> None:
        """The functions found unanalysable since the last call, reported in the order of the
        modules and of their functions (backends first), whatever order they were walked in."""
        for _, problem in sorted(self._unanalysed_now, key=lambda item: item[0]):
            self.project.report(problem)
        self._unanalysed_now.clear()

    def _look(self, module: str, name: str) -> None:
        looking = self._looking
        if looking is not None:
            names = looking.get(module)
            if names is None:
                names = looking[module] = set()
            names.add(name)

    def _frozen(self, looking: dict[str, set[str]]) -> Looked:
        """``looking`` as the record keeps it, its parts shared between records (one copy
        each in a pickle)."""
        interned = self._interned
        out = []
        for module in sorted(looking):
            names = tuple(sorted(looking[module]))
            part = (interned.setdefault(module, module), interned.setdefault(names, names))
            out.append(interned.setdefault(part, part))
        return tuple(out)

    def _set_summary(self, key: Key, summary: Summary) -> None:
        self._summaries[key] = summary
        cached = self._cached.get(key)
        if cached is None or (cached.summary is not summary and cached.summary != summary):
            self._differs.add(key)
        else:
            self._differs.discard(key)
        for caller in self._callers.get(key, ()):
            if self._seen.get(caller, {}).get(key) != summary:
                self._enqueue(caller)

    def _summarize(self, info: FunctionInfo, facts: Facts) -> Summary:
        returned = frozenset(facts.returned)
        returned_roots = frozenset(r for r in roots(returned) if r.param is None)
        read_of = frozenset(a.index for a in returned if isinstance(a, ReadOf))
        summary = Summary(
            returns_read_of=read_of,
            returns_read_when=_read_conditions(read_of, returned, facts),
            returns_param=frozenset(a.index for a in returned if isinstance(a, Param)),
            returned_roots=returned_roots,
            returned_when=frozenset((r, w) for r, w in facts.returned_when.items() if r in returned_roots),
            scalar_return=bool(roots(returned)) and all(r.scalar for r in roots(returned)),
            returns_literal=facts.returns_literal and not facts.returns_value,
            metadata_params=frozenset(facts.meta_params - facts.data_params),
            uploads=frozenset(facts.uploaded_params),
            maybe_uploads=frozenset(facts.maybe_uploaded_params),
            array_uploads=frozenset(facts.array_uploads),
            reads_into=frozenset(facts.reads_into),
            copy_params=frozenset(facts.copy_params),
            cpu_test=facts.cpu_test,
            made_like=facts.made_like,
            true_when=facts.true_when,
            fallbacks=self.fallback_paths(info, facts),
        )
        # most functions do nothing with host data: one object for all of them, which the
        # cache then stores once and compares by identity
        return EMPTY_SUMMARY if summary == EMPTY_SUMMARY else summary

    def fallback_paths(self, info: FunctionInfo, facts: Facts) -> tuple[FallbackPath, ...]:
        """Every way this backend function computes on the host, each with when it is taken."""
        if self.backends.device_of(info.module) is None or sem.is_host_copy_op(info.short):
            return ()
        found = [direct_path(info, root, facts.when.get(root, ALWAYS))
                 for root in sorted({root for root, _ in facts.sunk}, key=root_order)]
        for line, column, callee in sorted(set(facts.cpu_backend_calls)):
            found.append(FallbackPath(codes.CPU_BACKEND, f'"{callee}()"', info.path, line, (info.qualname, callee),
                                      facts.cpu_when.get((line, column), ALWAYS),
                                      (Hop(info.path, line, column, info.qualname, f'calls "{callee}()"'),)))
        indirect = {indirect_path(info, line, column, callee, inner) for line, column, callee, inner in facts.indirect
                    if info.qualname not in inner.chain}  # a path back here is this function's own root
        found.extend(sorted(indirect, key=path_order))
        return _distinct(found)

    # --- the Resolver interface for the walk ---------------------------------------------------

    def summary(self, callee: FunctionInfo) -> Summary:
        self._start(callee)
        summary = self._summaries.get(callee.key, EMPTY_SUMMARY)
        if self._current is not None:
            self._callers.setdefault(callee.key, {})[self._current] = None
            self._seen.setdefault(self._current, {})[callee.key] = summary
        return summary

    def is_backend(self, module: str) -> bool:
        return self.backends.device_of(module) is not None

    def device_of(self, module: str) -> str | None:
        return self.backends.device_of(module)

    def is_cpu_backend(self, module: str) -> bool:
        return self.backends.is_cpu_backend(module)

    def declared(self, dotted: str) -> str | None:
        return self.backends.declared.get(dotted)

    def constant(self, info: FunctionInfo, name: str) -> ast.expr | None:
        return self.constant_in(info.module, name)

    def constant_in(self, module_name: str, name: str) -> ast.expr | None:
        """What ``name`` is bound to at the top of module ``module_name`` (``HOST = cpu``,
        following imports), where that is an expression other than a name."""
        hops = 0
        while hops < 3:
            self._look(module_name, name)
            module = self.project.module(module_name)
            if module is None or name in module.defs:
                return None
            alias = module.aliases.get(name)
            if isinstance(alias, ast.Name):  # ``HOST = cpu``: what ``cpu`` is
                name = alias.id
                hops += 1
                continue
            if alias is not None:
                return alias if not isinstance(alias, ast.Attribute) else None
            target = module.imports.get(name)
            if target is None or "." not in target:
                return None
            module_name, _, name = target.rpartition(".")
            hops += 1
        return None

    @property
    def vocabulary(self) -> HostVocabulary:
        return self.backends.config.check.vocabulary

    def resolve(self, info: FunctionInfo, scope: dict[str, str], expr: ast.expr) -> str | None:
        return self._resolve(info.module, info.class_name, scope, expr, 0)

    def _resolve(self, module_name: str, class_name: str | None, scope: dict[str, str], expr: ast.expr,
                 depth: int) -> str | None:
        if depth > 8:
            return None
        if isinstance(expr, ast.Name):
            if expr.id in scope:
                return scope[expr.id]
            return self._module_name(module_name, expr.id, depth)
        if isinstance(expr, ast.Attribute):
            base = expr.value
            if isinstance(base, ast.Name) and base.id in ("self", "cls") and class_name is not None:
                return self._method(module_name, class_name, expr.attr)
            resolved = self._resolve(module_name, class_name, scope, base, depth + 1)
            return f"{resolved}.{expr.attr}" if resolved is not None else None
        return None

    def _module_name(self, module_name: str, name: str, depth: int) -> str | None:
        self._look(module_name, name)
        module = self.project.module(module_name)
        if module is None:
            return None
        if name in module.defs:
            return f"{module_name}.{name}"
        if name in module.imports:
            return module.imports[name]
        alias = module.aliases.get(name)
        if alias is not None:
            return self._resolve(module_name, None, {}, alias, depth + 1)
        for star in module.star_imports:
            if self.project.module(star) is not None:
                found = self._module_name(star, name, depth + 1)
                if found is not None:
                    return found
        return None

    def method(self, class_dotted: str, attr: str) -> str | None:
        found = self._locate(class_dotted)
        if found is None or found[1].kind != "class":
            return None
        module, _, located = found
        return self._method(module.name, located[len(module.name) + 1:], attr)

    def _method(self, module_name: str, class_name: str, attr: str) -> str | None:
        """``self.attr`` inside ``class_name``: the method of that class or a project base."""
        seen: set[str] = set()
        pending = [f"{module_name}.{class_name}"]
        while pending:
            dotted = pending.pop(0)
            if dotted in seen or len(seen) > 16:
                continue
            seen.add(dotted)
            found = self._locate(dotted)
            if found is None or found[1].kind != "class":
                continue
            module, definition, located = found
            member = definition.members.get(attr)
            if member is not None and member.kind == "function":
                return f"{located}.{attr}"
            for base in definition.bases:
                resolved = self._resolve(module.name, None, {}, base, 1)
                if resolved is not None:
                    pending.append(resolved)
        return None

    def function(self, dotted: str) -> FunctionInfo | None:
        if dotted in self._functions:
            looks = self._function_looks.get(dotted)
            if looks and self._looking is not None:
                for module, names in looks.items():
                    self._looking.setdefault(module, set()).update(names)
            return self._functions[dotted]
        outer, self._looking = self._looking, {}
        try:
            info = self._function(dotted)
        finally:
            inner, self._looking = self._looking, outer
        self._function_looks[dotted] = inner
        if outer is not None:
            for module, names in inner.items():
                outer.setdefault(module, set()).update(names)
        return info

    def _function(self, dotted: str) -> FunctionInfo | None:
        self._functions[dotted] = None  # cycles in re-exports end here
        info = None
        if ".<locals>." in dotted:
            head = dotted.split(".<locals>.", 1)[0]
            found = self._locate(head)
            if found is not None:
                module, _, located = found
                qualname = located[len(module.name) + 1:] + dotted[len(head):]
                self._look(module.name, "#" + qualname)
                info = module.functions.get(qualname)
        else:
            found = self._locate(dotted)
            if found is not None and found[1].kind == "function":
                module, _, located = found
                qualname = located[len(module.name) + 1:]
                self._look(module.name, "#" + qualname)
                info = module.functions.get(qualname)
        self._functions[dotted] = info
        return info

    def _locate(self, dotted: str, depth: int = 0) -> tuple[Module, Def, str] | None:
        """The module and def that ``dotted`` names, following re-exports; with its real dotted name."""
        if depth > 8:
            return None
        parts = dotted.split(".")
        top = parts[0]
        if top in self.vocabulary.host_modules or top in _BUILTINS:
            return None
        for cut in range(len(parts) - 1, 0, -1):
            module_name = ".".join(parts[:cut])
            module = self.project.module(module_name)
            if module is None:
                self._look(module_name, "")
                continue
            rest = parts[cut:]
            self._look(module_name, rest[0])
            definition = module.defs.get(rest[0])
            if definition is None:
                target = self._reexport(module, rest[0])
                if target is None or target == dotted:
                    return None
                return self._locate(".".join([target, *rest[1:]]), depth + 1)
            for attr in rest[1:]:
                definition = definition.members.get(attr) if definition.kind == "class" else None
                if definition is None:
                    return None
            return module, definition, dotted
        return None

    def _reexport(self, module: Module, name: str) -> str | None:
        self._look(module.name, name)
        target = module.imports.get(name)
        if target is not None:
            return target
        alias = module.aliases.get(name)
        if alias is not None:
            return self._resolve(module.name, None, {}, alias, 1)
        for star in module.star_imports:
            star_module = self.project.module(star)
            self._look(star, name)
            if star_module is not None and name in star_module.defs:
                return f"{star}.{name}"
        return None


def _read_conditions(read_of: frozenset[int], returned: frozenset[Atom], facts: Facts) -> frozenset[tuple[int, Condition]]:
    """When the function returns parameter k read back, for each k of ``read_of`` it returns
    only on some paths: the disjunction of the conditions of the readbacks of k it returns
    (a readback of k and another parameter counts for both, always)."""
    found = []
    for index in sorted(read_of):
        made = [r for r in roots(returned) if r.param == index]
        if not made:
            continue
        when = NEVER
        for root in made:
            when = disjoin(when, facts.returned_when.get(root, ALWAYS))
        if when != ALWAYS:
            found.append((index, when))
    return frozenset(found)
