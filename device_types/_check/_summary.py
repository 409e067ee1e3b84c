"""Function summaries: what a call of a function does with host data, seen from its caller."""

from __future__ import annotations

from dataclasses import dataclass

from .._finding import Hop
from ._conditions import ALWAYS, Condition, Test
from ._values import Root

__all__ = ["FallbackPath", "Hop", "Summary"]


@dataclass(frozen=True)
class FallbackPath:
    """Why a backend function falls back: its root, the helpers on the way, and when."""

    code: str
    what: str
    path: str
    line: int
    #: Functions from this one down to the one holding the root (qualified names).
    chain: tuple[str, ...]
    #: When the path is taken, over the parameters of ``chain[0]`` (``_conditions``).
    when: Condition = ALWAYS
    #: Every call on the way and the root, with file and line.
    hops: tuple[Hop, ...] = ()


@dataclass(frozen=True)
class Summary:
    """What a function's callers see of it: host data returned, parameters read back, fallbacks."""

    #: Parameters whose device data the function reads back and returns as host data.
    returns_read_of: frozenset[int] = frozenset()
    #: When each of ``returns_read_of`` is returned, over the parameters, where that is not
    #: always (``if exact: return to_numpy(a)``): a caller whose arguments rule it out gets none.
    returns_read_when: frozenset[tuple[int, Condition]] = frozenset()
    #: Parameters whose (host) data flows into the return value.
    returns_param: frozenset[int] = frozenset()
    #: What it returns of host data is a Python scalar (``int(buf.value)``): a sync, not data.
    scalar_return: bool = False
    #: It returns literals only (``return False``; it may raise): whatever host data it is
    #: given, none of it comes back in its result.
    returns_literal: bool = False
    #: Parameters it uses only as metadata (a size, a dim, a device: ``Facts.meta_params``):
    #: host data a caller passes there is not computed with.
    metadata_params: frozenset[int] = frozenset()
    #: Host data made inside the function (or its helpers) that it returns.
    returned_roots: frozenset[Root] = frozenset()
    #: When each of ``returned_roots`` is returned, over the parameters, where that is not
    #: always: a caller whose arguments rule it out does not get that root.
    returned_when: frozenset[tuple[Root, Condition]] = frozenset()
    #: Parameters whose host data the function uploads to a device.
    uploads: frozenset[int] = frozenset()
    #: Parameters it turns into a numpy array and uploads (``tensor_create(data)``).
    array_uploads: frozenset[int] = frozenset()
    #: Parameters it passes to a call that targets a device (uploaded, if they are arrays).
    maybe_uploads: frozenset[int] = frozenset()
    #: Parameters (host buffers) that the function fills with device data (a D2H copy).
    reads_into: frozenset[int] = frozenset()
    #: Parameters it passes to a copy we cannot see into (``Facts.copy_params``): a caller's
    #: arguments there decide its direction, as for the copy itself.
    copy_params: frozenset[int] = frozenset()
    #: The parameter whose being on the CPU the function returns (a predicate helper,
    #: ``_is_cpu(t)``): a caller's ``if _is_cpu(x):`` is a CPU guard of ``x``.
    cpu_test: int | None = None
    #: The parameter the function returns a tensor made from, and what that keeps of it (its
    #: device, dtype, shape, the project's predicates, being contiguous: ``_guards``): a
    #: caller's guard on what it passes holds for the result as far as that goes.
    made_like: tuple[int, frozenset[str]] | None = None
    #: What its returning true says of its parameters (a predicate ``_can_use_gpu(t)`` returning
    #: ``t.dtype in _GPU_DTYPES and ...``): a caller's condition that holds it true holds these,
    #: so one that contradicts them cannot hold (``ProjectCalls.feasible``).
    true_when: frozenset[Test] | None = None
    #: Set when the function is a backend function that falls back: each way it does, with
    #: the condition under which it is taken, its own roots first (in root order), then CPU
    #: backend calls, then chains through other backend functions, shortest first
    #: (deterministic, so a cached run and a cold one print the same message). Together the
    #: conditions cover every way in: a caller that rules out all of them reaches none.
    fallbacks: tuple[FallbackPath, ...] = ()

    @property
    def falls_back(self) -> bool:
        return bool(self.fallbacks)

    @property
    def fallback(self) -> FallbackPath | None:
        return self.fallbacks[0] if self.fallbacks else None


EMPTY_SUMMARY = Summary()
