"""The host vocabulary of ``device-types check``, as data: what untyped backend code reads
back, uploads, computes with on the host, and what only looks like it.

semgrep's taint rules are the model: sources (readbacks, raw memory reads, device-to-host
copies), sinks (uploads, host-to-device copies, device-targeting factories), propagators (host
conversions, plain builtins), sanitizers (metadata functions and builtins) and host-compute
libraries are all named here, once. ``_check._interpret`` holds no names of its own; it asks
a ``HostVocabulary``. A project whose framework spells things differently extends the built-in
vocabulary in ``[tool.device_types.check.vocabulary]`` with the same field names
(``docs/untyped-backends.md`` has a worked example); extensions add names, never remove them.

Torch's own ops (``.cpu()``, ``.numpy()``, factories, metadata attributes) are not host
vocabulary: they are the op-semantics table, ``device_types._semantics``.
Name *patterns* are regular expressions searched, case-insensitively, in a callee's last name.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, fields, replace
from functools import cached_property
from typing import Any, Final

__all__ = ["BUILTIN", "CopyApi", "HostVocabulary", "VocabularyError", "extended"]


class VocabularyError(ValueError):
    """A malformed vocabulary extension; ``str()`` is the user-facing line."""


@dataclass(frozen=True)
class CopyApi:
    """A runtime copy whose direction is an argument value: ``acl.rt.memcpy(dst, dst_size,
    src, count, kind)`` with ``kind == 2`` (ACL_MEMCPY_DEVICE_TO_HOST) reads device data into
    ``dst``; ``kind == 1`` uploads ``src``; ``kind == 3`` copies on the device."""

    #: The callee's last name (``memcpy``, ``aclrtMemcpy``, ``cudaMemcpy``).
    name: str
    #: Positions of the direction, destination and source arguments.
    kind: int
    destination: int = 0
    source: int = 1
    #: Literal values (numbers, or constant names) of the direction argument.
    device_to_host: frozenset[object] = frozenset()
    host_to_device: frozenset[object] = frozenset()


@dataclass(frozen=True)
class HostVocabulary:
    """The names and patterns that tell the check what is host computation, a readback, an upload."""

    # --- host computation ---------------------------------------------------------------
    #: Modules whose functions compute on the host (their results are host data).
    host_modules: frozenset[str] = frozenset({
        "numpy", "scipy", "math", "cmath", "statistics", "random", "itertools", "functools",
        "operator", "bisect", "heapq", "array",
    })
    #: numpy functions that build new array data on the host from metadata alone (shapes,
    #: ranges): uploading what they return is a host-built result. ``empty`` is not one: it
    #: holds no data until something computes into it, and that is what gets tracked.
    host_array_builders: frozenset[str] = frozenset({
        "zeros", "ones", "full", "arange", "linspace", "logspace", "geomspace", "eye",
        "identity", "tri", "triu_indices", "tril_indices", "indices", "diag_indices", "mgrid", "ogrid",
    })
    #: numpy functions whose first argument is a shape (metadata), not array data: a list a
    #: loop built and passed there is a shape, never uploaded data.
    shape_first_functions: frozenset[str] = frozenset({"empty", "zeros", "ones", "full", "ndindex"})
    #: numpy functions and ndarray methods whose arguments after the data are shapes or axes
    #: (metadata): ``np.broadcast_to(a, out_shape)``, ``arr.reshape(shape)``.
    shape_after_data_functions: frozenset[str] = frozenset({
        "broadcast_to", "reshape", "tile", "transpose", "expand_dims", "squeeze", "moveaxis", "swapaxes",
        "resize", "flip", "roll", "rot90", "permute", "view", "expand", "repeat"})
    #: Parameter names that take a shape, sizes, strides or axes: what a caller passes there is
    #: metadata, however it was built (``zeros(shape, device)`` of a project, like
    #: ``np.zeros(shape)``), never the data of the tensor made.
    shape_parameter_names: frozenset[str] = frozenset({
        "shape", "size", "sizes", "out_shape", "new_shape", "output_shape", "output_size", "stride", "strides",
        "dims", "axes", "perm", "permutation"})
    #: numpy functions that, given metadata alone (shapes, strides, counters), compute more
    #: metadata: index arithmetic (offsets, index maps, sizes), not values of a table
    #: (``np.cumsum(strides)`` stays metadata; ``np.cos(angles)`` is computed data).
    index_arithmetic_functions: frozenset[str] = frozenset({
        "cumsum", "cumprod", "prod", "sum", "diff", "ravel_multi_index", "unravel_index", "searchsorted", "argsort",
        "nonzero", "flatnonzero", "where", "concatenate", "stack", "hstack", "vstack"})
    #: Builders whose first argument is the shape: with a literal one-element shape
    #: (``np.full((1,), value)``) they stage one scalar operand, not a result.
    shape_first_builders: frozenset[str] = frozenset({"zeros", "ones", "full"})
    #: Host random-number modules: everything their functions return is host-built.
    host_rng_modules: frozenset[str] = frozenset({"numpy.random", "random"})
    #: Methods of numpy's RandomState/Generator: called on a receiver named like an RNG
    #: (``rng_receiver_patterns``: ``rng``, ``self._rng``, ``generator._rng``) they draw host random numbers.
    host_rng_methods: frozenset[str] = frozenset({
        "random", "random_sample", "rand", "randn", "randint", "integers", "permutation", "shuffle", "choice",
        "uniform", "normal", "standard_normal", "exponential", "standard_exponential", "binomial", "poisson",
        "multinomial", "geometric", "gamma", "beta", "laplace", "logistic", "lognormal", "cauchy", "standard_cauchy",
        "standard_gamma", "standard_t", "chisquare", "weibull", "pareto", "rayleigh", "bytes", "dirichlet",
    })
    rng_receiver_patterns: tuple[str, ...] = (r"rng|random|generator|(^|_)gen($|_)",)
    #: Python builtins that compute on host values (their result carries the argument's data).
    host_builtins: frozenset[str] = frozenset({
        "float", "int", "bool", "complex", "list", "tuple", "sorted", "sum", "min", "max", "abs",
        "round", "zip", "enumerate", "reversed", "map", "filter", "set", "frozenset", "dict",
        "any", "all", "divmod", "pow", "bytes", "bytearray", "memoryview", "iter", "next",
    })
    #: Builtins that make a Python scalar of host data (a staged operand, not a result).
    scalar_builtins: frozenset[str] = frozenset({"int", "float", "bool", "complex"})
    #: Functions that encode values into a buffer given as their second argument, at an offset
    #: (``struct.pack_into(fmt, buffer, offset, *values)``): into a mapped view of a tensor's
    #: memory, values the host read back or computed are a result written through a host view.
    buffer_writers: frozenset[str] = frozenset({"struct.pack_into"})
    #: Functions that decode raw host bytes into Python scalars (a staged operand, not a result).
    scalar_decoders: frozenset[str] = frozenset({"struct.unpack", "struct.unpack_from"})
    #: ndarray methods that change the array they are called on (a write, if it views a tensor).
    #: numpy functions that write into their first argument (``np.copyto(dst, src)``, a ufunc's
    #: ``np.add.at(arr, idx, vals)``, ``np.put``): into a host view of a tensor, that is the tensor.
    host_writing_functions: frozenset[str] = frozenset({
        "copyto", "at", "put", "place", "putmask", "fill_diagonal", "put_along_axis"})
    host_in_place_methods: frozenset[str] = frozenset({
        "fill", "sort", "put", "itemset", "partition", "resize", "setfield", "__setitem__"})

    # --- propagators: host data moved, not computed with -----------------------------------
    #: numpy functions and ndarray methods that convert, copy or rearrange host data without
    #: computing with it: a readback passed through them is still just a readback.
    host_conversions: frozenset[str] = frozenset({
        "array", "asarray", "ascontiguousarray", "asfortranarray", "asanyarray", "copy", "frombuffer",
        "fromiter", "reshape", "ravel", "flatten", "squeeze", "expand_dims", "transpose", "moveaxis",
        "swapaxes", "broadcast_to", "atleast_1d", "atleast_2d", "atleast_3d", "astype", "view", "tolist",
        "tobytes", "item", "stack", "concatenate", "split", "require", "ctypeslib", "as_array", "get",
        "pop", "items", "values", "keys", "index", "count",
    })
    #: numpy functions and ndarray methods that make a private copy of host data (``arr.copy()``,
    #: ``np.copy(arr)``, ``np.array(arr)``): a write into the copy writes into no tensor.
    private_copies: frozenset[str] = frozenset({"copy", "array"})
    #: Names of helpers we cannot see that re-type raw host data without computing with it
    #: (``acl.util.ptr_to_bytes(ptr, n)``, ``bytes_to_ptr``): what they return is what they got.
    conversion_patterns: tuple[str, ...] = (
        r"(^|_)(ptr|pointer|address|buffer|bytes|numpy)_?to_|(^|_)to_(bytes|ptr|pointer|buffer)$|from_(ptr|pointer|address|buffer|bytes)$",)
    #: Builtins that move host data around without computing with it.
    plain_builtins: frozenset[str] = frozenset({
        "list", "tuple", "zip", "enumerate", "reversed", "iter", "next", "dict", "set", "frozenset", "bytes",
        "bytearray", "memoryview", "map", "filter"})
    #: Methods that return (a view or copy of) their receiver, whatever it holds.
    passthrough_methods: frozenset[str] = frozenset({
        "copy", "astype", "reshape", "view", "ravel", "flatten", "transpose", "squeeze", "copy_", "clone",
        "contiguous", "detach", "get", "pop", "items", "values", "keys"})
    #: Container methods that add to the container (a loop calling them may build data).
    container_add_methods: frozenset[str] = frozenset({
        "append", "extend", "insert", "add", "update", "appendleft", "extendleft"})

    # --- sanitizers: metadata, never data ----------------------------------------------------
    #: numpy functions that answer a question about dtypes or shapes.
    host_metadata_functions: frozenset[str] = frozenset({
        "dtype", "iinfo", "finfo", "issubdtype", "result_type", "promote_types", "can_cast",
        "isscalar", "ndim", "shape", "size", "broadcast_shapes", "min_scalar_type", "isdtype",
    })
    #: Builtins that return metadata about a value, never its data.
    metadata_builtins: frozenset[str] = frozenset({
        "len", "isinstance", "type", "id", "hasattr", "callable", "issubclass"})
    #: Builtins whose result carries no tensor data at all.
    inert_builtins: frozenset[str] = frozenset({
        "print", "repr", "str", "format", "hash", "getattr", "setattr", "super", "object", "vars", "locals",
        "globals", "open"})
    #: Builtins that make index keys, never numbers: a loop appending ``slice(None)`` collects keys.
    key_builtins: frozenset[str] = frozenset({"slice"})
    #: Iterables whose values are counters (loop indices), not the items of a container: what
    #: a loop over them appends is computed on the host (an index map), not collected.
    counting_iterators: frozenset[str] = frozenset({"range", "enumerate", "ndindex", "ndenumerate", "product",
                                                    "arange"})

    # --- sources: device data reaching the host --------------------------------------------
    #: Methods that, called with no argument, read their receiver's data back (CuPy's
    #: ``x.data.get()``; ``d.get(key)`` of a dict takes one).
    argless_readbacks: frozenset[str] = frozenset({"get"})
    #: Helper names that return host data of their first argument (``_to_numpy``, ``to_host``,
    #: MindSpore's ``x.asnumpy()``;
    #: not ``numpy_to_ptr``, which goes from numpy: a conversion).
    readback_patterns: tuple[str, ...] = (
        r"(^|_)(to_|as)?numpy($|_(?!to_))|numpy_view|(^|_)to_(cpu|host)$|(^|_)d2h($|_)|dtoh",
        # JAX's ``device_get``, tinygrad's ``copyout``, Kompute's ``sync_local``; a view of device memory mapped into the
        # host (``x._host_view()``, ``enqueue_map_buffer``, ``map_host``): writes go to the tensor
        r"(^|_)device_get$|(^|_)copyout(_bytes)?$|(^|_)host_(view|array)$|(^|_)map_(host|buffer)$|(^|_)sync_local$",)
    #: Attributes (properties) that are a tensor's data on the host: JAX's ``x._npy_value``.
    readback_attributes: frozenset[str] = frozenset({"_npy_value"})
    #: Names of device-to-host copies: a callee, or a constant passed as a copy's kind.
    d2h_patterns: tuple[str, ...] = (r"d2h|dtoh|device_?to_?host",)
    #: ctypes/numpy views of raw memory: on a device pointer, a read of device data.
    raw_memory_reads: frozenset[str] = frozenset({"from_address", "string_at", "as_array"})
    #: Attributes and no-argument methods that give the storage behind a tensor (or behind a
    #: storage): ``t._storage``, ``t.untyped_storage()``, ``typed._untyped``.
    storage_accessors: frozenset[str] = frozenset({
        "_storage", "storage", "untyped_storage", "_untyped_storage", "typed_storage", "_typed_storage", "_untyped"})
    #: Attributes and no-argument methods of a storage that are its memory as host data (a numpy
    #: array over unified or pinned memory: ``t._storage.data``, ``storage.buffer()``): read on
    #: a device tensor's storage, a host view of the tensor, as ``t._numpy_view()`` is; a
    #: write through it is a write into the tensor. Only after a ``storage_accessors`` step:
    #: a tensor's own ``.data`` is the tensor.
    storage_host_views: frozenset[str] = frozenset({"data", "_data", "buffer"})
    #: Copies whose direction is an argument value (the ACL and CUDA runtimes).
    copy_apis: tuple[CopyApi, ...] = (
        CopyApi("memcpy", kind=4, destination=0, source=2, device_to_host=frozenset({2}),
                host_to_device=frozenset({1})),
        CopyApi("memcpy_async", kind=4, destination=0, source=2, device_to_host=frozenset({2}),
                host_to_device=frozenset({1})),
        CopyApi("aclrtMemcpy", kind=4, destination=0, source=2, device_to_host=frozenset({2}),
                host_to_device=frozenset({1})),
        CopyApi("aclrtMemcpyAsync", kind=4, destination=0, source=2, device_to_host=frozenset({2}),
                host_to_device=frozenset({1})),
        CopyApi("cudaMemcpy", kind=3, destination=0, source=1, device_to_host=frozenset({2}),
                host_to_device=frozenset({1})),
        CopyApi("cudaMemcpyAsync", kind=3, destination=0, source=1, device_to_host=frozenset({2}),
                host_to_device=frozenset({1})),
    )

    # --- sinks: host data reaching a device ------------------------------------------------
    #: Helper names that upload their argument (``_from_numpy``, ``h2d``, ``upload``).
    upload_patterns: tuple[str, ...] = (r"from_numpy|(^|_)h2d($|_)|htod|host_?to_?device|(^|_)upload",
                                        # JAX's ``device_put``, tinygrad's ``copyin``, pyopencl's ``to_device``, Kompute's ``sync_device``
                                        r"(^|_)device_put$|(^|_)copyin$|(^|_)to_device$|(^|_)sync_device$")
    #: Tensor constructors of a framework other than torch (``mindspore.tensor(arr)``): in a
    #: device backend they make a device tensor, so host data passed to them is uploaded.
    #: torch's own factories are the op-semantics table's (no ``device=``: a CPU tensor).
    tensor_factories: frozenset[str] = frozenset({"tensor", "Tensor", "as_tensor", "array"})
    #: Raw copies into a pointer (``memmove(dst, src, n)``): host data copied this way lands in
    #: device memory, unless the destination is a host buffer (then it is a device-to-host read).
    raw_copies: frozenset[str] = frozenset({"memmove", "memcpy", "memcpy_async"})
    #: Copies that a host loop can drive element by element (``memcpy_d2d(out + i, ...)``).
    device_copy_patterns: tuple[str, ...] = (r"memcpy|memmove|copy",)

    # --- host memory ---------------------------------------------------------------------
    #: Allocators of (pinned) host memory: what they return is host memory, nobody's device data.
    host_allocation_patterns: tuple[str, ...] = (r"malloc_?host|host_?alloc|alloc_?host|pinned|mallochost",)
    #: ctypes functions that make a host buffer (a ``(c_char * n)()`` array is one too).
    host_buffer_factories: frozenset[str] = frozenset({"create_string_buffer", "create_unicode_buffer"})
    #: numpy functions that allocate an array and fill it with nothing (``np.empty(shape)``):
    #: host memory, nobody's data until something is copied or computed into it.
    host_array_allocators: frozenset[str] = frozenset({"empty", "empty_like"})

    # --- compiled forms (not fields a project sets) ----------------------------------------

    @cached_property
    def readback_name(self) -> re.Pattern[str]:
        return _compiled(self.readback_patterns)

    @cached_property
    def conversion_name(self) -> re.Pattern[str]:
        return _compiled(self.conversion_patterns)

    @cached_property
    def upload_name(self) -> re.Pattern[str]:
        return _compiled(self.upload_patterns)

    @cached_property
    def d2h_name(self) -> re.Pattern[str]:
        return _compiled(self.d2h_patterns)

    @cached_property
    def rng_receiver(self) -> re.Pattern[str]:
        return _compiled(self.rng_receiver_patterns)

    @cached_property
    def host_allocation(self) -> re.Pattern[str]:
        return _compiled(self.host_allocation_patterns)

    @cached_property
    def device_copy(self) -> re.Pattern[str]:
        return _compiled(self.device_copy_patterns)

    @cached_property
    def storage_names(self) -> frozenset[str]:
        """``storage_accessors`` and ``storage_host_views`` together: one test on the walk's hot path."""
        return self.storage_accessors | self.storage_host_views

    @cached_property
    def copy_api(self) -> dict[str, CopyApi]:
        return {api.name: api for api in self.copy_apis}


