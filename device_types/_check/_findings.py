"""Facts of each checked function -> findings: one per fallback path, at its root.

A function gets at most one finding for its own host path (the first root; the others are
named in the message) and at most one for an indirect path through another backend
function, so a true fallback costs one or two lines. Host syncs are a separate, opt-in code.
"""

from __future__ import annotations

import re
from dataclasses import replace
from collections.abc import Iterable

from .. import _semantics as sem
from .. import _codes
from .._codes import explain_tail
from .._finding import Finding
from . import _codes as codes
from ._conditions import ALWAYS, Condition, disjoin, render
from ._guards import parameter_names
from ._project import FunctionInfo, Project
from ._solver import Analysis, FunctionResult, indirect_path, path_order, root_order
from ._summary import Hop
from ._values import Root, roots

__all__ = ["Finding", "findings_for"]

_IGNORE = re.compile(r"#\s*(?:type|device-types)\s*:\s*ignore(?:\[(?P<codes>[^\]]*)\])?")


def findings_for(results: Iterable[FunctionResult], analysis: Analysis, project: Project,
                 host_sync: bool) -> list[Finding]:
    found: list[Finding] = []
    for result in results:
        info = result.info
        device = analysis.backends.device_of(info.module)
        if device is None or sem.is_host_copy_op(info.short):
            continue
        prefix = analysis.backends.backend_prefix_of(info.module) or info.module
        where = {"device": device, "prefix": prefix}
        path = project.display(info.path)
        facts = result.facts
        # a root under a condition that cannot hold (``if x.device.type == "mps":`` in the
        # cuda backend) is on no path
        direct = sorted({root for root, _ in facts.sunk if facts.when.get(root, ALWAYS)}, key=root_order)
        hows = {root: how for root, how in reversed(facts.sunk)}
        names = parameter_names(info)
        if direct:
            when = facts.when.get(direct[0], ALWAYS)
            found.append(_direct(info, direct, hows[direct[0]], path, where, device, project, _when(when, names)))
        elif cpu_calls := [c for c in facts.cpu_backend_calls if facts.cpu_when.get((c[0], c[1]), ALWAYS)]:
            line, column, cpu_function = min(cpu_calls)
            said = _when(facts.cpu_when.get((line, column), ALWAYS), names)
            found.append(Finding(
                path, line, column, codes.CPU_BACKEND,
                _message(codes.CPU_BACKEND, function=info.short, callee=cpu_function, when=said, **where),
                info.qualname, device, (info.qualname, cpu_function), f"{cpu_function}()",
                (Hop(path, line, column, info.qualname, f'calls "{cpu_function}()"'),), said.strip()[5:]))
        # the shortest chain this function's calls reach; a path that comes back to this
        # function is its own root, reported above
        reached = [(indirect_path(info, line, column, callee, inner), callee)
                   for line, column, callee, inner in facts.indirect if info.qualname not in inner.chain]
        if reached:
            chosen, callee = min(reached, key=lambda item: path_order(item[0]))
            # the same chain reached under other conditions too: say all of them
            for other, _ in reached:
                if other.chain == chosen.chain and other.when != chosen.when:
                    chosen = replace(chosen, when=disjoin(chosen.when, other.when))
            call = chosen.hops[0]
            shown_chain = " -> ".join(c.rpartition(".")[2] if "<locals>" not in c else c for c in chosen.chain)
            said = _when(chosen.when, names)
            found.append(Finding(
                path, call.line, call.column, codes.INDIRECT,
                _message(codes.INDIRECT, function=info.short, callee=callee.short, when=said, chain=shown_chain,
                         what=chosen.what, root=f"{project.display(chosen.path)}:{chosen.line}",
                         fix=_root_function(chosen.chain), **where),
                info.qualname, device, chosen.chain, f"{callee.qualname}()",
                _shown_hops(chosen.hops, project), said.strip()[5:]))
        if host_sync:
            sunk = {root for root, _ in facts.sunk}
            returned = set(roots(frozenset(facts.returned)))
            # a readback returned as it is: the function's own argument read back is a primitive
            # (``_to_numpy``); a value it computed on the device and read back is a host sync
            # reported where the readback is: a helper's sync is not its callers' (no chain)
            synced = [r for r in facts.created
                      if r not in sunk and r not in facts.escaped and r.kind == "read" and not r.chain
                      and (r not in returned or r.param is None)]
            if synced:
                first = min(synced, key=lambda r: (r.line, r.column))
                found.append(Finding(
                    path, first.line, first.column, codes.HOST_SYNC,
                    _message(codes.HOST_SYNC, function=info.short, what=first.what, **where),
                    info.qualname, device, (info.qualname, *first.chain), first.what))
    return _unsilenced(found, project)


