"""``device-types check``: CPU fallbacks in backend code as it is, untyped, without mypy.

Data flow: ``_project`` (files, modules, imports) -> ``_interpret`` (one function's host data,
read through the op-semantics table) -> ``_solver`` (summaries across functions and
modules, to a fixpoint) -> ``_findings`` (one finding per fallback path) -> ``_baseline`` /
``_inventory`` -> ``_output`` (text, JSON, SARIF). Exit status: 0 clean, 1 findings, 2 usage,
configuration or unreadable input (one line, never a traceback).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .._config import Config
from . import _codes as codes
from ._findings import Finding, findings_for
from ._project import Project, SourceProblem, discover
from ._solver import Analysis, BackendMap

__all__ = ["CheckResult", "Finding", "check_paths", "infer_backends", "main"]


@dataclass
class CheckResult:
    findings: list[Finding]
    problems: list[SourceProblem]
    files: int
    functions: int
    backends: dict[str, str] = field(default_factory=dict)


def infer_backends(module_names: list[str]) -> dict[str, str]:
    """Without configured backends: every ``*._backends.{mps,cuda,npu,xpu}`` package is one."""
    from .._config import BACKEND_DEVICES

    found: dict[str, str] = {}
    for name in module_names:
        parts = name.split(".")
        for i in range(1, len(parts)):
            if parts[i - 1] == "_backends" and parts[i] in BACKEND_DEVICES:
                found[".".join(parts[: i + 1])] = parts[i]
    return found


def check_paths(paths: list[str], config: Config, *, host_sync: bool = False, display_root: str = ".") -> CheckResult:
    """Analyse the ``.py`` files under ``paths``; findings only for those files' backend functions."""
    files, problems = discover(paths)
    project = Project(display_root)
    modules = []
    for path in files:
        module = project.add_file(path)
        if module is not None:
            modules.append(module)
    backends = dict(config.backends) or infer_backends([m.name for m in modules])
    backend_map = BackendMap(backends, config.check.cpu_backends, config.check.readbacks, config.check.uploads)
    analysis = Analysis(project, backend_map)
    results = analysis.run(modules)
    findings = findings_for(results, analysis, project, host_sync)
    problems = problems + [p for p in project.problems if p.path in {project.display(f) for f in files}]
    return CheckResult(findings, problems, len(files), len(results), backends)


def main(argv: list[str] | None = None) -> int:
    from ._cli import main as cli_main

    return cli_main(argv)



