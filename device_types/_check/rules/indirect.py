"""``device-indirect-fallback``: a call of another backend function on a path of its that falls
back, reached from here: the shortest chain, with every condition under which this function
takes it."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

from ..._finding import Finding
from .. import _codes as codes
from .._conditions import disjoin
from .._solver import indirect_path, path_order
from ._function import FunctionFacts, when_text

CODE = codes.INDIRECT


def findings(function: FunctionFacts) -> Iterator[Finding]:
    info = function.info
    # a path that comes back to this function is its own root, reported by its own code
    reached = [(indirect_path(info, line, column, callee, inner), callee)
               for line, column, callee, inner in function.facts.indirect if info.qualname not in inner.chain]
    if not reached:
        return
    chosen, callee = min(reached, key=lambda item: path_order(item[0]))
    for other, _ in reached:  # the same chain reached under other conditions too: say all of them
        if other.chain == chosen.chain and other.when != chosen.when:
            chosen = replace(chosen, when=disjoin(chosen.when, other.when))
    call = chosen.hops[0]
    shown_chain = " -> ".join(c.rpartition(".")[2] if "<locals>" not in c else c for c in chosen.chain)
    condition = function.condition(chosen.when)
    # the function to fix: the chain's last, where the data reaches the host (fixed there,
    # every caller on every chain through it is clean); the chain beside it says where a
    # nested def lives
    fix = chosen.chain[-1].rpartition(".")[2]
    message = function.message(CODE, function=info.short, callee=callee.short, when=when_text(condition),
                               chain=shown_chain, what=chosen.what,
                               root=f"{function.project.display(chosen.path)}:{chosen.line}", fix=fix)
    yield function.finding(CODE, call.line, call.column, message, chosen.chain, f"{callee.qualname}()", chosen.hops,
                           condition)
