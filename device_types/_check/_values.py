"""What the analysis knows about a value: where its host data came from.

A value is a frozenset of atoms. ``Root`` is host data with a known origin (device data read
back, or data built on the host); ``Param``/``ReadOf`` stand for a function's parameters while
its summary is computed. An empty set is "nothing host-side known": a device tensor, a
shape, a constant, a value of unknown type.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Union

__all__ = ["EMPTY", "Param", "ReadOf", "Root", "Value", "roots", "params"]

#: ``read``: device data copied to the host; ``built``: array data made on the host.
RootKind = Literal["read", "built"]


@dataclass(frozen=True)
class Root:
    """Where host data starts: the readback or host computation a finding points at."""

    kind: RootKind
    code: str
    #: What the user wrote, e.g. ``"_to_numpy(a)"`` or ``numpy "zeros()"``.
    what: str
    #: Where it happens, in the function being checked (a call site for helpers).
    path: str
    line: int
    column: int
    #: Helper functions between this site and the real root (qualified names), and that
    #: root (path, line, what) when it is inside a helper.
    chain: tuple[str, ...] = ()
    origin: tuple[str, int, str] | None = None
    #: Set when the data was read from this function's own parameter k (for summaries).
    param: int | None = None


@dataclass(frozen=True)
class Param:
    """The value of parameter ``index`` as the caller passed it (host data or not)."""

    index: int


@dataclass(frozen=True)
class ReadOf:
    """Host data read back from the tensor passed as parameter ``index``."""

    index: int


Atom = Union[Root, Param, ReadOf]
Value = frozenset[Atom]
EMPTY: Value = frozenset()


def roots(value: Value) -> list[Root]:
    return [a for a in value if isinstance(a, Root)]


def params(value: Value) -> set[int]:
    return {a.index for a in value if isinstance(a, Param)}


def is_host(value: Value) -> bool:
    """Known to be host data (a root, or host data read from a parameter)."""
    return any(isinstance(a, (Root, ReadOf)) for a in value)
