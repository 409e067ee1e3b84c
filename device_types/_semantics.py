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
    "COPY_SOURCES",
    "CREATION_FACTORIES",
    "DATA_DEPENDENT_SHAPES",
    "DATA_PARAMETERS",
    "SAME_PLACE_OPS",
    "FIXED_TRANSFERS",
    "FLOATING_DTYPES",
    "HOST_FACTORIES",
    "RECEIVER_DATA_FACTORIES",
    "TENSOR_CLASS",
    "HOST_SYNCS",
    "MASK_INDEXING",
    "MASK_OPS",
    "METADATA",
    "NUMPY_BRIDGES",
    "OUTPUT_PARAMETERS",
    "PLACE_ATTRIBUTES",
    "OpKind",
    "READBACKS",
    "SCALAR_CONVERSIONS",
    "SCALAR_BOUND_FACTORIES",
    "SHAPE_ARGUMENT_OPS",
    "TENSOR_DATA_FACTORIES",
    "TARGET_TRANSFERS",
    "UPLOADED_PARAMETERS",
    "classify",
    "dtype_name",
    "is_host_copy_op",
    "is_like_factory",
    "is_metadata_argument",
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

#: Whether a dtype is a floating-point one (``t.dtype.is_floating_point``), by its torch name; a
#: framework's dtype objects are read by theirs (``float32_dtype``, ``candle.bool``,
#: ``mstype.int32``: ``dtype_name``). A condition that needs a dtype of the other kind cannot hold.
FLOATING_DTYPES: Final[dict[str, bool]] = {
    **{name: True for name in ("float16", "float32", "float64", "bfloat16", "half", "float", "double",
                               "float8_e4m3fn", "float8_e5m2")},
    **{name: False for name in ("bool", "uint8", "int8", "int16", "int32", "int64", "uint16", "uint32",
                                "uint64", "short", "int", "long", "complex64", "complex128", "cfloat",
                                "cdouble")},
}


def dtype_name(dotted: str) -> str | None:
    """The torch name of a dtype object named ``dotted`` (``candle._dtype.float32_dtype`` ->
    ``float32``), where it is one of ``FLOATING_DTYPES``."""
    name = dotted.rpartition(".")[2].lower()
    for affix in ("_dtype", "dtype_"):
        name = name.removesuffix(affix) if affix.startswith("_") else name.removeprefix(affix)
    return name if name in FLOATING_DTYPES else None


#: torch's legacy CPU tensor types: ``x.type(torch.FloatTensor)`` (or ``"torch.FloatTensor"``)
#: converts and moves the tensor to the CPU (``torch.cuda.FloatTensor`` is the CUDA one).
LEGACY_CPU_TYPES: Final[frozenset[str]] = frozenset({
    "FloatTensor", "DoubleTensor", "HalfTensor", "BFloat16Tensor", "ByteTensor", "CharTensor", "ShortTensor",
    "IntTensor", "LongTensor", "BoolTensor",
})
#: The method that takes such a type.
LEGACY_TYPE_METHOD: Final = "type"

#: Ops whose target device comes from an argument (a device or another tensor).
TARGET_TRANSFERS: Final[frozenset[str]] = frozenset({"to"})

#: Ops that hand tensor data to the host as Python or numpy objects.
READBACKS: Final[frozenset[str]] = frozenset({"numpy", "tolist", "__array__"})

#: Readbacks whose elements are Python scalars (a 1-D tensor's ``.tolist()``): one element
#: used as a kernel's operand is a staged scalar, as ``.item()`` is.
SCALAR_ELEMENT_READBACKS: Final[frozenset[str]] = frozenset({"tolist"})

#: Ops that return a Python scalar and so wait for the device (allowed; the plugin
#: reports them only under the opt-in code ``device-host-sync``).
HOST_SYNCS: Final[frozenset[str]] = frozenset({"item"})

#: Implicit host syncs (the mypy plugin's ``device-host-sync``, opt-in; ``device-types check``
#: reads HOST_SYNCS only). Python's conversions of a tensor to a scalar, by builtin, with
#: the tensor method each calls: ``int(t)``, ``float(t)``, ``bool(t)``, and ``if t:`` /
#: ``while t:`` / ``not t`` / ``t and ...`` (``__bool__``) wait for the device and copy a
#: scalar to the host, as ``.item()`` does.
SCALAR_CONVERSIONS: Final[dict[str, str]] = {
    "bool": "__bool__",
    "int": "__int__",
    "float": "__float__",
    "complex": "__complex__",
}

