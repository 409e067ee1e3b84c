"""``device-cpu-backend``: a call of a CPU-backend function, where the function has no own
host path of another code (one finding per own path)."""

from __future__ import annotations

from collections.abc import Iterator

from ..._finding import Finding, Hop
from .. import _codes as codes
from .._conditions import ALWAYS
from ._function import FunctionFacts, when_text

CODE = codes.CPU_BACKEND


def findings(function: FunctionFacts) -> Iterator[Finding]:
    facts = function.facts
    if function.own_roots:
        return
    calls = [c for c in facts.cpu_backend_calls if facts.cpu_when.get((c[0], c[1]), ALWAYS)]
    if not calls:
        return
    line, column, callee = min(calls)
    info = function.info
    condition = function.condition(facts.cpu_when.get((line, column), ALWAYS))
    message = function.message(CODE, function=info.short, callee=callee, when=when_text(condition))
    yield function.finding(CODE, line, column, message, (info.qualname, callee), f"{callee}()",
                           (Hop(info.path, line, column, info.qualname, f'calls "{callee}()"'),), condition)
