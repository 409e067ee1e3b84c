"""A long-lived check: the project's outlines and per-function records kept in memory.

``device-types lsp`` keeps one session per workspace. It is the CLI's engine and the CLI's
cache, held between runs instead of pickled between them: a run after an edit re-parses only
the edited function when it can (``_project._patch``), adopts every other function's record,
and lets the solver re-walk what saw a changed summary (``Analysis._start`` / ``_set_summary``,
the same rule as a cached CLI run). Unsaved editor buffers are an overlay over the files.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace

from .._config import Config
from . import _cache
from .._finding import Finding
from . import _pipeline as pipeline
from ._project import (FunctionInfo, Module, Project, SourceProblem, collect_idle, discover, gc_paused,
                       module_name_for)
from ._records import FunctionRecord, Key
from ._solver import Analysis, BackendMap

__all__ = ["CheckSession", "SessionRun"]


@dataclass
class SessionRun:
    """One run's outcome: what ``device-types check`` in the root would print, by file."""

    #: After ``disable`` (and the baseline, when one is configured and readable).
    findings: list[Finding]
    problems: list[SourceProblem]
    #: Display paths (relative to the root) of the backend files analysed.
    files: list[str]
    walks: int
    #: The baseline could not be read: its one line (the findings are then unfiltered).
    baseline_error: str | None = None
    backends: dict[str, str] = field(default_factory=dict)


