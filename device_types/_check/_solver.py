"""Whole-program part: names to functions, summaries to a fixpoint, facts to findings.

Every function of the checked files is walked (``_interpret``); a call into the project reads
the callee's summary, computing it on demand from the callee's module (loaded lazily). When a
summary grows, its callers are walked again, until nothing changes: summaries only grow, so
this ends, and cycles between helpers are fine.
"""

from __future__ import annotations

import ast
import builtins
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass

from .. import _semantics as sem
from ._interpret import Facts, FunctionInfo, interpret
from ._project import Module, Project
from ._summary import EMPTY_SUMMARY, FallbackPath, Summary
from ._values import ReadOf, Param, Root, roots

__all__ = ["Analysis", "BackendMap", "FunctionResult", "root_order"]


def root_order(root: Root) -> tuple[int, int, bool]:
    """First root first; at one site a readback before a host build (it is the cause)."""
    return root.line, root.column, root.kind != "read"

_BUILTINS = frozenset(dir(builtins))
#: Walks per function before the solver stops trusting the fixpoint (never reached in practice).
_MAX_WALKS = 50


@dataclass(frozen=True)
class FunctionResult:
    info: FunctionInfo
    facts: Facts
    summary: Summary


class BackendMap:
    """Which modules are device backends, which are CPU backends, and what config declares."""

    def __init__(self, backends: dict[str, str], cpu_backends: list[str] | tuple[str, ...] = (),
                 readbacks: tuple[str, ...] = (), uploads: tuple[str, ...] = ()) -> None:
        self.backends = backends
        self.declared = {**{name: "upload" for name in uploads}, **{name: "readback" for name in readbacks}}
        self.cpu_prefixes = list(cpu_backends)
        if not cpu_backends:
            for prefix in backends:
                head, _, _ = prefix.rpartition(".")
                if head:
                    self.cpu_prefixes.append(f"{head}.cpu")

    def backend_prefix_of(self, module: str) -> str | None:
        covering = [p for p in self.backends if module == p or module.startswith(p + ".")]
        return max(covering, key=len, default=None)

    def device_of(self, module: str) -> str | None:
        prefix = self.backend_prefix_of(module)
        return None if prefix is None else self.backends[prefix]

    def is_cpu_backend(self, module: str) -> bool:
        return any(module == p or module.startswith(p + ".") for p in self.cpu_prefixes)


