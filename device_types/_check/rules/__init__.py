"""The check's rules: typed facts of each checked function -> findings, one module per code.

Each rule module (every module of this package whose name does not start with ``_``) has a
``CODE`` (a name of the registry, ``device_types._codes``) and ``findings(function)``, which
turns one function's facts (``FunctionFacts``) into its findings of that code, with the
registry's message. Adding a code takes the registry entry, one module here and its fixture.

A function gets at most one finding for its own host path (the first root, whose kind picks
the code; the others are named in the message; else its first CPU-backend call) and at most
one for an indirect path through another backend function, so a true fallback costs one or
two lines. Host syncs are a separate, opt-in code.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Iterable
from types import ModuleType

from ... import _codes
from ..._finding import Finding
from .._project import Project
from .._solver import Analysis, FunctionResult
from ._function import FunctionFacts
from ._silence import unsilenced

__all__ = ["RULES", "findings_for"]


def _rules() -> tuple[ModuleType, ...]:
    found = []
    for module in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if not module.name.startswith("_"):
            rule = importlib.import_module(f"{__name__}.{module.name}")
            if _codes.lookup(rule.CODE) is None:  # pragma: no cover - tests/check/test_rules.py
                raise ImportError(f"rule {module.name} reports {rule.CODE!r}, which the registry does not list")
            found.append(rule)
    return tuple(found)


#: Every rule, by module name.
RULES: tuple[ModuleType, ...] = _rules()


def findings_for(results: Iterable[FunctionResult], analysis: Analysis, project: Project,
                 host_sync: bool, earlier: Iterable[Finding] = ()) -> list[Finding]:
    """The findings of the backend functions among ``results``: the codes on by default, and
    ``device-host-sync`` too when ``host_sync``; with ``earlier`` (the findings of the
    module's other functions, from the cache), those not silenced on their line, all sorted."""
    rules = [r for r in RULES if _codes.BY_NAME[r.CODE].default_enabled or (host_sync and r.CODE == _codes.HOST_SYNC.name)]
    found: list[Finding] = list(earlier)
    for result in results:
        function = FunctionFacts.of(result, analysis, project)
        if function is None:
            continue
        for rule in rules:
            found.extend(rule.findings(function))
    return unsilenced(found, project)