def _when(condition: Condition, names: tuple[str, ...]) -> str:
    """`` when op is "argmax"`` (with its leading space), or "" for a path always taken."""
    text = render(condition, names)
    return f" when {text}" if text else ""


def _root_function(chain: tuple[str, ...]) -> str:
    """The function to fix for an indirect finding: the chain's last, where the data reaches the
    host (fixed there, every caller on every chain through it is clean), as the chain shows it."""
    return chain[-1].rpartition(".")[2]  # the chain shown beside it says where a nested def lives


def _shown_hops(hops: tuple[Hop, ...], project: Project) -> tuple[Hop, ...]:
    return tuple(Hop(project.display(h.path), h.line, h.column, h.function, h.what) for h in hops)


def _message(code: str, **fields: str) -> str:
    """The registry's check template for ``code``, filled, and the explain tail."""
    entry = _codes.BY_NAME[code]
    return f"{entry.messages[_codes.CHECK].format(**fields)}; {explain_tail(entry)}"


def _direct(info: FunctionInfo, direct: list[Root], how: str, path: str, where: dict[str, str], device: str,
            project: Project, when: str) -> Finding:
    root = direct[0]
    qualname = info.qualname
    short = info.short
    via = ""
    if root.chain and root.origin:
        origin_path, origin_line, origin_what = root.origin
        via = (f" (through {' -> '.join(c.rpartition('.')[2] for c in root.chain)}: {origin_what} at "
               f"{project.display(origin_path)}:{origin_line})")
    more = ""
    others = sorted({r.line for r in direct[1:] if r.line != root.line})
    if others:
        more = f"; also line{'s' if len(others) > 1 else ''} {', '.join(map(str, others[:5]))}" + (
            ", ..." if len(others) > 5 else "")
    if root.kind == "read":
        shown_how = how if "host view" in how or how.startswith("drives") else "computes its result there"
    else:
        shown_how = _upload_phrase(how)
    code = root.code if root.kind == "read" else codes.NUMPY
    message = _message(code, function=short, what=root.what, via=via, how=shown_how, when=when, also=more, **where)
    from ._solver import direct_path
    hops = _shown_hops(direct_path(info, root, ALWAYS).hops, project)
    return Finding(path, root.line, root.column, root.code, message, qualname, device, (qualname, *root.chain),
                   root.what, hops, when.strip()[5:])


def _upload_phrase(how: str) -> str:
    """'uploaded with "f()"' -> 'uploads it with "f()"'."""
    return how.replace("uploaded", "uploads it", 1)


def _unsilenced(found: list[Finding], project: Project) -> list[Finding]:
    """Drop findings silenced on their line with ``# type: ignore[code]`` or ``# device-types: ignore[code]``."""
    if not found:  # most modules: no map of every module's path to build (it was 2214 x 2214 on transformers)
        return found
    by_path = {project.display(m.path): m for m in project.modules.values()}
    texts: dict[str, list[str]] = {}
    kept = []
    for finding in found:
        lines = texts.get(finding.path)
        if lines is None:
            module = by_path.get(finding.path)
            # the text the cache outlined (the file's, its stamp matched): no second read
            lines = texts[finding.path] = ((module.current_lines() or project.source_lines(module))
                                           if module is not None else [])
        text = lines[finding.line - 1] if 0 < finding.line <= len(lines) else ""
        match = _IGNORE.search(text)
        if match is not None:
            listed = match.group("codes")
            if listed is None or finding.code in {c.strip() for c in listed.split(",")}:
                continue
        kept.append(finding)
    return sorted(kept)