#: Ops whose result's size depends on tensor data: the host waits for the device to learn
#: it before it can allocate the result (``torch.nonzero``, ``x.masked_select(m)``,
#: ``torch.unique``).
DATA_DEPENDENT_SHAPES: Final[frozenset[str]] = frozenset({
    "nonzero", "argwhere", "masked_select", "unique", "unique_consecutive",
})

#: Indexing ops that, given a boolean mask, size their result from the mask's data (a
#: ``nonzero`` inside): ``x[x > 0]``.
MASK_INDEXING: Final[frozenset[str]] = frozenset({"__getitem__"})

#: Ops that return a boolean tensor (a mask), by method or function name; ``&``, ``|``,
#: ``^`` and ``~`` of masks are masks.
MASK_OPS: Final[frozenset[str]] = frozenset({
    "__lt__", "__le__", "__gt__", "__ge__", "__eq__", "__ne__", "__and__", "__or__", "__xor__", "__invert__",
    "lt", "le", "gt", "ge", "eq", "ne", "less", "less_equal", "greater", "greater_equal", "not_equal",
    "isnan", "isinf", "isfinite", "isposinf", "isneginf", "isreal", "isin", "isclose", "signbit",
    "logical_and", "logical_or", "logical_xor", "logical_not", "bool",
})

#: Element-wise ops: given one tensor and numbers, the result has that tensor's shape (and its
#: dtype, unless the op is in ``DTYPE_CHANGING_OPS``: a mask).
POINTWISE_OPS: Final[frozenset[str]] = MASK_OPS | frozenset({
    "abs", "neg", "negative", "positive", "sign", "sgn", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p",
    "sqrt", "rsqrt", "square", "reciprocal", "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh",
    "asinh", "acosh", "atanh", "sigmoid", "logit", "relu", "relu6", "gelu", "silu", "mish", "elu", "selu", "celu",
    "softplus", "softsign", "hardtanh", "hardswish", "hardsigmoid", "leaky_relu", "erf", "erfc", "erfinv",
    "lgamma", "digamma", "floor", "ceil", "round", "trunc", "frac", "clamp", "clamp_min", "clamp_max", "clip",
    "add", "sub", "subtract", "mul", "multiply", "div", "divide", "true_divide", "floor_divide", "pow",
    "float_power", "fmod", "remainder", "maximum", "minimum", "fmax", "fmin", "atan2", "hypot", "copysign",
    "nan_to_num", "where", "masked_fill", "lerp", "addcmul", "addcdiv", "xlogy", "logaddexp", "bitwise_not",
    "bitwise_and", "bitwise_or", "bitwise_xor",
})

#: Ops whose result has a dtype of its own (indices, counts, a mask, a conversion): the result of
#: any other op on a device tensor is taken to be on its device with its dtype.
DTYPE_CHANGING_OPS: Final[frozenset[str]] = MASK_OPS | DATA_DEPENDENT_SHAPES | frozenset({
    "argmax", "argmin", "argsort", "bincount", "searchsorted", "bucketize", "count_nonzero", "histc", "histogram",
    "topk", "sort", "max", "min", "kthvalue", "mode", "median", "nanmedian", "cummax", "cummin", "aminmax",
    "real", "imag", "abs", "angle", "view_as_real", "view_as_complex", "type", "type_as", "to", "cast",
})

#: Ops that write another tensor's data into their receiver, with the parameters of that
#: source: it may be on any device, and the receiver is the copy's target.
COPY_SOURCES: Final[dict[str, frozenset[str]]] = {
    "copy_": frozenset({"other", "src"}),
    "set_": frozenset({"source"}),
}

#: Index tensors torch uploads to the indexed tensor's device itself: the types accept a
#: CPU tensor there (torch does), but inside a backend an index map built on the host is
#: host-built op data, so the mypy plugin still reports one (unlike the other entries of
#: ANY_DEVICE_PARAMETERS, which torch reads on the host or only copies).
UPLOADED_PARAMETERS: Final[dict[str, frozenset[str]]] = {
    "index_put": frozenset({"indices"}),
    "index_put_": frozenset({"indices"}),
    "_unsafe_masked_index": frozenset({"indices"}),
}

