"""Facts of each checked function -> findings: one per fallback path, at its root.

A function gets at most one finding for its own host path (the first root; the others are
named in the message) and at most one for an indirect path through another backend
function, so a true fallback costs one or two lines. Host syncs are a separate, opt-in code.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from .. import _semantics as sem
from . import _codes as codes
from ._conditions import ALWAYS, Condition, render
from ._guards import parameter_names
from ._project import FunctionInfo, Project
from ._solver import Analysis, FunctionResult, indirect_path, path_order, root_order
from ._summary import Hop
from ._values import Root, roots

__all__ = ["Finding", "findings_for"]

KEEP = "keep it on {device} with an on-device composite of working ops"
_IGNORE = re.compile(r"#\s*(?:type|device-types)\s*:\s*ignore(?:\[(?P<codes>[^\]]*)\])?")


@dataclass(frozen=True, order=True)
class Finding:
    """One ``path:line: message [code]`` line, with what tools and baselines need."""

    path: str
    line: int
    column: int
    code: str
    message: str
    function: str = field(compare=False)
    backend: str = field(compare=False)
    #: From this function down to the function holding the root (qualified names).
    chain: tuple[str, ...] = field(default=(), compare=False)
    #: Stable text of the root (``"_to_numpy(a)"``), for baselines that survive line shifts.
    anchor: str = field(default="", compare=False)
    #: Each call on the way and the root, with file (as displayed) and line.
    hops: tuple[Hop, ...] = field(default=(), compare=False)
    #: When the path is taken, over the function's parameters (``op is "argmax"``); "" always.
    condition: str = field(default="", compare=False)


def findings_for(results: Iterable[FunctionResult], analysis: Analysis, project: Project,
                 host_sync: bool) -> list[Finding]:
    found: list[Finding] = []
    for result in results:
        info = result.info
        device = analysis.backends.device_of(info.module)
        if device is None or sem.is_host_copy_op(info.short):
            continue
        prefix = analysis.backends.backend_prefix_of(info.module) or info.module
        where = f"inside the {device} backend ({prefix})"
        path = project.display(info.path)
        facts = result.facts
        direct = sorted({root for root, _ in facts.sunk}, key=root_order)
        hows = {root: how for root, how in reversed(facts.sunk)}
        names = parameter_names(info)
        if direct:
            when = facts.when.get(direct[0], ALWAYS)
            found.append(_direct(info, direct, hows[direct[0]], path, where, device, project, _when(when, names)))
        elif facts.cpu_backend_calls:
            line, column, cpu_function = min(facts.cpu_backend_calls)
            when = _when(facts.cpu_when.get((line, column), ALWAYS), names)
            found.append(Finding(
                path, line, column, codes.CPU_BACKEND,
                f'"{info.short}" calls the CPU backend\'s "{cpu_function}()" on device data{when} {where}; '
                f"{KEEP.format(device=device)}; see docs/errors.md#{codes.CPU_BACKEND}",
                info.qualname, device, (info.qualname, cpu_function), f"{cpu_function}()",
                (Hop(path, line, column, info.qualname, f'calls "{cpu_function}()"'),), when.strip()[5:]))
        # the shortest chain this function's calls reach; a path that comes back to this
        # function is its own root, reported above
        reached = [(indirect_path(info, line, column, callee, inner), callee)
                   for line, column, callee, inner in facts.indirect if info.qualname not in inner.chain]
        if reached:
            chosen, callee = min(reached, key=lambda item: path_order(item[0]))
            first = chosen.hops[0]
            shown_chain = " -> ".join(c.rpartition(".")[2] if "<locals>" not in c else c for c in chosen.chain)
            when = _when(chosen.when, names)
            at = f" at {project.display(chosen.path)}:{chosen.line}"
            found.append(Finding(
                path, first.line, first.column, codes.INDIRECT,
                f'"{info.short}" calls "{callee.short}()", which falls back to the host{when} '
                f"({shown_chain}: {chosen.what}{at}) {where}; fix \"{callee.short}\" on the device "
                f"or compose on-device ops here; see docs/errors.md#{codes.INDIRECT}",
                info.qualname, device, chosen.chain, f"{callee.qualname}()",
                _shown_hops(chosen.hops, project), when.strip()[5:]))
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
                    f'"{info.short}" reads device data to the host with {first.what} only to decide control flow '
                    f"or pass a scalar (a host sync) {where}; keep the value on the device or validate "
                    f"without reading it back; see docs/errors.md#{codes.HOST_SYNC}",
                    info.qualname, device, (info.qualname, *first.chain), first.what))
    return _unsilenced(found, project)


def _when(condition: Condition, names: tuple[str, ...]) -> str:
    """`` when op is "argmax"`` (with its leading space), or "" for a path always taken."""
    text = render(condition, names)
    return f" when {text}" if text else ""


def _shown_hops(hops: tuple[Hop, ...], project: Project) -> tuple[Hop, ...]:
    return tuple(Hop(project.display(h.path), h.line, h.column, h.function, h.what) for h in hops)


def _direct(info: FunctionInfo, direct: list[Root], how: str, path: str, where: str, device: str,
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
        if "host view" in how or how.startswith("drives"):
            what = f'"{short}" reads tensor data to the host with {root.what}{via} and {how}'
        else:
            what = f'"{short}" reads tensor data to the host with {root.what}{via} and computes its result there'
        advice = KEEP.format(device=device)
    else:
        what = f'"{short}" builds its result on the host with {root.what}{via} and {_upload_phrase(how)}'
        advice = f"create it on {device} with device ops (fill, arange, a device RNG)"
    message = f"{what}{when}{more} {where}; {advice}; see docs/errors.md#{root.code}"
    from ._solver import direct_path
    hops = _shown_hops(direct_path(info, root, ALWAYS).hops, project)
    return Finding(path, root.line, root.column, root.code, message, qualname, device, (qualname, *root.chain),
                   root.what, hops, when.strip()[5:])


def _upload_phrase(how: str) -> str:
    """'uploaded with "f()"' -> 'uploads it with "f()"'."""
    return how.replace("uploaded", "uploads it", 1)


def _unsilenced(found: list[Finding], project: Project) -> list[Finding]:
    """Drop findings silenced on their line with ``# type: ignore[code]`` or ``# device-types: ignore[code]``."""
    by_path = {project.display(m.path): m for m in project.modules.values()}
    kept = []
    for finding in found:
        module = by_path.get(finding.path)
        lines = project.source_lines(module) if module is not None else []
        text = lines[finding.line - 1] if 0 < finding.line <= len(lines) else ""
        match = _IGNORE.search(text)
        if match is not None:
            listed = match.group("codes")
            if listed is None or finding.code in {c.strip() for c in listed.split(",")}:
                continue
        kept.append(finding)
    return sorted(kept)