class Analysis:
    def __init__(self, project: Project, backends: BackendMap) -> None:
        self.project = project
        self.backends = backends
        self._functions: dict[str, FunctionInfo | None] = {}
        self._by_key: dict[tuple[str, str], FunctionInfo] = {}
        self._summaries: dict[tuple[str, str], Summary] = {}
        self._facts: dict[tuple[str, str], Facts] = {}
        self._callers: dict[tuple[str, str], set[tuple[str, str]]] = {}
        self._walks: dict[tuple[str, str], int] = {}
        self._queue: deque[tuple[str, str]] = deque()
        self._queued: set[tuple[str, str]] = set()
        self._current: tuple[str, str] | None = None

    # --- the fixpoint ------------------------------------------------------------------------

    def run(self, modules: list[Module]) -> list[FunctionResult]:
        reported: list[FunctionInfo] = []
        for module in modules:
            for info in self.functions_of(module):
                reported.append(info)
                self._enqueue(info.key)
        while self._queue:
            key = self._queue.popleft()
            self._queued.discard(key)
            self._walk(self._by_key[key])
        return [FunctionResult(i, self._facts.get(i.key, Facts()), self._summaries.get(i.key, EMPTY_SUMMARY))
                for i in reported]

    def _enqueue(self, key: tuple[str, str]) -> None:
        if key not in self._queued and self._walks.get(key, 0) < _MAX_WALKS:
            self._queued.add(key)
            self._queue.append(key)

    def _walk(self, info: FunctionInfo) -> None:
        self._walks[info.key] = self._walks.get(info.key, 0) + 1
        previous_current, self._current = self._current, info.key
        try:
            facts = interpret(info, self)
        except RecursionError:
            facts = Facts()  # absurdly deep expressions: "unknown", never a crash
        finally:
            self._current = previous_current
        self._facts[info.key] = facts
        summary = self._summarize(info, facts)
        if summary != self._summaries.get(info.key, EMPTY_SUMMARY) or (
                summary.falls_back and self._summaries.get(info.key, EMPTY_SUMMARY).fallback is None):
            self._summaries[info.key] = summary
            for caller in self._callers.get(info.key, ()):
                self._enqueue(caller)
        else:
            self._summaries[info.key] = summary

    def _summarize(self, info: FunctionInfo, facts: Facts) -> Summary:
        returned = facts.returned
        path = self.fallback_path(info, facts)
        return Summary(
            returns_read_of=frozenset(a.index for a in returned if isinstance(a, ReadOf)),
            returns_param=frozenset(a.index for a in returned if isinstance(a, Param)),
            returned_roots=frozenset(r for r in roots(frozenset(returned)) if r.param is None),
            uploads=frozenset(facts.uploaded_params),
            reads_into=frozenset(facts.reads_into),
            fallback=path,
            falls_back=path is not None,
        )

    def fallback_path(self, info: FunctionInfo, facts: Facts) -> FallbackPath | None:
        """The first way this backend function computes on the host, if it does."""
        if self.backends.device_of(info.module) is None or sem.is_host_copy_op(info.short):
            return None
        direct = sorted({root for root, _ in facts.sunk}, key=root_order)
        if direct:
            root = direct[0]
            return FallbackPath(root.code, root.what, root.path, root.line, (info.qualname, *root.chain))
        if facts.cpu_backend_calls:
            line, _, callee = min(facts.cpu_backend_calls)
            return FallbackPath("device-cpu-backend", f'"{callee}()"', info.path, line, (info.qualname, callee))
        if facts.indirect:
            line, _, _, inner = min(facts.indirect, key=lambda item: (item[0], item[1]))
            return FallbackPath(inner.code, inner.what, inner.path, inner.line, (info.qualname, *inner.chain))
        return None

    # --- the Resolver interface for the walk ---------------------------------------------------

    def summary(self, callee: FunctionInfo) -> Summary:
        if self._current is not None:
            self._callers.setdefault(callee.key, set()).add(self._current)
        if callee.key not in self._summaries and callee.key not in self._walks:
            self._enqueue(callee.key)
        return self._summaries.get(callee.key, EMPTY_SUMMARY)

    def is_backend(self, module: str) -> bool:
        return self.backends.device_of(module) is not None

    def declared(self, dotted: str) -> str | None:
        return self.backends.declared.get(dotted)

    def is_cpu_backend(self, module: str) -> bool:
        return self.backends.is_cpu_backend(module)

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
                if "self" in scope or "cls" in scope:
                    return None
                method = self._method(module_name, class_name, expr.attr)
                return method
            resolved = self._resolve(module_name, class_name, scope, base, depth + 1)
            return f"{resolved}.{expr.attr}" if resolved is not None else None
        return None

    def _module_name(self, module_name: str, name: str, depth: int) -> str | None:
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

    def _method(self, module_name: str, class_name: str, attr: str) -> str | None:
        """``self.attr`` inside ``class_name``: the method of that class or a project base."""
        seen: set[str] = set()
        pending = [f"{module_name}.{class_name}"]
        while pending:
            dotted = pending.pop(0)
            if dotted in seen:
                continue
            seen.add(dotted)
            found = self._locate(dotted)
            if found is None:
                continue
            module, node = found
            if not isinstance(node, ast.ClassDef):
                continue
            for stmt in node.body:
                if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and stmt.name == attr:
                    return f"{dotted}.{attr}"
            for base in node.bases:
                resolved = self._resolve(module.name, None, {}, base, 1)
                if resolved is not None:
                    pending.append(resolved)
        return None

    def function(self, dotted: str) -> FunctionInfo | None:
        if dotted in self._functions:
            return self._functions[dotted]
        self._functions[dotted] = None  # cycles in re-exports end here
        info = self._direct(dotted)
        if info is None:
            found = self._locate(dotted)
            if found is not None and not isinstance(found[1], ast.ClassDef):
                module, _ = found
                info = self._by_key.get((module.name, dotted[len(module.name) + 1:]))
                if info is None:  # reached through a re-export: find the def by identity
                    info = next((i for i in self.functions_of(module) if i.node is found[1]), None)
        self._functions[dotted] = info
        return info

    def _direct(self, dotted: str) -> FunctionInfo | None:
        """``pkg.mod.func`` / ``pkg.mod.Class.meth`` / ``pkg.mod.f.<locals>.g`` without re-exports."""
        head = dotted.split(".<locals>.", 1)[0]
        parts = head.split(".")
        for cut in range(len(parts) - 1, 0, -1):
            module_name = ".".join(parts[:cut])
            if module_name.partition(".")[0] in sem.HOST_MODULES:
                return None
            module = self.project.module(module_name)
            if module is not None:
                self._index(module)
                return self._by_key.get((module_name, dotted[len(module_name) + 1:]))
        return None

    def _locate(self, dotted: str, depth: int = 0) -> tuple[Module, ast.AST] | None:
        """The module and def (function or class) that ``dotted`` names, following re-exports."""
        if depth > 8:
            return None
        parts = dotted.split(".")
        for cut in range(len(parts) - 1, 0, -1):
            module_name = ".".join(parts[:cut])
            if module_name.partition(".")[0] in sem.HOST_MODULES or module_name.partition(".")[0] in _BUILTINS:
                return None
            module = self.project.module(module_name)
            if module is None:
                continue
            rest = parts[cut:]
            self._index(module)
            node = module.defs.get(rest[0])
            if node is None:
                target = module.imports.get(rest[0])
                if target is None:
                    alias = module.aliases.get(rest[0])
                    target = self._resolve(module.name, None, {}, alias, 1) if alias is not None else None
                if target is None:
                    for star in module.star_imports:
                        star_module = self.project.module(star)
                        if star_module is not None and rest[0] in star_module.defs:
                            target = f"{star}.{rest[0]}"
                            break
                if target is None or target == dotted:
                    return None
                return self._locate(".".join([target, *rest[1:]]), depth + 1)
            for attr in rest[1:]:
                if not isinstance(node, ast.ClassDef):
                    return None
                node = next((s for s in node.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
                             and s.name == attr), None)
                if node is None:
                    return None
            return module, node
        return None

    # --- functions of a module -------------------------------------------------------------------

    def functions_of(self, module: Module) -> list[FunctionInfo]:
        self._index(module)
        return [info for (name, _), info in self._by_key.items() if name == module.name]

    _indexed: set[str]

    def _index(self, module: Module) -> None:
        indexed = self.__dict__.setdefault("_indexed", set())
        if module.name in indexed:
            return
        indexed.add(module.name)
        for info in _functions(module, module.tree.body, "", None):
            self._by_key[info.key] = info


def _functions(module: Module, body: list[ast.stmt], prefix: str, class_name: str | None) -> Iterator[FunctionInfo]:
    for node in _defs(body):
        if isinstance(node, ast.ClassDef):
            yield from _functions(module, node.body, f"{prefix}{node.name}.", node.name if not prefix else None)
        else:
            qualname = f"{prefix}{node.name}"
            args = node.args
            names = tuple(a.arg for a in (*args.posonlyargs, *args.args))
            yield FunctionInfo(module.name, qualname, module.path, node, class_name, names,
                               args.vararg.arg if args.vararg else None, args.kwarg.arg if args.kwarg else None)
            yield from _functions(module, node.body, f"{qualname}.<locals>.", None)


def _defs(body: list[ast.stmt]) -> Iterator[ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef]:
    """Defs of a body, looking into ``if``/``try``/``with`` blocks (conditional definitions)."""
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            yield node
        elif isinstance(node, (ast.If, ast.Try, ast.With, ast.For, ast.While)):
            for field_name in ("body", "orelse", "finalbody"):
                yield from _defs(getattr(node, field_name, []))
            for handler in getattr(node, "handlers", []):
                yield from _defs(handler.body)
