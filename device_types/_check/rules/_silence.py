"""A finding silenced on its line: ``# type: ignore[code]`` or ``# device-types: ignore[code]``."""

from __future__ import annotations

import re

from ..._finding import Finding
from .._project import Project

_IGNORE = re.compile(r"#\s*(?:type|device-types)\s*:\s*ignore(?:\[(?P<codes>[^\]]*)\])?")


def unsilenced(found: list[Finding], project: Project) -> list[Finding]:
    """``found`` without the findings silenced on their line, sorted."""
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
