"""What the analysis knows about a value: where its host data came from.

A value is a frozenset of atoms. ``Root`` is host data with a known origin (device data read
back, or data built on the host); ``Param``/``ReadOf`` stand for a function's parameters while
its summary is computed. An empty set is "nothing host-side known": a device tensor, a
shape, a constant, a value of unknown type.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Literal, Union

from .. import _semantics as sem

if TYPE_CHECKING:
    from .._vocabulary import HostVocabulary

__all__ = ["accumulated", "collected_data", "GUARDED_CPU", "decided_by", "root_identity", "ArrayOf", "COMPUTED", "EMPTY", "STORAGE", "Computed", "HostOnly", "LoopFilled", "Param", "Pending", "ReadOf",
           "Root", "Sink", "SinkKind", "StorageOf", "Value", "as_scalar", "data_operands", "is_host", "host_operands",
           "host_operands_of", "items_of", "overwritten", "params", "pending_of", "root_fields", "root_rank", "roots",
           "storage_step", "wrapped", "writes_back"]

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
    #: A Python scalar (``.item()``, ``int(...)``): uploading it stages a kernel operand, a
    #: host sync at most, never a host-computed result.
    scalar: bool = False
    #: Weaker evidence (a container filled in a loop): another root at the site comes first.
    weak: bool = False
    #: The calls between this site and ``origin``, one per helper of ``chain`` but the last
    #: (path, line, column, what): the hops a finding shows.
    steps: tuple[tuple[str, int, int, str], ...] = ()
    #: A private host copy (``.cpu()``, ``.to("cpu")`` of a device tensor): a write into it
    #: writes into no tensor; uploaded, it is host data like any other.
    copy: bool = False
    #: Its elements are Python scalars (``.tolist()``, ``sem.SCALAR_ELEMENT_READBACKS``): an
    #: item of it (``xs[0]``, a loop's variable) is a scalar, and still an element of the data
    #: (``decided_by``), where ``.item()`` of a size is only a scalar.
    scalar_items: bool = False


@dataclass(frozen=True)
class Param:
    """The value of parameter ``index`` as the caller passed it (host data or not)."""

    index: int


@dataclass(frozen=True)
class ReadOf:
    """Host data read back from the tensor passed as parameter ``index``."""

    index: int


@dataclass(frozen=True)
class HostOnly:
    """Host memory or a tensor known to be on the CPU here (a pinned buffer, a branch under
    ``x.device.type == "cpu"``): host data, but nobody's device data."""

    why: str


#: A tensor a guard puts on the CPU (``if x.device.type == "cpu":``): no device data in it,
#: and no evidence of where another tensor moved ``.to(x.device)`` goes.
GUARDED_CPU = HostOnly("cpu tensor")


@dataclass(frozen=True)
class FromInputs:
    """numpy computing with what the function is given as data (``np.isin(np.asarray(x), y)``),
    a tensor read through ``__array__`` or the user's data: uploaded by this function, it is the
    op's result built on the host (``Writes.sink``); returned as it is, its caller's data."""

    line: int
    column: int
    what: str


@dataclass(frozen=True)
class LoopFilled:
    """A Python container filled in a loop (``idx.append(...)`` in a ``for``, a comprehension):
    uploading it (directly or through ``np.array``) uploads data built on the host."""

    name: str
    line: int
    column: int


@dataclass(frozen=True)
class ArrayOf:
    """Parameter ``index`` turned into a numpy array (``np.array(data)``): a function that
    uploads it uploads whatever its caller passes as array data."""

    index: int


#: How host data reaches the device or the op's result; the check's messages say each one
#: in the registry's words (``device_types._codes.CHECK_SINKS``).
SinkKind = Literal[
    "upload",          # uploaded, by a call that names no callee
    "upload_with",     # uploaded with a transfer or factory (``.to()``, ``tensor_create()``)
    "upload_by",       # uploaded by a project function or one that names a device
    "h2d_copy",        # copied to device memory (an H2D memcpy)
    "copy_into",       # copied into a device tensor (``out.copy_(host)``)
    "device_write",    # written into a device tensor (``dev[i] = host``)
    "out_write",       # written into a device tensor with ``out=``
    "host_view",       # written into a tensor through a host view of its memory
    "write_back",      # a caller's data copied into its tensor by a helper that returns nothing
    "drives_copies",   # the addresses of element copies into a device tensor, in a host loop
    "drives_call",     # the addresses of a device copy call, in a host loop
    "host_result",     # the op's result, computed on the host and returned
]


@dataclass(frozen=True)
class Sink:
    """Where host data went (``kind``), and the call that took it there, as written (``call``)."""

    kind: SinkKind
    call: str = ""

    @property
    def computes_result(self) -> bool:
        """For data read back: this sink is how the host makes the op's result from it (a write
        through a view, copies driven element by element), not just its way back."""
        return self.kind in ("host_view", "drives_copies", "drives_call")


