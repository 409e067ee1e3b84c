"""The op-semantics table: what each torch op does with a tensor's device.

This is the single source of truth. The overlay generator (``device_types_stubs``)
derives every device-generic signature from it, and the mypy plugin reads the same
names to decide what is a host transfer, a readback or a host sync. Change the
semantics of an op here, never in the generator or the plugin.

Most ops are classified by structure (``classify``); the explicit tables below list
only the ops whose device behaviour the structure cannot show. This module must not
import torch or mypy: both consumers import it on hot paths.
"""

from __future__ import annotations

import enum
from typing import Final

__all__ = [
    "ANY_DEVICE_PARAMETERS",
    "HOST_ARRAY_BUILDERS",
    "HOST_BUILTINS",
    "HOST_CONVERSIONS",
    "HOST_METADATA_FUNCTIONS",
    "HOST_MODULES",
    "HOST_RNG_METHODS",
    "HOST_RNG_MODULES",
    "METADATA_BUILTINS",
    "FIXED_TRANSFERS",
    "HOST_FACTORIES",
    "HOST_SYNCS",
    "METADATA",
    "NUMPY_BRIDGES",
    "OUTPUT_PARAMETERS",
    "OpKind",
    "READBACKS",
    "TENSOR_DATA_FACTORIES",
    "TARGET_TRANSFERS",
    "classify",
    "is_host_copy_op",
    "is_like_factory",
]


class OpKind(enum.Enum):
    """How an op relates the device of its result to the devices of its inputs."""

    #: Result on the inputs' device; every tensor input must share it.
    PRESERVE = "preserve"
    #: Factory: ``device=`` picks the device; no ``device`` gives the CPU.
    CREATE = "create"
    #: ``*_like``, ``new_*``, factories that take tensors: ``device=`` picks the
    #: device; no ``device`` keeps the input's device.
    CREATE_LIKE = "create_like"
    #: Moves the tensor to a fixed device (``.cpu()``) or one named by an argument (``.to``).
    TRANSFER = "transfer"
    #: Copies tensor data into host Python/numpy objects: valid on CPU tensors only.
    READBACK = "readback"
    #: Returns no tensor and takes none: the device does not enter.
    UNTOUCHED = "untouched"


#: Tensor methods that move the tensor to one fixed device, by device type.
FIXED_TRANSFERS: Final[dict[str, str]] = {
    "cpu": "cpu",
    "cuda": "cuda",
    "xpu": "xpu",
    "mps": "mps",
    "npu": "npu",  # added by torch_npu at run time
    "pin_memory": "cpu",  # page-locked host memory
}

#: Ops whose target device comes from an argument (a device or another tensor).
TARGET_TRANSFERS: Final[frozenset[str]] = frozenset({"to"})

#: Ops that hand tensor data to the host as Python or numpy objects.
READBACKS: Final[frozenset[str]] = frozenset({"numpy", "tolist", "__array__"})

#: Ops that return a Python scalar and so wait for the device (allowed; the plugin
#: reports them only under the opt-in code ``device-host-sync``).
HOST_SYNCS: Final[frozenset[str]] = frozenset({"item"})

#: Parameters that may legitimately hold a tensor on another device than the op's own
#: (copy sources and device donors); keyed by op name.
ANY_DEVICE_PARAMETERS: Final[dict[str, frozenset[str]]] = {
    "copy_": frozenset({"other", "src"}),
    "to": frozenset({"other"}),
    "set_": frozenset({"source"}),
}

#: Factories whose data argument may itself be a tensor: with no ``device=`` the result
#: stays on that tensor's device (``torch.as_tensor(x_mps)`` is on MPS), otherwise CPU.
TENSOR_DATA_FACTORIES: Final[dict[str, str]] = {"tensor": "data", "as_tensor": "data", "asarray": "obj"}

#: Factories without a ``device`` parameter that always create host tensors.
HOST_FACTORIES: Final[frozenset[str]] = frozenset({"from_numpy", "frombuffer"})

#: Parameters that receive an op's result (``out=``): they must be on the result's
#: device but take no part in deciding it (``torch.zeros(3, out=buf)`` is a factory).
OUTPUT_PARAMETERS: Final[frozenset[str]] = frozenset({"out"})

#: Ops that wrap numpy data as a tensor (host memory by construction).
NUMPY_BRIDGES: Final[frozenset[str]] = frozenset({"from_numpy"})

#: Name of the parameter that selects a device in factories and transfers.
DEVICE_PARAMETER: Final = "device"

#: Tensor (and ndarray) methods and attributes that read metadata, never element data:
#: calling them on a CPU tensor consumes nothing, and what they return is not tensor data.
METADATA: Final[frozenset[str]] = frozenset({
    "numel", "nelement", "size", "dim", "ndim", "ndimension", "shape", "stride", "strides",
    "storage_offset", "dtype", "device", "layout", "is_contiguous", "element_size", "itemsize",
    "nbytes", "is_cuda", "is_cpu", "is_mps", "is_meta", "is_sparse", "is_quantized",
    "is_floating_point", "is_complex", "is_signed", "requires_grad", "names", "get_device",
    "data_ptr", "flags",
})

def is_host_copy_op(name: str) -> bool:
    """A backend function implementing a host<->device copy (``cpu``, ``cuda``, ``to``,
    ``numpy``, ``item``, ``copy_``, ``to_cpu``...): its host staging is the op itself."""
    bare = name.strip("_")
    if bare in FIXED_TRANSFERS or bare in TARGET_TRANSFERS or bare in READBACKS or bare in HOST_SYNCS:
        return True
    return bare.startswith(("to_", "copy_to_")) and bare.endswith(("cpu", "host", "numpy", "list"))


