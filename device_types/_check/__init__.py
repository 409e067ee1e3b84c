"""``device-types check``: CPU fallbacks in backend code as it is, untyped, without mypy.

Data flow: ``_project`` (files, modules, imports) -> ``_walk`` (one function's host data,
read through the op-semantics table) -> ``_solver`` (summaries across functions and
modules, to a fixpoint) -> ``rules`` (one module per code: facts -> findings) -> ``_baseline`` /
``_inventory`` -> ``device_types._report`` (text, JSON, SARIF, GitHub). Between runs,
``_cache`` keeps each module's outline and its functions' ``_records``, so that a re-check
walks only what an edit reached. Exit status: 0 clean, 1 findings, 2 usage, configuration or
unreadable input (one line, never a traceback).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .._config import Config, infer_backends
from .._finding import Finding
from . import _pipeline as pipeline
from ._project import Module, Project, SourceProblem, discover, module_name_for
from ._records import Deferred
from ._solver import Analysis

if TYPE_CHECKING:
    from . import _cache

__all__ = ["CheckResult", "Finding", "check_paths", "infer_backends", "main"]


@dataclass
class CheckResult:
    """What ``check_paths`` found: the findings, the files not analysed, and the counts."""

    findings: list[Finding]
    problems: list[SourceProblem]
    files: int
    functions: int
    backends: dict[str, str] = field(default_factory=dict)
    #: Functions walked this run (the rest came from the cache).
    walks: int = 0
    #: Files given (not followed imports) that lie in a backend: none means nothing was checked.
    backend_files: int = 0


def check_paths(paths: list[str], config: Config, *, host_sync: bool = False, display_root: str = ".",
                use_cache: bool = True) -> CheckResult:
    """Analyse the ``.py`` files under ``paths``; findings only for those files' backend functions.

    With ``use_cache``, module outlines and per-function facts are kept under
    ``display_root/.device_types_cache`` so a re-check walks only what changed."""
    from ._project import gc_paused

    from ._codec import CodecError

    with gc_paused():
        try:
            return _check_paths(paths, config, host_sync, display_root, use_cache)
        except CodecError:  # a cached record's facts did not read back: the run again, as if cold
            return _check_paths(paths, config, host_sync, display_root, use_cache, ignore_cache=True)


def _check_paths(paths: list[str], config: Config, host_sync: bool, display_root: str, use_cache: bool,
                 ignore_cache: bool = False) -> CheckResult:
    from . import _cache

    files, problems = discover(paths)
    cache = None
    if use_cache:
        expected = _cache.fingerprint(_cache.check_settings(config))
        cache = _cache.CacheData(expected, display_root) if ignore_cache else _cache.load(display_root, expected)
    project = Project(display_root, cache.modules if cache is not None else None)
    located = [(path, *module_name_for(path)) for path in files]
    backends, backend_map = pipeline.backend_map(config, [name for _, _, name in located])
    key = (host_sync, sorted(backends.items()))
    modules, deferred = _opened_or_deferred(located, project, cache, key)
    for module in modules:  # trees of modules that get no findings are parsed again if a walk needs them
        if backend_map.device_of(module.name) is None:
            module.tree = module.lines = None
    analysis = Analysis(project, backend_map, cache.records if cache is not None else None,
                        cache.tokens() if cache is not None else None)
    results = analysis.run(modules, deferred)
    held = {name: entry.findings for name, entry in cache.entries.items() if entry.findings is not None} \
        if cache is not None else None
    findings, fresh = pipeline.module_findings([m.name for m in modules] + analysis.opened, results, analysis, project,
                                               host_sync, held, key)
    opened = set(analysis.opened)
    unopened = [cache.entries[name] for name in deferred if name not in opened] if cache is not None else []
    for entry in unopened:
        assert entry.findings is not None
        findings.extend(entry.findings[1])
        problems.extend(entry.problems)
    if cache is not None:
        restamped = {name for name, module in project.modules.items()  # touched, same text: a new stamp to keep
                     if name in cache.entries and cache.entries[name].stamp != module.stamp}
        held = cache.findings
        refound = {name for name, entry in fresh.items() if held.get(name) != entry}
        _cache.save(display_root, cache, project.modules, project.changed, analysis.records, analysis.tokens,
                    [name for _, _, name in located], analysis.updated_modules() | restamped | refound, fresh)
    shown = {project.display(f) for f in files}
    problems = list(dict.fromkeys(problems + [p for p in project.problems if p.path in shown]))
    backend_files = sum(1 for _, _, name in located if backend_map.device_of(name) is not None)
    return CheckResult(sorted(findings), problems, len(files), len(results) + sum(e.functions for e in unopened),
                       backends, analysis.walks, backend_files)


def _opened_or_deferred(located: list[tuple[str, str, str]], project: Project, cache: _cache.CacheData | None,
                        key: object) -> tuple[list[Module], dict[str, Deferred]]:
    """The given files' modules, opened; but an unchanged file is left unopened (deferred)
    unless something its records depend on changed (``Analysis.run``)."""
    deferred: dict[str, Deferred] = {}
    modules = []
    for path, root, name in located:
        project.add_root(root)
        entry = _unchanged(cache, name, path, key, project)
        if entry is not None:
            deferred[name] = (entry.path, entry.saw, entry.looked, entry.checked)
        else:
            modules.append(project.add_file(path))
    return modules, deferred


def _unchanged(cache: _cache.CacheData | None, name: str, path: str, key: object,
               project: Project) -> _cache.ModuleEntry | None:
    """The cache's entry for ``name`` when its file is the one the entry describes and its
    findings were computed for ``key`` (the host-sync option and the backends)."""
    entry = cache.entries.get(name) if cache is not None else None
    if entry is None or entry.findings is None or entry.findings[0] != key:
        return None
    path = os.path.abspath(path)
    return entry if entry.path == path and entry.stamp == project.stamp(path) and entry.stamp != (0, 0) else None


def main(argv: list[str] | None = None) -> int:
    """``device-types check ARGS`` (the one command line, ``device_types._cli``)."""
    import sys

    from .._cli import main as cli_main

    return cli_main(["check", *(sys.argv[1:] if argv is None else argv)])



