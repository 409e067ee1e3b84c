"""The function's own host path, shared by the codes its root can have: the first root (in
root order) picks the code (``Root.code``: read back with ``.cpu()``, ``.to("cpu")``, a
readback helper, or built on the host); the other roots are named in the same line."""

from __future__ import annotations

from collections.abc import Iterator

from ... import _codes
from ..._finding import Finding
from .. import _codes as codes
from .._conditions import ALWAYS, disjoin
from .._solver import direct_path
from .._values import Root, Sink
from ._function import FunctionFacts, when_text


def own_path_findings(function: FunctionFacts, code: str) -> Iterator[Finding]:
    """The finding of ``function``'s own host path, if its first root has ``code``."""
    own = function.own_roots
    if not own or own[0].code != code:
        return
    root = own[0]
    facts = function.facts
    sink = next(s for r, s in facts.sunk if r == root)  # the first way it went
    # the finding is every root of the path together: reached when any of them is
    # (``if metric == "euclidean": ... x.cpu() ...`` then another ``x.cpu()`` for the rest)
    when = facts.when.get(root, ALWAYS)
    for other in own[1:]:
        when = disjoin(when, facts.when.get(other, ALWAYS))
    condition = function.condition(when)
    project = function.project
    via = ""
    if root.chain and root.origin:
        origin_path, origin_line, origin_what = root.origin
        via = (f" (through {' -> '.join(c.rpartition('.')[2] for c in root.chain)}: {origin_what} at "
               f"{project.display(origin_path)}:{origin_line})")
    others = sorted({r.line for r in own[1:] if r.line != root.line})
    also = ""
    if others:
        also = f"; also line{'s' if len(others) > 1 else ''} {', '.join(map(str, others[:5]))}" + (
            ", ..." if len(others) > 5 else "")
    template = root.code if root.kind == "read" else codes.NUMPY
    message = function.message(template, function=function.info.short, what=root.what, via=via,
                               how=_how(root, sink), when=when_text(condition), also=also)
    hops = direct_path(function.info, root, ALWAYS).hops
    yield function.finding(root.code, root.line, root.column, message, (function.info.qualname, *root.chain),
                           root.what, hops, condition)


def _how(root: Root, sink: Sink) -> str:
    """The registry's words for where the data went: data read back computes the result on
    the host, unless the sink is itself how the host makes it."""
    kind = sink.kind if root.kind != "read" or sink.computes_result else "host_result"
    return _codes.CHECK_SINKS[kind].format(call=sink.call)
