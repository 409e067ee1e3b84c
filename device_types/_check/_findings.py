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
from ._project import Project
from ._solver import Analysis, FunctionResult, root_order
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
        if direct:
            found.append(_direct(info.qualname, direct, hows[direct[0]], path, where, device, project))
        elif facts.cpu_backend_calls:
            line, column, cpu_function = min(facts.cpu_backend_calls)
            found.append(Finding(
                path, line, column, codes.CPU_BACKEND,
                f'"{info.short}" calls the CPU backend\'s "{cpu_function}()" on device data {where}; '
                f"{KEEP.format(device=device)}; see docs/errors.md#{codes.CPU_BACKEND}",
                info.qualname, device, (info.qualname, cpu_function), f"{cpu_function}()"))
        # a path that comes back to this function is its own root, reported above
        indirect = [item for item in facts.indirect if info.qualname not in item[3].chain]
        if indirect:
            line, column, callee, inner = min(indirect, key=lambda item: (len(item[3].chain), item[3].chain,
                                                                           item[0], item[1]))
            chain = (info.qualname, *inner.chain)
            shown_chain = " -> ".join(c.rpartition(".")[2] if "<locals>" not in c else c for c in chain)
            found.append(Finding(
                path, line, column, codes.INDIRECT,
                f'"{info.short}" calls "{callee.short}()", which falls back to the host '
                f"({shown_chain}: {inner.what}) {where}; fix \"{callee.short}\" on the device "
                f"or compose on-device ops here; see docs/errors.md#{codes.INDIRECT}",
                info.qualname, device, chain, f"{callee.qualname}()"))
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


def _direct(qualname: str, direct: list[Root], how: str, path: str, where: str, device: str,
            project: Project) -> Finding:
    root = direct[0]
    short = qualname.rpartition(".")[2]
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
        if "host view" in how:
            what = f'"{short}" reads tensor data to the host with {root.what}{via} and {how}'
        else:
            what = f'"{short}" reads tensor data to the host with {root.what}{via} and computes its result there'
        advice = KEEP.format(device=device)
    else:
        what = f'"{short}" builds its result on the host with {root.what}{via} and {_upload_phrase(how)}'
        advice = f"create it on {device} with device ops (fill, arange, a device RNG)"
    message = f"{what}{more} {where}; {advice}; see docs/errors.md#{root.code}"
    return Finding(path, root.line, root.column, root.code, message, qualname, device, (qualname, *root.chain),
                   root.what)


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
