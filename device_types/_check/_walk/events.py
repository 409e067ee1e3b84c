"""What the walk of one function records: typed events, the rules' only input.

Each event is data (roots, sinks, calls), never text to be parsed back: where host data
starts (a readback or a host step: ``Root``), where it goes (an upload, a write into a
tensor, a host loop driving device copies: ``sunk``), which CPU-backend functions are called,
and which calls reach a summarised callee's fallback path (``indirect``). ``_solver`` turns
them into the function's summary; ``rules`` turns them into findings.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .._conditions import Condition, Test
from .._project import FunctionInfo
from .._summary import FallbackPath
from .._values import Atom, Root, Sink, SinkKind

__all__ = ["Facts", "Sink", "SinkKind"]


@dataclass
class Facts:
    """What one walk found."""

    returned: set[Atom] = field(default_factory=set)
    #: Host data uploaded to a device, or written into a tensor through a host view.
    sunk: list[tuple[Root, Sink]] = field(default_factory=list)
    uploaded_params: set[int] = field(default_factory=set)
    #: Parameters uploaded after conversion to a numpy array (``tensor_create(data)``).
    array_uploads: set[int] = field(default_factory=set)
    #: Parameters passed to a call that targets a device (``device=``): uploaded if host data.
    maybe_uploaded_params: set[int] = field(default_factory=set)
    reads_into: set[int] = field(default_factory=set)
    #: Parameters passed to a copy we cannot see into, whose direction its callers' arguments
    #: decide (``Calls.opaque_copy``: ``enqueue_copy(queue, dest, src)`` wrapping a native copy).
    copy_params: set[int] = field(default_factory=set)
    created: list[Root] = field(default_factory=list)
    #: Read roots handed back through a parameter (a D2H copy into the caller's buffer).
    escaped: set[Root] = field(default_factory=set)
    cpu_backend_calls: list[tuple[int, int, str]] = field(default_factory=list)
    #: Calls of backend functions on a path of theirs that falls back and that this call can
    #: reach: the callee's path, its condition rewritten over this function's parameters.
    indirect: list[tuple[int, int, FunctionInfo, FallbackPath]] = field(default_factory=list)
    callees: set[tuple[str, str]] = field(default_factory=set)
    #: When each sunk root is reached (created and sunk), over this function's parameters.
    when: dict[Root, Condition] = field(default_factory=dict)
    #: When each CPU-backend call (by line, column) is made.
    cpu_when: dict[tuple[int, int], Condition] = field(default_factory=dict)
    #: When each returned root is returned (made and returned), where that is not always.
    returned_when: dict[Root, Condition] = field(default_factory=dict)
    #: The function's preconditions (``WalkState.assumed``): left out where a condition is said.
    assumed: frozenset[Test] = frozenset()
    #: A ``return`` of a literal was seen (``return False``); one of anything else was seen.
    returns_literal: bool = False
    returns_value: bool = False
    #: Parameters passed where a call takes metadata (a size, a dim, ``device=``), and those
    #: used as data anywhere (an operand, a receiver, read back): a parameter only ever in the
    #: first is metadata to this function's callers (``Summary.metadata_params``).
    meta_params: set[int] = field(default_factory=set)
    data_params: set[int] = field(default_factory=set)
    #: The function returns whether parameter k is on the CPU (``return t.device.type == "cpu"``):
    #: a caller's ``if is_cpu(x):`` is a CPU guard of ``x`` (``Summary.cpu_test``).
    cpu_test: int | None = None
    #: The parameter each ``return`` gives a tensor made from, and what it keeps of it
    #: (``GuardReader.made_like``: ``_empty_like(t)``; ``Summary.made_like``).
    made_like: tuple[int, frozenset[str]] | None = None
    #: What the function's returning true says of its parameters, where it is a one-statement
    #: predicate (``GuardReader.true_when``; ``Summary.true_when``).
    true_when: frozenset[Test] | None = None
