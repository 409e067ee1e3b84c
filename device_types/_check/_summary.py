"""Function summaries: what a call of a function does with host data, seen from its caller."""

from __future__ import annotations

from dataclasses import dataclass

from ._values import Root

__all__ = ["Summary", "FallbackPath"]


@dataclass(frozen=True)
class FallbackPath:
    """Why a backend function falls back: its root and the helpers on the way."""

    code: str
    what: str
    path: str
    line: int
    #: Functions from this one down to the one holding the root (qualified names).
    chain: tuple[str, ...]


@dataclass(frozen=True)
class Summary:
    #: Parameters whose device data the function reads back and returns as host data.
    returns_read_of: frozenset[int] = frozenset()
    #: Parameters whose (host) data flows into the return value.
    returns_param: frozenset[int] = frozenset()
    #: What it returns of host data is a Python scalar (``int(buf.value)``): a sync, not data.
    scalar_return: bool = False
    #: Host data made inside the function (or its helpers) that it returns.
    returned_roots: frozenset[Root] = frozenset()
    #: Parameters whose host data the function uploads to a device.
    uploads: frozenset[int] = frozenset()
    #: Parameters it turns into a numpy array and uploads (``tensor_create(data)``).
    array_uploads: frozenset[int] = frozenset()
    #: Parameters it passes to a call that targets a device (uploaded, if they are arrays).
    maybe_uploads: frozenset[int] = frozenset()
    #: Parameters (host buffers) that the function fills with device data (a D2H copy).
    reads_into: frozenset[int] = frozenset()
    #: Set when the function is a backend function that falls back: its own first root, or
    #: else the shortest chain through other backend functions (deterministic, so a cached
    #: run and a cold one print the same message).
    fallback: FallbackPath | None = None

    @property
    def falls_back(self) -> bool:
        return self.fallback is not None


EMPTY_SUMMARY = Summary()