def _compiled(patterns: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile("|".join(f"(?:{p})" for p in patterns) or r"(?!)", re.I)


BUILTIN: Final = HostVocabulary()

#: Fields a project may extend, by kind: names, patterns, copy APIs.
_NAME_FIELDS: Final = frozenset(f.name for f in fields(HostVocabulary) if f.type.startswith("frozenset"))
_PATTERN_FIELDS: Final = frozenset(f.name for f in fields(HostVocabulary) if f.type.startswith("tuple[str"))
KEYS: Final = _NAME_FIELDS | _PATTERN_FIELDS | {"copy_apis"}


def extended(raw: object, where: str) -> HostVocabulary:
    """The built-in vocabulary plus a project's ``[tool.device_types.check.vocabulary]`` table."""
    if not raw:
        return BUILTIN
    if not isinstance(raw, dict):
        raise VocabularyError(f"{where} must be a table")
    changes: dict[str, Any] = {}
    for key, value in raw.items():
        if key not in KEYS:
            raise VocabularyError(f"{where} unknown key {key!r}; known keys: {', '.join(sorted(KEYS))}")
        if key == "copy_apis":
            changes[key] = BUILTIN.copy_apis + tuple(_copy_api(item, f"{where} copy_apis") for item in _listed(value, key, where, dict))
            continue
        items = _listed(value, key, where, str)
        if key in _PATTERN_FIELDS:
            for pattern in items:
                try:
                    re.compile(pattern)
                except re.error as exc:
                    raise VocabularyError(f"{where} {key}: {pattern!r} is not a regular expression ({exc})") from None
            changes[key] = getattr(BUILTIN, key) + tuple(items)
        else:
            changes[key] = getattr(BUILTIN, key) | frozenset(items)
    return replace(BUILTIN, **changes)


def _listed(value: object, key: str, where: str, kind: type) -> list[Any]:
    if isinstance(value, kind):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, kind) for v in value):
        raise VocabularyError(f"{where} {key} must be a list of {'strings' if kind is str else 'tables'}")
    return value


def _copy_api(item: dict[str, Any], where: str) -> CopyApi:
    allowed = {"name", "kind", "destination", "source", "device_to_host", "host_to_device"}
    unknown = sorted(set(item) - allowed)
    if unknown or not isinstance(item.get("name"), str) or not isinstance(item.get("kind"), int):
        raise VocabularyError(f"{where}: each entry needs name (a string) and kind (an argument position); "
                              f"known keys: {', '.join(sorted(allowed))}")
    directions = {}
    for key in ("device_to_host", "host_to_device"):
        values = item.get(key, [])
        if not isinstance(values, list) or not all(isinstance(v, (int, str)) for v in values):
            raise VocabularyError(f"{where}: {key} must be a list of numbers or constant names")
        directions[key] = frozenset(values)
    positions = {k: item.get(k, d) for k, d in (("destination", 0), ("source", 1))}
    if not all(isinstance(v, int) and v >= 0 for v in positions.values()):
        raise VocabularyError(f"{where}: destination and source must be argument positions (0, 1, ...)")
    return CopyApi(item["name"], item["kind"], positions["destination"], positions["source"], **directions)
