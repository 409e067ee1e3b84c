"""The check's steps, one list for the CLI and the language server.

discover -> analyse -> rules -> select codes -> silence -> baseline:

* ``discover``: the given files' modules, and which of them are backends (``backend_map``);
* ``analyse``: ``_solver.Analysis`` over them (records from the cache or the session);
* ``rules`` and ``silence``: ``rules.findings_for``, module by module (``module_findings``;
  a module whose functions all kept their records keeps the findings held for it);
* ``select``: the codes the configuration and the command line switch on and off
  (``Selection``);
* ``baseline``: findings already recorded are not new (``against_baseline``).

``device-types check`` (``__init__.check_paths`` and ``_cli``) and ``device-types lsp``
(``_session.CheckSession``) differ only in where files and records come from: the disk and
its cache, or the editor's buffers and the session's memory.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace

from .. import _codes
from .._config import Config, infer_backends
from .._finding import Finding
from ._project import Project
from ._solver import Analysis, BackendMap, FunctionResult
from .rules import findings_for

__all__ = ["Baselined", "Selection", "SelectionError", "against_baseline", "backend_map", "module_findings"]


class SelectionError(ValueError):
    """A code named in the configuration or on the command line that the check does not have."""


@dataclass(frozen=True)
class Selection:
    """The codes switched on (``enable``) and off (``disable``), on top of the registry's defaults."""

    enabled: frozenset[str] = frozenset()
    disabled: frozenset[str] = frozenset()

    @classmethod
    def of(cls, config: Config, enable: Iterable[str] = (), disable: Iterable[str] = ()) -> Selection:
        enabled = frozenset({*config.check.enable, *enable})
        disabled = frozenset({*config.check.disable, *disable})
        known = {c.name for c in _codes.codes_of(_codes.CHECK)}
        unknown = sorted((enabled | disabled) - known)
        if unknown:
            raise SelectionError(f"unknown error code {unknown[0]!r}; the check's codes are {', '.join(sorted(known))}")
        return cls(enabled, disabled)

    def on(self, code: str) -> bool:
        if code in self.disabled:
            return False
        entry = _codes.lookup(code)
        return code in self.enabled or entry is None or entry.default_enabled

    @property
    def host_sync(self) -> bool:
        return self.on(_codes.HOST_SYNC.name)

    def keep(self, findings: Iterable[Finding]) -> list[Finding]:
        return [f for f in findings if self.on(f.code)]


def backend_map(config: Config, module_names: Iterable[str]) -> tuple[dict[str, str], BackendMap]:
    """The backends (the configuration's, or inferred from the module names) and their map."""
    backends = dict(config.backends) or infer_backends(list(module_names))
    return backends, BackendMap(replace(config, backends=backends))


def module_findings(given: list[str], results: list[FunctionResult], analysis: Analysis, project: Project,
                    host_sync: bool, held: dict[str, tuple[object, list[Finding]]] | None = None,
                    key: object = None) -> tuple[list[Finding], dict[str, tuple[object, list[Finding]]]]:
    """The rules' findings, module by module: a module whose functions were all kept as
    ``held`` has them (none walked or moved, its text the same, found for ``key``); the
    others are computed, and returned apart too (what a cache keeps). In a module computed
    again (an edit in one of its functions), a function whose record was kept as the cache
    held it keeps its findings of ``held``: they were found from that record, on lines that
    did not change (silenced again on the current text with the others)."""
    by_module: dict[str, list[FunctionResult]] = {name: [] for name in given}  # a module with no function too
    for result in results:
        by_module.setdefault(result.info.module, []).append(result)
    found: list[Finding] = []
    fresh: dict[str, tuple[object, list[Finding]]] = {}
    for name, group in by_module.items():
        kept = held.get(name) if held is not None else None
        if kept is not None and kept[0] == key:
            if name not in project.changed and all(r.kept for r in group):
                found.extend(kept[1])
                continue
            unchanged = {r.info.qualname for r in group if r.kept}
            earlier = [f for f in kept[1] if f.function in unchanged]
            computed = findings_for([r for r in group if not r.kept], analysis, project, host_sync, earlier)
        else:
            computed = findings_for(group, analysis, project, host_sync)
        found.extend(computed)
        fresh[name] = (key, computed)
    return found, fresh


@dataclass
class Baselined:
    """Findings against a baseline: the new ones, the entries no longer found, or why the
    baseline could not be read (then ``findings`` are all of them)."""

    findings: list[Finding]
    fixed: list[dict[str, object]] = field(default_factory=list)
    error: str | None = None


def against_baseline(findings: list[Finding], path: str | None) -> Baselined:
    if not path:
        return Baselined(findings)
    from ._baseline import BaselineError, apply_baseline

    try:
        new, fixed = apply_baseline(path, findings)
    except BaselineError as exc:
        return Baselined(findings, error=str(exc))
    return Baselined(new, fixed)