# --- the host side: what untyped backend code computes with ------------------------------
# ``device-types check`` reads these; they name host libraries, not torch ops.

#: Modules whose functions compute on the host (their results are host data).
HOST_MODULES: Final[frozenset[str]] = frozenset({
    "numpy", "scipy", "math", "cmath", "statistics", "random", "itertools", "functools",
    "operator", "bisect", "heapq",
})

#: numpy functions that build new array data on the host from metadata alone (shapes,
#: ranges): uploading what they return is a host-built result. ``empty`` is not one: it
#: holds no data until something computes into it, and that is what gets tracked.
HOST_ARRAY_BUILDERS: Final[frozenset[str]] = frozenset({
    "zeros", "ones", "full", "arange", "linspace", "logspace", "geomspace", "eye",
    "identity", "tri", "triu_indices", "tril_indices", "indices", "diag_indices", "mgrid", "ogrid",
})

#: Host random-number modules and generator factories: everything they return is host-built.
HOST_RNG_MODULES: Final[frozenset[str]] = frozenset({"numpy.random", "random"})

#: Methods of numpy's RandomState/Generator: called on a receiver named like an RNG
#: (``rng``, ``self._rng``, ``generator._rng``) they draw host random numbers.
HOST_RNG_METHODS: Final[frozenset[str]] = frozenset({
    "random", "random_sample", "rand", "randn", "randint", "integers", "permutation", "shuffle", "choice",
    "uniform", "normal", "standard_normal", "exponential", "standard_exponential", "binomial", "poisson",
    "multinomial", "geometric", "gamma", "beta", "laplace", "logistic", "lognormal", "cauchy", "standard_cauchy",
    "standard_gamma", "standard_t", "chisquare", "weibull", "pareto", "rayleigh", "bytes", "dirichlet",
})

#: numpy functions that answer a question about dtypes or shapes: metadata, never data.
HOST_METADATA_FUNCTIONS: Final[frozenset[str]] = frozenset({
    "dtype", "iinfo", "finfo", "issubdtype", "result_type", "promote_types", "can_cast",
    "isscalar", "ndim", "shape", "size", "broadcast_shapes", "min_scalar_type", "isdtype",
})

#: numpy functions and ndarray methods that convert, copy or rearrange host data without
#: computing with it: a readback passed through them is still just a readback.
HOST_CONVERSIONS: Final[frozenset[str]] = frozenset({
    "array", "asarray", "ascontiguousarray", "asfortranarray", "asanyarray", "copy", "frombuffer",
    "fromiter", "reshape", "ravel", "flatten", "squeeze", "expand_dims", "transpose", "moveaxis",
    "swapaxes", "broadcast_to", "atleast_1d", "atleast_2d", "atleast_3d", "astype", "view", "tolist",
    "tobytes", "item", "stack", "concatenate", "split", "require", "ctypeslib", "as_array", "get",
    "pop", "items", "values", "keys", "index", "count",
})

#: Python builtins that compute on host values (their result carries the argument's data).
HOST_BUILTINS: Final[frozenset[str]] = frozenset({
    "float", "int", "bool", "complex", "list", "tuple", "sorted", "sum", "min", "max", "abs",
    "round", "zip", "enumerate", "reversed", "map", "filter", "set", "frozenset", "dict",
    "any", "all", "divmod", "pow", "bytes", "bytearray", "memoryview", "iter", "next",
})

#: Iterables whose values are counters (loop indices), not the items of a container: what a
#: loop over them appends is computed on the host (an index map), not collected.
COUNTING_ITERATORS: Final[frozenset[str]] = frozenset({"range", "enumerate", "ndindex", "ndenumerate", "product",
                                                       "arange"})

#: Builtins that make index keys, never numbers: a loop appending ``slice(None)`` collects keys.
KEY_BUILTINS: Final[frozenset[str]] = frozenset({"slice"})

#: Builtins that return metadata about a value, never its data.
METADATA_BUILTINS: Final[frozenset[str]] = frozenset({"len", "isinstance", "type", "id", "hasattr", "callable", "issubclass"})


def is_like_factory(name: str) -> bool:
    """``zeros_like``, ``x.new_zeros``: with no ``device=`` they keep their input's device."""
    return name.endswith("_like") or name.startswith("new_")


def classify(name: str, parameters: list[str], takes_tensor: bool, mentions_tensor: bool) -> OpKind:
    """Classify one op (function or method) from its name and signature shape.

    ``parameters``: parameter names (without ``self``); ``takes_tensor``: some
    parameter other than ``self`` is annotated with a tensor type, or the op is a
    tensor method; ``mentions_tensor``: a tensor type appears anywhere in the signature.
    """
    if name in FIXED_TRANSFERS or name in TARGET_TRANSFERS:
        return OpKind.TRANSFER
    if name in READBACKS:
        return OpKind.READBACK
    if name in HOST_FACTORIES:
        return OpKind.CREATE
    if DEVICE_PARAMETER in parameters:
        if takes_tensor or is_like_factory(name):
            return OpKind.CREATE_LIKE
        return OpKind.CREATE
    if mentions_tensor:
        return OpKind.PRESERVE
    return OpKind.UNTOUCHED