@dataclass(frozen=True)
class Pending:
    """A device tensor uploaded from data the host built from metadata alone (a loop over
    shapes, ``range``, strides): an operand of a device kernel (an index map, offsets) is
    metadata staged for it, no finding; returned as the op's result (``tril_indices``, an
    ``arange`` filled by a loop) it is the result built on the host."""

    root: Root
    sink: Sink


@dataclass(frozen=True)
class Computed:
    """The host data went through a host computation (numpy, arithmetic), not just a copy."""


COMPUTED = Computed()


@dataclass(frozen=True)
class StorageOf:
    """The value is the storage behind a tensor (``t._storage``, ``t.untyped_storage()``), with
    that tensor's other facts beside it: its host buffer (``.data``, ``.buffer()``: the
    vocabulary's ``storage_host_views``) is a host view of the tensor's memory, as
    ``t._numpy_view()`` is."""


STORAGE = StorageOf()

Atom = Union[Root, Param, ReadOf, HostOnly, LoopFilled, FromInputs, ArrayOf, Pending, Computed, StorageOf]
Value = frozenset[Atom]
EMPTY: Value = frozenset()


def root_fields(root: Root) -> tuple[object, ...]:
    """Every field of ``root``, comparable: the last key of any order of roots, so that two
    roots at one site never tie (a tie would leave the order to a set's, which changes from
    process to process: ``hash(None)`` does on Python 3.11)."""
    return (root.kind, root.code, root.what, root.path, root.line, root.column, root.chain,
            root.origin or ("", 0, ""), -1 if root.param is None else root.param, root.scalar, root.weak, root.steps, root.copy)


def roots(value: Value) -> list[Root]:
    return [a for a in value if isinstance(a, Root)]


def params(value: Value) -> set[int]:
    return {a.index for a in value if isinstance(a, Param)}


def is_host(value: Value) -> bool:
    """Known to be host data (a root, host data read from a parameter, host memory)."""
    return any(isinstance(a, (Root, ReadOf, HostOnly)) for a in value)


def host_operands(value: Value) -> Value:
    """The host tensor data among ``value``: what an operation on it computes with on the host.

    Data read back or built on the host (not a Python scalar: a scalar is a kernel operand or a
    sync), host data read from a parameter, and host memory. Whatever takes these as operands,
    the framework's own op, numpy, a method, an operator or a helper we cannot see, runs where
    they are: on the host. Empty when ``value`` holds none (device data, metadata, unknown)."""
    if not value:
        return EMPTY
    found = frozenset(a for a in value if isinstance(a, (ReadOf, HostOnly)) or (isinstance(a, Root) and not a.scalar))
    if not any(isinstance(a, (Root, ReadOf)) for a in found):
        return EMPTY  # host memory alone (a pinned buffer, a CPU branch) is nobody's device data
    return found | frozenset({COMPUTED})


def host_operands_of(values: "Iterable[Value]") -> Value:
    """``host_operands`` of the union of ``values``, without building the union when none holds
    host data (the common case: parameters, device values)."""
    found: set[Atom] = set()
    data = False
    for value in values:
        for a in value:
            if isinstance(a, (Root, ReadOf)):
                if isinstance(a, ReadOf) or not a.scalar:
                    found.add(a)
                    data = True
            elif isinstance(a, HostOnly):
                found.add(a)
    if not data:
        return EMPTY
    found.add(COMPUTED)
    return frozenset(found)


def as_scalar(value: Value) -> Value:
    """``int(x)``/``float(x)``/``.item()`` of host data: the same origins, now Python scalars.

    A value the host already computed with (``bool(np.allclose(a_np, b_np))``) stays what it
    is: the scalar is the op's result, computed on the host."""

    if COMPUTED in value:
        return value
    return frozenset(replace(a, scalar=True) if isinstance(a, Root) and not a.scalar else a for a in value)


def root_identity(root: Root) -> tuple[object, ...]:
    """A root whatever the flags a value's use set on it (``scalar``, ``scalar_items``): where
    and what it is."""
    return (root.kind, root.path, root.line, root.column, root.what, root.chain)


def decided_by(value: Value) -> Value:
    """Data read back that decides what a host loop keeps (``if host[i] != host[i - 1]:
    keep.append(i)``, a comprehension's filter, ``counts[v] += 1``): what the loop builds is
    computed from it, not a scalar operand."""
    # (a Python scalar read on its own, ``int(n.item())``, decides as a host sync: a size, a count)
    read = [a for a in value if isinstance(a, Root) and a.kind == "read" and (not a.scalar or a.scalar_items)]
    if not read:
        return EMPTY
    return frozenset(replace(a, scalar=False, scalar_items=False) for a in read) | {COMPUTED}