#: Parameters that may legitimately hold a tensor on another device than the op's own,
#: keyed by op name. Each entry beyond the copy sources was found by running torch
#: (tests/conformance; docs/limits.md, "Run-time conformance"): torch accepts a tensor on
#: any device there, and a static error would reject code that runs.
ANY_DEVICE_PARAMETERS: Final[dict[str, frozenset[str]]] = {
    **COPY_SOURCES,
    # a device donor: ``.to(other)`` moves to other's device
    "to": frozenset({"other"}),
    # split points and lengths torch reads on the host (CUDA's tensor_split wants them on
    # the CPU; cuDNN's CTC takes targets and lengths from there)
    "tensor_split": frozenset({"tensor_indices_or_sections"}),
    "ctc_loss": frozenset({"targets", "input_lengths", "target_lengths"}),
    **UPLOADED_PARAMETERS,
    # functional scatters: ``src`` is copied into a clone of the input (a ``copy_``)
    "diagonal_scatter": frozenset({"src"}),
    "select_scatter": frozenset({"src"}),
    "slice_scatter": frozenset({"src"}),
    "as_strided_scatter": frozenset({"src"}),
    # only the other tensor's shape is read
    "expand_as": frozenset({"other"}),
    "view_as": frozenset({"other"}),
    "reshape_as": frozenset({"other"}),
    "resize_as_": frozenset({"the_template"}),
}

#: Factories whose data argument may itself be a tensor: with no ``device=`` the result
#: stays on that tensor's device (``torch.as_tensor(x_mps)`` is on MPS), otherwise CPU.
TENSOR_DATA_FACTORIES: Final[dict[str, str]] = {"tensor": "data", "as_tensor": "data", "asarray": "obj"}

#: The tensor class: ``torch.Tensor.cpu(a)`` is ``a.cpu()``, its method called unbound.
TENSOR_CLASS: Final = "torch.Tensor"

#: Tensor methods that make a tensor of their data argument on the receiver's device
#: (``a.new_tensor(data)``): host data given to them is uploaded.
RECEIVER_DATA_FACTORIES: Final[frozenset[str]] = frozenset({"new_tensor"})

#: Factories without a ``device`` parameter that always create host tensors.
HOST_FACTORIES: Final[frozenset[str]] = frozenset({"from_numpy", "frombuffer"})

#: Ops whose result is on its (first) input's device with its dtype: views of it, copies of it
#: and tensors made like it (``a.transpose(0, 1)``, ``a.contiguous()``, ``empty_like(a)``).
#: A predicate of the device and dtype (``_can_use_gpu(t)``) that holds for ``a`` holds for them.
SAME_PLACE_OPS: Final[frozenset[str]] = frozenset({
    "contiguous", "clone", "detach", "view", "view_as", "reshape", "reshape_as", "transpose", "t", "permute",
    "unsqueeze", "squeeze", "expand", "expand_as", "narrow", "select", "flatten", "unflatten", "movedim",
    "swapaxes", "swapdims", "as_strided", "unfold", "diagonal", "flip", "roll", "broadcast_to",
    "empty_like", "zeros_like", "ones_like", "full_like", "rand_like", "randn_like", "new_empty", "new_zeros",
    "new_ones", "new_full",
})

#: Tensor methods that convert the dtype and keep the device (``x.float()``, ``x.double()``);
#: ``.to(dtype)`` does the same.
DTYPE_CONVERSIONS: Final[frozenset[str]] = frozenset({
    "float", "double", "half", "bfloat16", "int", "long", "short", "char", "byte", "bool", "cfloat", "cdouble",
})

#: The ``SAME_PLACE_OPS`` that are views or copies of their input: they rearrange its data
#: and compute nothing from it (on host data, ``t.cpu().permute(1, 2, 0)`` is still only the
#: host data of ``t``).
LAYOUT_OPS: Final[frozenset[str]] = frozenset(
    op for op in SAME_PLACE_OPS if not op.endswith("_like") and not op.startswith("new_"))

