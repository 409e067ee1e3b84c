"""``device-host-sync`` (opt-in): device data this function reads back only to decide control
flow or to size something, never sent back or returned as the result: a sync, not a fallback."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

from ..._finding import Finding
from .. import _codes as codes
from .._values import Param, root_identity, roots
from ._function import FunctionFacts

CODE = codes.HOST_SYNC


def findings(function: FunctionFacts) -> Iterator[Finding]:
    facts = function.facts
    sunk = {root_identity(root) for root, _ in facts.sunk}
    # returned as it was made (``return to_numpy(t)``): a primitive; a scalar or an element made
    # of it (``int(sum(xs))``, ``[i for i, v in enumerate(xs) if v]``) is a value it computed
    returned = {replace(r, copy=False) for r in roots(frozenset(facts.returned))}  # (``.copy()`` of it is it too)
    # a readback returned as it is: the function's own argument read back is a primitive
    # (``_to_numpy``); a value it computed on the device and read back is a host sync
    # reported where the readback is: a helper's sync is not its callers' (no chain)
    escaped = {root_identity(root) for root in facts.escaped}
    # its Python scalar returned alone (``return t.item()``, ``struct.unpack("f", raw)[0]``) is
    # returned as made too; staged into a tensor it returns, it is that op's operand
    alone = set() if any(isinstance(a, Param) for a in facts.returned) else {r for r in returned if r.scalar}
    synced = [r for r in facts.created
              if root_identity(r) not in sunk and root_identity(r) not in escaped and r.kind == "read" and not r.chain
              and (replace(r, copy=False) not in returned and replace(r, scalar=True, copy=False) not in alone
                   or r.param is None)]
    if not synced:
        return
    first = min(synced, key=lambda r: (r.line, r.column))
    message = function.message(CODE, function=function.info.short, what=first.what)
    yield function.finding(CODE, first.line, first.column, message, (function.info.qualname, *first.chain),
                           first.what)