def collected_data(value: Value) -> Value:
    """What a loop or a comprehension collects, element by element: scalars read back that it
    computed with (``[v * 2 for v in x.tolist()]``) are array data; scalars only converted
    (``[int(h.item()) for h in sizes]``: sizes) stay scalars."""
    # elements only compared or converted (``[v > 0 for v in xs]``) stay what they were: a
    # caller that tests them decides control flow with them
    return accumulated(value) if COMPUTED in value else value


def accumulated(value: Value) -> Value:
    """Scalars read back and accumulated over a host loop: data the host computed, no longer a
    scalar operand (``total += a[i].item()``)."""
    if not any(isinstance(a, Root) and a.scalar and a.kind == "read" for a in value):
        return value
    return frozenset(replace(a, scalar=False) if isinstance(a, Root) and a.scalar and a.kind == "read" else a
                     for a in value) | {COMPUTED}


def overwritten(buffer: Value) -> Value:
    """A host buffer after a device-to-host copy into it: what the host built there (the
    ``np.zeros`` staging buffer) is gone; it holds device data now."""
    return frozenset(a for a in buffer if not (isinstance(a, Root) and a.kind == "built"))


def items_of(container: Value) -> Value:
    """What iterating or indexing ``container`` gives: an item of a loop-filled list is not
    itself a loop-filled list (its other origins, e.g. data read back, stay); an item of a
    list of Python scalars read back (``.tolist()``) is a scalar."""
    if not any(isinstance(a, LoopFilled) or isinstance(a, Root) and a.scalar_items for a in container):
        return container
    return frozenset(replace(a, scalar=True) if isinstance(a, Root) and a.scalar_items else a
                     for a in container if not isinstance(a, LoopFilled))


def pending_of(value: Value) -> Value:
    """The uploads pending in ``value`` (``Pending``): what a call that moves or wraps it carries."""
    return frozenset(a for a in value if isinstance(a, Pending))


def wrapped(given: Value) -> Value:
    """What an object built around ``given`` holds for the walk: the parameters it wraps and
    uploads pending (``Tensor(storage_of_uploaded_data, shape)`` is that upload), not host data
    (a tensor around a host view of device memory is that tensor: ``_from_metal_buffer``)."""
    return frozenset(a for a in given if isinstance(a, (Param, Pending)))


def root_rank(root: Root) -> tuple[object, ...]:
    return len(root.chain), root.chain, root.origin or ("", 0, ""), root.line, root.column, root.what, root.kind, \
        root_fields(root)


def data_operands(op: str, args: Sequence[Value], kwargs: Mapping[str | None, Value], starred: bool,
                  method: bool = False) -> Value | None:
    """What ``op`` computes with, when some of its arguments are metadata (``sem.SHAPE_ARGUMENT_OPS``:
    ``torch.split(x, sizes)``, ``x.split(sizes)``, ``torch.cat(ts, dim)``): the union of its data
    arguments, leaving out sizes, dims and sections however they were computed (a count read back
    for ``split`` is a host sync at most, not host data the op computes with). ``args``: the
    positional values; ``kwargs``: the keyword ones; ``method``: called on its tensor, which is
    not among ``args``. None: every argument is data (not such an op, or a ``*args`` that hides
    which position is which)."""
    if op not in sem.SHAPE_ARGUMENT_OPS or (starred and not method):
        return None
    found: Value = EMPTY
    for position, value in enumerate(args):
        if not sem.is_metadata_argument(op, position=position, method=method):
            found = found | value
    for keyword, value in kwargs.items():
        if keyword is None or not sem.is_metadata_argument(op, keyword=keyword, method=method):
            found = found | value
    return found


def storage_step(name: str, value: Value, vocabulary: "HostVocabulary") -> tuple[Value, bool] | None:
    """Reading ``name`` (an attribute, or a method called without arguments) of ``value``, where
    it concerns a tensor's storage: (what it gives, whether that is a host view of device memory).

    - ``t._storage`` (``storage_accessors``): the storage, ``value`` marked ``STORAGE``;
    - ``storage.data`` (``storage_host_views``, on a value so marked): the storage's memory as
      host data, a view of its tensor: the tensor's facts without the mark, a read of device
      memory unless they are host data already (the storage of a CPU tensor, of a host array).

    None: ``name`` is neither (a tensor's own ``.data`` is the tensor)."""
    if name in vocabulary.storage_host_views and STORAGE in value:
        data = value - {STORAGE}
        return data, not is_host(data)
    if name in vocabulary.storage_accessors:
        return value | {STORAGE}, False
    return None


def writes_back(view: Iterable[Root], value: Value) -> bool:
    """``view[...] = value`` where ``view`` is a host view of the function's own parameters and
    ``value`` nothing but a parameter's data: the caller's data copied into the caller's tensor,
    with nothing computed on the way (``_write_back(t, arr)``)."""
    return bool(value) and all(isinstance(a, Param) for a in value) and all(r.param is not None for r in view)