#: Ops whose one data operand is their first argument (the tensor, or the list of tensors of
#: ``cat``/``stack``) and whose every other argument is metadata: sizes, dims, shapes, split
#: sections, counts, or a tensor whose shape alone is read (``view_as``). Whatever those
#: arguments hold, and however it was computed (a count read back with ``.tolist()`` for
#: ``torch.split(x, sizes)``), the op does not compute with it: at most the host waited for it
#: (a host sync). For the method form (``x.split(sizes)``) every argument is metadata. Ops
#: with a second data operand (``index_select``'s index, ``max(a, b)``, ``masked_fill``'s
#: mask, ``repeat_interleave``'s repeats) are not here.
SHAPE_ARGUMENT_OPS: Final[frozenset[str]] = frozenset({
    # splits and slices
    "split", "split_with_sizes", "tensor_split", "hsplit", "vsplit", "dsplit", "chunk", "unbind", "narrow",
    "select", "unfold",
    # shapes and layouts
    "reshape", "view", "expand", "tile", "permute", "transpose", "swapaxes", "swapdims", "movedim", "moveaxis",
    "squeeze", "unsqueeze", "flatten", "unflatten", "flip", "roll", "rot90", "diagonal", "diag_embed", "tril",
    "triu", "as_strided", "broadcast_to", "view_as", "expand_as", "reshape_as", "resize_", "resize_as_", "pad",
    "cat", "concat", "concatenate", "stack",
    # reductions and scans over dims
    "sum", "nansum", "mean", "nanmean", "prod", "amax", "amin", "argmax", "argmin", "logsumexp", "softmax",
    "log_softmax", "cumsum", "cumprod", "topk", "kthvalue", "sort", "argsort", "all", "any", "count_nonzero",
    "var", "std", "one_hot", "interpolate",
})

#: Parameter names that hold the data operand of a ``SHAPE_ARGUMENT_OPS`` op passed by keyword.
DATA_PARAMETERS: Final[frozenset[str]] = frozenset({"input", "self", "tensor", "tensors", "a", "x"})


def is_metadata_argument(op: str, position: int | None = None, keyword: str | None = None,
                         method: bool = False) -> bool:
    """Whether the argument of ``op`` at ``position`` (or passed as ``keyword``) is metadata
    (``SHAPE_ARGUMENT_OPS``); ``method``: the op is called on its tensor (``x.split(sizes)``),
    so no argument is its data."""
    if op not in SHAPE_ARGUMENT_OPS:
        return False
    if keyword is not None:
        return keyword not in DATA_PARAMETERS
    return method or (position is not None and position >= 1)


#: Attributes of a tensor that ``SAME_PLACE_OPS`` keep: a test of them on the input (``a.dtype``,
#: ``a.device.type``, "every tensor of a list has the first one's dtype") holds for their results.
PLACE_ATTRIBUTES: Final[frozenset[str]] = frozenset({"dtype", "device"})

#: Attributes and no-argument methods of a tensor that are counts, never negative (``n > 0``
#: is ``n != 0`` for them; ``a.shape[k]`` is one too).
SIZE_ATTRIBUTES: Final[frozenset[str]] = frozenset({"numel()", "dim()", "ndim", "ndimension()", "nelement()"})

#: Attributes of a tensor that ``SAME_SHAPE_OPS`` keep besides its place (a test of them on
#: the input holds for their results).
SHAPE_ATTRIBUTES: Final[frozenset[str]] = SIZE_ATTRIBUTES | frozenset({"shape", "size()"})

#: The ``SAME_PLACE_OPS`` whose result also has the input's shape (a copy, or a tensor made
#: like it, with no ``dtype=``/``device=`` of its own): a caller's ``x.shape == y.shape``
#: holds for ``x`` and ``zeros_like(x)``.
SAME_SHAPE_OPS: Final[frozenset[str]] = frozenset({
    "contiguous", "clone", "detach", "empty_like", "zeros_like", "ones_like", "full_like", "rand_like", "randn_like",
})

#: Factories that create a tensor from sizes, ranges or seeds (no tensor input): ``device=``
#: picks the device, and without it the tensor is made on the CPU (``torch.arange(n)``).
CREATION_FACTORIES: Final[frozenset[str]] = frozenset({
    "zeros", "ones", "empty", "full", "arange", "range", "linspace", "logspace", "eye", "rand", "randn",
    "randint", "randperm", "empty_strided", "tril_indices", "triu_indices", "scalar_tensor", "normal",
    "bartlett_window", "blackman_window", "hamming_window", "hann_window", "kaiser_window",
})