class CheckSession:
    """The check of one project root, re-run after edits at the cost of what they changed."""

    def __init__(self, root: str, config: Config, *, use_disk_cache: bool = True) -> None:
        self.root = os.path.abspath(root)
        self.config = config
        self.overlay: dict[str, bytes] = {}
        self._fingerprint = _cache.fingerprint(_cache.check_settings(config))
        self._disk = _cache.load(self.root, self._fingerprint) if use_disk_cache else _cache.CacheData(self._fingerprint)
        self.modules: dict[str, Module] = dict(self._disk.modules)
        self.records: dict[Key, FunctionRecord] = dict(self._disk.records)
        #: Numbered on from the cache's last run, one per run of the session.
        self._tokens = self._disk.tokens()
        self._tokens.run -= 1
        self.project: Project | None = None
        self.analysis: Analysis | None = None
        self._changed: set[str] = set()
        self._files: tuple[list[str], list[SourceProblem], dict[str, str]] | None = None

    # --- inputs ------------------------------------------------------------------------

    def set_text(self, path: str, text: str | None) -> None:
        """An editor buffer's text for ``path`` (None: the file on disk again)."""
        path = os.path.abspath(path)
        if text is None:
            self.overlay.pop(path, None)
        else:
            self.overlay[path] = text.encode("utf-8", "surrogateescape")

    @property
    def selection(self) -> pipeline.Selection:
        """The codes the configuration switches on and off (none it does not know: the
        server reports such a configuration and keeps its last good one)."""
        try:
            return pipeline.Selection.of(self.config)
        except pipeline.SelectionError:
            return pipeline.Selection()

    @property
    def host_sync(self) -> bool:
        return self.selection.host_sync

    def rescan(self) -> None:
        """Files may have come or gone: the next run walks the root again."""
        self._files = None

    def knows(self, path: str) -> bool:
        return self._files is not None and os.path.abspath(path) in self._files[0]

    def backend_files(self) -> tuple[list[str], list[SourceProblem], dict[str, str]]:
        """The root's backend files (as ``device-types check`` with no path finds them); the
        walk of the root is kept until ``rescan`` (an edit does not add files)."""
        if self._files is None:
            self._files = self._scan()
        files, problems, backends = self._files
        return list(files), list(problems), dict(backends)

    def _scan(self) -> tuple[list[str], list[SourceProblem], dict[str, str]]:
        files, problems = discover([self.root])
        names = {path: module_name_for(path)[1] for path in files}
        backends, backend_map = pipeline.backend_map(self.config, names.values())
        chosen = [os.path.abspath(path) for path in files if backend_map.device_of(names[path]) is not None]
        return chosen, problems, backends

    # --- a run -------------------------------------------------------------------------

    def run(self) -> SessionRun:
        from ._codec import CodecError

        with gc_paused(freeze=False):  # a long-lived process: frozen cycles would never be freed
            try:
                return self._run()
            except CodecError:  # a record from the disk cache did not read back: start cold
                self._disk = _cache.CacheData(self._fingerprint)
                self.modules, self.records, self._changed = {}, {}, set()
                self._tokens = self._disk.tokens()
                self._tokens.run -= 1
                return self._run()

    def _run(self) -> SessionRun:
        files, problems, backends = self.backend_files()
        files += self._unsaved(files, backends)
        project = Project(self.root, self.modules, dict(self.overlay))
        modules = [project.add_file(path) for path in files]
        backend_map = BackendMap(replace(self.config, backends=backends))
        self._tokens.run += 1
        analysis = Analysis(project, backend_map, self.records, self._tokens)
        results = analysis.run(modules)
        selection = self.selection
        findings, _ = pipeline.module_findings([m.name for m in modules] + analysis.opened, results, analysis,
                                               project, selection.host_sync)
        self._keep(project, analysis)
        shown = {project.display(f) for f in files}
        problems = problems + [p for p in project.problems if p.path in shown]
        baselined = pipeline.against_baseline(selection.keep(findings), self.baseline_path)
        return SessionRun(baselined.findings, problems, sorted(shown), analysis.walks, baselined.error, backends)

    def _unsaved(self, files: list[str], backends: dict[str, str]) -> list[str]:
        """Editor buffers of backend modules that are not on disk yet (a new file, unsaved):
        checked from their text like any other buffer."""
        known = set(files)
        root = self.root.rstrip(os.sep) + os.sep
        backend_map = BackendMap(replace(self.config, backends=backends))
        return sorted(path for path in self.overlay
                      if path.endswith(".py") and path not in known and path.startswith(root)
                      and not os.path.exists(path) and backend_map.device_of(module_name_for(path)[1]) is not None)

    @property
    def baseline_path(self) -> str | None:
        given = self.config.check.baseline
        return os.path.join(self.root, given) if given else None

    def _keep(self, project: Project, analysis: Analysis) -> None:
        """What the next run starts from: this run's modules and records (the cache's merge rule)."""
        self.records = {k: r for k, r in self.records.items() if k[0] not in project.changed}
        self.records.update(analysis.records)
        self.modules = {**self.modules, **project.modules}
        self._changed |= project.changed
        self.project, self.analysis = project, analysis

    def collect(self) -> None:
        """Free what the last run left in reference cycles (call it when idle: it takes a
        full collection, about as long as a re-check)."""
        collect_idle()

    def save_cache(self) -> None:
        """Write the session's state as the CLI's cache (a later ``device-types check`` starts warm)."""
        on_disk = {name: m for name, m in self.modules.items() if m.stamp[0] >= 0}  # unsaved buffers stay out
        checked = [module_name_for(path)[1] for path in self._files[0]] if self._files is not None else []
        _cache.save(self.root, self._disk, on_disk, self._changed, self.records, self._tokens, checked)

    # --- what the editor asks ------------------------------------------------------------

    def function_at(self, path: str, line: int) -> FunctionInfo | None:
        """The innermost function of ``path`` whose def is at or above ``line`` and contains it."""
        module = self.module_of(path)
        if module is None or self.project is None:
            return None
        best: FunctionInfo | None = None
        for info in module.functions.values():
            node = self.project.function_node(module, info.qualname)
            if node is None:
                continue
            if info.line <= line <= (node.end_lineno or node.lineno) and (best is None or info.line >= best.line):
                best = info
        return best

    def module_of(self, path: str) -> Module | None:
        if self.project is None:
            return None
        path = os.path.abspath(path)
        for module in self.project.modules.values():
            if module.path == path:
                return module
        return None
