"""The one finding type of ``device-types check`` and ``device-types audit``.

A finding is one ``path:line: message [code]`` line plus what tools need: the function and
backend it is in, the call chain to its root, a stable anchor for baselines, and, for
findings reached through other functions, one located hop per step (SARIF ``codeFlows``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["Finding", "Hop"]


@dataclass(frozen=True, order=True)
class Hop:
    """One step of a fallback path: a call of the next function, or (last) the root itself."""

    path: str
    line: int
    #: 0-based, like ``Finding.column``.
    column: int
    #: The function this step is in (qualified name).
    function: str
    #: ``calls "sort()"`` or the root as written (``"_to_numpy(a)"``).
    what: str


@dataclass(frozen=True, order=True)
class Finding:
    """One finding of any front end: where, which code, its message (ordered by path, then line)."""

    path: str
    line: int
    #: 0-based; None where the front end knows only the line (the audit).
    column: int | None
    code: str
    #: Ends with the registry's explain tail (``device_types._codes.explain_tail``).
    message: str
    #: Qualified name of the function it is in ("" for findings outside functions).
    function: str = field(default="", compare=False)
    #: The backend's device ("" when the front end does not tie it to one).
    backend: str = field(default="", compare=False)
    #: From this function down to the function holding the root (qualified names).
    chain: tuple[str, ...] = field(default=(), compare=False)
    #: Stable text of the root (``"_to_numpy(a)"``), for baselines that survive line shifts.
    anchor: str = field(default="", compare=False)
    #: Each call on the way and the root, with file (as displayed) and line.
    hops: tuple[Hop, ...] = field(default=(), compare=False)
    #: When the path is taken, over the function's parameters (``op is "argmax"``); "" or None: always.
    condition: str | None = field(default=None, compare=False)