#: The arguments of ``CREATION_FACTORIES`` that are values of the tensor made, by position and
#: keyword (``full``'s fill value, ``linspace``'s bounds); every other argument is a size, a
#: count, a dtype or a seed: metadata, whatever computed it (a count read back sizes the
#: output: a host sync at most, never data uploaded).
FACTORY_VALUE_ARGUMENTS: Final[dict[str, tuple[tuple[int, str], ...]]] = {
    "full": ((1, "fill_value"),),
    "scalar_tensor": ((0, "s"),),
    "linspace": ((0, "start"), (1, "end")),
    "logspace": ((0, "start"), (1, "end")),
    "normal": ((0, "mean"), (1, "std")),
}

#: Factories that also take their bounds as (0-dim) tensors: the bounds are read as
#: scalars, so ``device=`` picks the device and no ``device`` gives the CPU, whatever
#: device the bounds are on (``create``, not ``create_like``).
SCALAR_BOUND_FACTORIES: Final[frozenset[str]] = frozenset({"linspace", "logspace"})

#: Parameters that receive an op's result (``out=``): they must be on the result's
#: device but take no part in deciding it (``torch.zeros(3, out=buf)`` is a factory).
OUTPUT_PARAMETERS: Final[frozenset[str]] = frozenset({"out"})

#: Ops that wrap numpy data as a tensor (host memory by construction).
NUMPY_BRIDGES: Final[frozenset[str]] = frozenset({"from_numpy"})

#: Name of the parameter that selects a device in factories and transfers.
DEVICE_PARAMETER: Final = "device"
#: Keywords that name the device a call makes its result on: torch's ``device=``, Paddle's
#: ``place=`` (``to_tensor(data, place=x.place)``).
DEVICE_KEYWORDS: Final[frozenset[str]] = frozenset({DEVICE_PARAMETER, "place"})
#: Attributes of a device that name its kind (``x.device.type``; JAX's ``x.device().platform``):
#: compared with ``"cpu"``, a test that the tensor is on the host.
DEVICE_TYPE_ATTRIBUTES: Final[frozenset[str]] = frozenset({"type", "platform"})
#: What gives a tensor's device: ``x.device`` (torch), ``x.device()`` (JAX), ``x.device_name()``
#: (ONNX Runtime's ``OrtValue``); compared with ``"cpu"``, a test that it is on the host.
DEVICE_ACCESSORS: Final[frozenset[str]] = frozenset({DEVICE_PARAMETER, "device_name", "device_type"})

#: Tensor members that Python and numpy data lack: a parameter read through one of them is a
#: tensor (``a.to(x.device)``, ``a.new_empty(n)``), so numpy given it reads the tensor's data
#: back (``np.asarray(a)``: the ``__array__`` protocol), where the user's data would be staged.
TENSOR_ONLY_MEMBERS: Final[frozenset[str]] = frozenset({
    "device", "to", "cpu", "cuda", "new_tensor", "new_empty", "new_zeros", "new_ones", "new_full", "data_ptr",
    "untyped_storage", "is_cpu", "is_cuda", "is_mps", "is_xpu", "is_npu", "element_size", "is_contiguous",
    "place",  # Paddle's device of a tensor
})

#: Tensor attributes that test its device's type (``x.is_cpu``, ``x.is_cuda``), by device type.
DEVICE_FLAGS: Final[dict[str, str]] = {"is_cpu": "cpu", "is_cuda": "cuda", "is_mps": "mps", "is_xpu": "xpu", "is_npu": "npu"}

#: Name of the parameter of a device object's constructor that names its kind
#: (``torch.device(type="cpu")``, like ``torch.device("cpu")``).
DEVICE_TYPE_PARAMETER: Final = "type"

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


# The host side (numpy, host RNGs, readback and upload helpers, copy APIs) is the host
# vocabulary of ``device-types check``: ``device_types._vocabulary``.


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
    if name in HOST_FACTORIES or name in SCALAR_BOUND_FACTORIES:
        return OpKind.CREATE
    if DEVICE_PARAMETER in parameters:
        if takes_tensor or is_like_factory(name):
            return OpKind.CREATE_LIKE
        return OpKind.CREATE
    if mentions_tensor:
        return OpKind.PRESERVE
    return OpKind.UNTOUCHED
