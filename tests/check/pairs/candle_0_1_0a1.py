"""Fix pairs for ``candle-python==0.1.0a1``: each "before" is a fallback function of the wheel
(read from the wheel at test time by qualname, never copied here); each "after" is the same
function as candle's real fixes write it: the host path replaced by the GPU dispatch helper,
an on-device composite of other ops of the same module, a native kernel, or a
``NotImplementedError`` for dtypes without a kernel (native calls kept behind a guard with a
``# TODO: re-enable ...`` marker). Legitimate host work stays (shape arithmetic, dtype maps,
struct packing of scalars, host-syncs that only size an output).

Indirect pairs (``after=None``) are fallbacks only through a callee; they stay unchanged and
the callees' pairs (``fixed_by``) repair them.
"""

from __future__ import annotations

from .model import Pair

MPS = "candle/_backends/mps/ops.py"
MPS_CREATION = "candle/_backends/mps/creation.py"
MPS_OPTIM = "candle/_backends/mps/optim_ops.py"
NPU = "candle/_backends/npu/ops.py"
CUDA = "candle/_backends/cuda/ops.py"
CUDA_CREATION = "candle/_backends/cuda/creation.py"


def _metal_unary(name: str, kernel: str) -> Pair:
    """The most common real fix: the Metal kernel path only; no numpy path for other dtypes."""
    return Pair(MPS, name, f'''
def {name}(a):
    if not _can_use_gpu(a):
        raise NotImplementedError(f"{name}: no Metal kernel for dtype {{a.dtype}} on mps")
    return _dispatch_unary_gpu(a, "{kernel}")
''', why="numpy path for non-Metal dtypes removed")


def _metal_binary(name: str, kernel: str) -> Pair:
    return Pair(MPS, name, f'''
def {name}(a, b):
    if not _can_use_gpu(a):
        raise NotImplementedError(f"{name}: no Metal kernel for dtype {{a.dtype}} on mps")
    return _dispatch_binary_gpu(a, b, "{kernel}")
''', why="numpy path for non-Metal dtypes removed")


def _metal_compare(name: str, kernel: str) -> Pair:
    return Pair(MPS, name, f'''
def {name}(a, b):
    if not _can_use_gpu(a):
        raise NotImplementedError(f"{name}: no Metal kernel for dtype {{a.dtype}} on mps")
    if not a.is_contiguous() or (isinstance(b, Tensor) and not b.is_contiguous()):
        # TODO: re-enable the strided path when the Metal comparison kernels take strides
        raise NotImplementedError("{name}: non-contiguous inputs need the strided Metal kernel")
    d = _get_dispatcher()
    sfx = _kernel_suffix(a.dtype)
    numel = a.numel()
    out_buf = _alloc_output_buf(numel, bool_dtype)
    if isinstance(b, Tensor) and _can_use_gpu(b) and a.shape == b.shape:
        d.dispatch_comparison(f"{kernel}_{{sfx}}", _metal_buf(a), _metal_buf(b), out_buf, numel)
    elif isinstance(b, Tensor):
        raise NotImplementedError("{name}: broadcasting tensor operands are not supported on mps")
    else:
        d.dispatch_comparison_scalar(f"{kernel}_scalar_{{sfx}}", _metal_buf(a), float(b), out_buf,
                                     numel, scalar_fmt=_scalar_fmt(a.dtype))
    from ..._tensor import _compute_strides
    return _from_metal_buffer(out_buf, a.shape, _compute_strides(a.shape), bool_dtype, a.device)
''', why="numpy paths for non-contiguous / mixed operands removed")


def _metal_inplace(name: str, kernel: str) -> Pair:
    return Pair(MPS, name, f'''
def {name}(a, b):
    if not _can_use_gpu(a):
        raise NotImplementedError(f"{name}: no Metal kernel for dtype {{a.dtype}} on mps")
    d = _get_dispatcher()
    sfx = _kernel_suffix(a.dtype)
    numel = a.numel()
    if isinstance(b, Tensor) and _can_use_gpu(b):
        d.dispatch_inplace_binary(f"{kernel}_inplace_{{sfx}}", _metal_buf(a), _metal_buf(b), numel)
    elif isinstance(b, Tensor):
        raise NotImplementedError("{name}: the other operand must be a Metal tensor")
    else:
        d.dispatch_inplace_binary_scalar(f"{kernel}_inplace_scalar_{{sfx}}", _metal_buf(a), float(b),
                                         numel, scalar_fmt=_scalar_fmt(a.dtype))
    return a
''', why="in-place write through the host view removed")


MPS_PAIRS = [
    Pair(MPS, "add", '''
def add(a, b):
    # For commutative add, ensure the larger tensor is 'a' so the GPU
    # dispatch allocates the correct output size and shape.
    if isinstance(b, Tensor) and _can_use_gpu(b):
        if not _can_use_gpu(a) or a.numel() < b.numel():
            a, b = b, a
    if not _can_use_gpu(a):
        raise NotImplementedError(f"add: no Metal kernel for dtype {a.dtype} on mps")
    return _dispatch_binary_gpu(a, b, "add")
''', why="numpy path for non-Metal dtypes removed"),
    Pair(MPS, "mul", '''
def mul(a, b):
    if isinstance(b, Tensor) and _can_use_gpu(b):
        if not _can_use_gpu(a) or a.numel() < b.numel():
            a, b = b, a
    if not _can_use_gpu(a):
        raise NotImplementedError(f"mul: no Metal kernel for dtype {a.dtype} on mps")
    return _dispatch_binary_gpu(a, b, "mul")
''', why="numpy path for non-Metal dtypes removed"),
    _metal_binary("div", "div"),
    _metal_binary("sub", "sub"),
    _metal_binary("maximum", "maximum"),
    _metal_binary("minimum", "minimum"),
    _metal_unary("relu", "relu"),
    _metal_unary("gelu", "gelu"),
    _metal_unary("exp", "exp"),
    _metal_unary("log", "log"),
    _metal_unary("sqrt", "sqrt"),
    _metal_unary("sin", "sin"),
    _metal_unary("cos", "cos"),
    _metal_unary("tanh", "tanh"),
    _metal_unary("sigmoid", "sigmoid"),
    _metal_unary("floor", "floor"),
    _metal_unary("ceil", "ceil"),
    _metal_unary("round", "round"),
    _metal_unary("sign", "sign"),
    _metal_unary("rsqrt", "rsqrt"),
    _metal_unary("log2", "log2"),
    _metal_unary("silu", "silu"),
    _metal_unary("neg", "neg"),
    _metal_unary("abs", "abs"),
    _metal_compare("eq", "eq"),
    _metal_compare("lt", "lt"),
    _metal_compare("ge", "ge"),
    _metal_inplace("add_", "add"),
    _metal_inplace("mul_", "mul"),
    _metal_inplace("sub_", "sub"),
    Pair(MPS, "pow", '''
def pow(a, b):
    if not isinstance(a, Tensor) or not _can_use_gpu(a):
        raise NotImplementedError("pow: the base must be a Metal tensor of a kernel dtype on mps")
    d = _get_dispatcher()
    sfx = _kernel_suffix(a.dtype)
    numel = a.numel()
    out_buf = _alloc_output_buf(numel, a.dtype)
    if isinstance(b, Tensor) and _can_use_gpu(b):
        d.dispatch_binary(f"pow_{sfx}", _metal_buf(a), _metal_buf(b), out_buf, numel)
    elif isinstance(b, Tensor):
        raise NotImplementedError("pow: the exponent tensor must be a Metal tensor")
    else:
        d.dispatch_binary_scalar(f"pow_scalar_{sfx}", _metal_buf(a), float(b), out_buf, numel,
                                 scalar_fmt=_scalar_fmt(a.dtype))
    return _from_metal_buffer(out_buf, a.shape, a.stride, a.dtype, a.device)
''', why="numpy path for host operands removed"),
    Pair(MPS, "tan", '''
def tan(a):
    # No Metal tan kernel: sin / cos on device.
    return div(sin(a), cos(a))
''', why="on-device composite"),
    Pair(MPS, "log10", '''
def log10(a):
    return mul(log(a), 1.0 / math.log(10.0))
''', why="on-device composite"),
    Pair(MPS, "exp2", '''
def exp2(a):
    return exp(mul(a, math.log(2.0)))
''', why="on-device composite"),
    Pair(MPS, "softplus", '''
def softplus(a):
    return log(add(exp(a), 1.0))
''', why="on-device composite log(1 + exp(x))"),
    Pair(MPS, "log1p", '''
def log1p(a):
    return log(add(a, 1.0))
''', why="on-device composite"),
    Pair(MPS, "expm1", '''
def expm1(a):
    return sub(exp(a), 1.0)
''', why="on-device composite"),
    Pair(MPS, "sinh", '''
def sinh(a):
    return mul(sub(exp(a), exp(neg(a))), 0.5)
''', why="on-device composite"),
    Pair(MPS, "cosh", '''
def cosh(a):
    return mul(add(exp(a), exp(neg(a))), 0.5)
''', why="on-device composite"),
    Pair(MPS, "square", '''
def square(a):
    return mul(a, a)
''', why="on-device composite"),
    Pair(MPS, "reciprocal", '''
def reciprocal(a):
    return pow(a, -1.0)
''', why="on-device composite"),
    Pair(MPS, "mish", '''
def mish(a):
    return mul(a, tanh(softplus(a)))
''', why="on-device composite"),
    Pair(MPS, "clamp", '''
def clamp(a, min_val=None, max_val=None):
    out = a
    if min_val is not None:
        out = maximum(out, min_val)
    if max_val is not None:
        out = minimum(out, max_val)
    return out
''', why="on-device composite of maximum/minimum kernels"),
    Pair(MPS, "clamp_min", '''
def clamp_min(a, min_val):
    return maximum(a, min_val)
''', why="Metal maximum kernel"),
    Pair(MPS, "clamp_max", '''
def clamp_max(a, max_val):
    return minimum(a, max_val)
''', why="Metal minimum kernel"),
    Pair(MPS, "relu6", '''
def relu6(a):
    return minimum(relu(a), 6.0)
''', why="on-device composite"),
    Pair(MPS, "hardtanh", '''
def hardtanh(a, min_val=-1.0, max_val=1.0):
    return clamp(a, min_val, max_val)
''', why="on-device composite"),
    Pair(MPS, "hardsigmoid", '''
def hardsigmoid(a):
    return div(clamp(add(a, 3.0), 0.0, 6.0), 6.0)
''', why="on-device composite"),
    Pair(MPS, "hardswish", '''
def hardswish(a):
    return mul(a, div(clamp(add(a, 3.0), 0.0, 6.0), 6.0))
''', why="on-device composite"),
    Pair(MPS, "softsign", '''
def softsign(a):
    return div(a, add(abs(a), 1.0))
''', why="on-device composite"),
    Pair(MPS, "addcmul", '''
def addcmul(a, b, c, value=1.0):
    return add(a, mul(mul(b, c), value))
''', why="on-device composite"),
    Pair(MPS, "addcdiv", '''
def addcdiv(a, b, c, value=1.0):
    return add(a, mul(div(b, c), value))
''', why="on-device composite"),
    Pair(MPS, "lerp", '''
def lerp(a, b, weight):
    return add(a, mul(sub(b, a), weight))
''', why="on-device composite"),
    Pair(MPS, "hypot", '''
def hypot(a, b):
    return sqrt(add(mul(a, a), mul(b, b)))
''', why="on-device composite"),
    Pair(MPS, "logaddexp", '''
def logaddexp(a, b):
    m = maximum(a, b)
    return add(m, log(add(exp(sub(a, m)), exp(sub(b, m)))))
''', why="on-device composite (max-shifted)"),
    Pair(MPS, "zero_", '''
def zero_(a):
    if not _can_use_gpu(a):
        raise NotImplementedError(f"zero_: no Metal fill kernel for dtype {a.dtype} on mps")
    d = _get_dispatcher()
    sfx = _kernel_suffix(a.dtype)
    d.dispatch_fill(f"fill_{sfx}", _metal_buf(a), 0.0, a.numel(), scalar_fmt=_scalar_fmt(a.dtype))
    return a
''', why="host-view fill removed"),
    Pair(MPS, "fill_", '''
def fill_(a, value):
    if not _can_use_gpu(a):
        raise NotImplementedError(f"fill_: no Metal fill kernel for dtype {a.dtype} on mps")
    d = _get_dispatcher()
    sfx = _kernel_suffix(a.dtype)
    d.dispatch_fill(f"fill_{sfx}", _metal_buf(a), float(value), a.numel(),
                    scalar_fmt=_scalar_fmt(a.dtype))
    return a
''', why="host-view fill removed"),
    Pair(MPS, "copy_", '''
def copy_(a, src):
    if not (_can_use_gpu(a) and _can_use_gpu(src)):
        raise NotImplementedError("copy_: both tensors must be Metal tensors of a kernel dtype")
    d = _get_dispatcher()
    sfx = _kernel_suffix(a.dtype)
    numel = min(a.numel(), src.numel())
    d.dispatch_copy(f"copy_{sfx}", _metal_buf(src), _metal_buf(a), numel)
    return a
''', why="np.copyto between host views removed"),
    Pair(MPS, "relu_", '''
def relu_(a):
    if not _can_use_gpu(a):
        raise NotImplementedError(f"relu_: no Metal kernel for dtype {a.dtype} on mps")
    d = _get_dispatcher()
    sfx = _kernel_suffix(a.dtype)
    d.dispatch_inplace_unary(f"relu_inplace_{sfx}", _metal_buf(a), a.numel())
    return a
''', why="host-view maximum removed"),
    Pair(MPS, "softmax", '''
def softmax(a, dim):
    ndim = len(a.shape)
    actual_dim = dim if dim >= 0 else dim + ndim
    if not (_can_use_gpu(a) and a.dtype == float32_dtype and actual_dim == ndim - 1):
        # TODO: re-enable other dims/dtypes when the Metal softmax kernel takes an axis
        raise NotImplementedError("softmax on mps: float32 over the last dimension only")
    d = _get_dispatcher()
    numel = a.numel()
    cols = a.shape[-1]
    rows = numel // cols
    out_buf = _alloc_output_buf(numel, a.dtype)
    d.dispatch_softmax_2d("softmax_f32", _metal_buf(a), out_buf, rows, cols)
    return _from_metal_buffer(out_buf, a.shape, a.stride, a.dtype, a.device)
''', why="numpy softmax removed"),
    Pair(MPS, "mean_", '''
def mean_(a, dim=None, keepdim=False):
    if not (_can_use_gpu(a) and a.is_contiguous()):
        raise NotImplementedError("mean on mps: contiguous Metal tensors only")
    if dim is None:
        d = _get_dispatcher()
        sfx = _kernel_suffix(a.dtype)
        sum_buf = _alloc_output_buf(1, a.dtype)
        d.dispatch_reduction(f"sum_partial_{sfx}", f"sum_final_{sfx}", _metal_buf(a), sum_buf, a.numel())
        out_buf = _alloc_output_buf(1, a.dtype)
        d.dispatch_binary_scalar(f"div_scalar_{sfx}", sum_buf, float(a.numel()), out_buf, 1)
        ndim = len(a.shape)
        out_shape = (1,) * ndim if keepdim else ()
        return _from_metal_buffer(out_buf, out_shape, out_shape, a.dtype, a.device)
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    ndim = len(a.shape)
    result = a
    for d in sorted([x % ndim for x in dims], reverse=True):
        result = _gpu_reduce_single_dim(result, d, "mean", keepdim)
    return result
''', why="numpy fallthrough removed"),
    Pair(MPS, "_gpu_reduce_single_dim", '''
def _gpu_reduce_single_dim(a, dim, op_name, keepdim):
    d = _get_dispatcher()
    sfx = _kernel_suffix(a.dtype)
    ndim = len(a.shape)
    dim = dim % ndim
    outer = 1
    for i in range(dim):
        outer *= a.shape[i]
    reduce_size = a.shape[dim]
    inner = 1
    for i in range(dim + 1, ndim):
        inner *= a.shape[i]
    out_numel = outer * inner
    # argmax/argmin kernels write uint32 indices: keep them on the device as int32.
    # TODO: re-enable int64 indices when the Metal cast kernel lands
    out_dtype = int32_dtype if op_name in ("argmax", "argmin") else a.dtype
    out_buf = _alloc_output_buf(out_numel, out_dtype)
    d.dispatch_reduce_dim(f"reduce_{op_name}_dim_{sfx}", _metal_buf(a), out_buf,
                          outer, reduce_size, inner, out_numel)
    out_shape = _reduce_shape(a.shape, dim, keepdim)
    from ..._tensor import _compute_strides
    return _from_metal_buffer(out_buf, out_shape, _compute_strides(out_shape), out_dtype, a.device)
''', why="ctypes readback + numpy uint32->int64 conversion removed"),
    Pair(MPS, "amax", '''
def amax(a, dim=None, keepdim=False):
    if not (_can_use_gpu(a) and a.is_contiguous()):
        raise NotImplementedError("amax on mps: contiguous Metal tensors only")
    ndim = len(a.shape)
    dims = tuple(range(ndim)) if dim is None else ((dim,) if isinstance(dim, int) else tuple(dim))
    result = a
    for d in sorted([x % ndim for x in dims], reverse=True):
        result = _gpu_reduce_single_dim(result, d, "max", keepdim)
    return result
''', why="numpy amax removed; full reduction as per-axis Metal reductions"),
    Pair(MPS, "amin", '''
def amin(a, dim=None, keepdim=False):
    if not (_can_use_gpu(a) and a.is_contiguous()):
        raise NotImplementedError("amin on mps: contiguous Metal tensors only")
    ndim = len(a.shape)
    dims = tuple(range(ndim)) if dim is None else ((dim,) if isinstance(dim, int) else tuple(dim))
    result = a
    for d in sorted([x % ndim for x in dims], reverse=True):
        result = _gpu_reduce_single_dim(result, d, "min", keepdim)
    return result
''', why="numpy amin removed"),
    Pair(MPS, "matmul", '''
def matmul(a, b):
    if not (_can_use_gpu(a) and _can_use_gpu(b) and len(a.shape) == 2 and len(b.shape) == 2):
        # TODO: re-enable batched/other dtypes when MPSMatrixMultiplication covers them
        raise NotImplementedError("matmul on mps: 2-D float32/float16 Metal tensors only")
    from .mps_kernels import mps_matmul_gpu, _mps_dtype_code
    dtype_code = _mps_dtype_code(to_numpy_dtype(a.dtype))
    M, K = a.shape
    K2, N = b.shape
    if dtype_code is None or K != K2:
        raise NotImplementedError("matmul on mps: unsupported dtype or shape")
    out_buf = mps_matmul_gpu(_metal_buf(a), _metal_buf(b), M, K, N, dtype_code, _itemsize(a.dtype))
    if out_buf is None:
        raise RuntimeError("MPSMatrixMultiplication failed")
    from ..._tensor import _compute_strides
    out_shape = (M, N)
    return _from_metal_buffer(out_buf, out_shape, _compute_strides(out_shape), a.dtype, a.device)
''', why="Accelerate BLAS / numpy path removed (dtype map via to_numpy_dtype is metadata)"),
    # Indirect fallbacks repaired by their callee's pair.
    Pair(MPS, "mm", None, fixed_by=("matmul",)),
    Pair(MPS, "bmm", None, fixed_by=("matmul",)),
    Pair(MPS, "true_divide", None, fixed_by=("div",)),
]

MPS_CREATION_PAIRS = [
    Pair(MPS_CREATION, "zeros_create", '''
def zeros_create(shape, dtype=None, device=None, requires_grad=False, memory_format=None):
    from .ops import _alloc_output_buf, _from_metal_buffer, _get_dispatcher, _GPU_DTYPES
    from .ops import _kernel_suffix, _scalar_fmt
    if isinstance(shape, int):
        shape = (shape,)
    shape = tuple(shape)
    if dtype not in _GPU_DTYPES:
        raise NotImplementedError(f"zeros on mps: no Metal fill kernel for {dtype}")
    numel = int(np.prod(shape)) if shape else 1
    buf = _alloc_output_buf(max(numel, 1), dtype)
    _get_dispatcher().dispatch_fill(f"fill_{_kernel_suffix(dtype)}", buf, 0.0, numel,
                                    scalar_fmt=_scalar_fmt(dtype))
    out = _from_metal_buffer(buf, shape, _contiguous_stride(shape), dtype, device)
    out.requires_grad = requires_grad
    return out
''', why="np.zeros + upload replaced by the Metal fill kernel (np.prod(shape) is metadata)"),
    Pair(MPS_CREATION, "ones_create", '''
def ones_create(shape, dtype=None, device=None, requires_grad=False, memory_format=None):
    from .ops import _alloc_output_buf, _from_metal_buffer, _get_dispatcher, _GPU_DTYPES
    from .ops import _kernel_suffix, _scalar_fmt
    if isinstance(shape, int):
        shape = (shape,)
    shape = tuple(shape)
    if dtype not in _GPU_DTYPES:
        raise NotImplementedError(f"ones on mps: no Metal fill kernel for {dtype}")
    numel = int(np.prod(shape)) if shape else 1
    buf = _alloc_output_buf(max(numel, 1), dtype)
    _get_dispatcher().dispatch_fill(f"fill_{_kernel_suffix(dtype)}", buf, 1.0, numel,
                                    scalar_fmt=_scalar_fmt(dtype))
    out = _from_metal_buffer(buf, shape, _contiguous_stride(shape), dtype, device)
    out.requires_grad = requires_grad
    return out
''', why="np.ones + upload replaced by the Metal fill kernel"),
    Pair(MPS_CREATION, "full_create", '''
def full_create(shape, fill_value, dtype=None, device=None):
    from .ops import _alloc_output_buf, _from_metal_buffer, _get_dispatcher, _GPU_DTYPES
    from .ops import _kernel_suffix, _scalar_fmt
    shape = tuple(shape)
    if dtype not in _GPU_DTYPES:
        raise NotImplementedError(f"full on mps: no Metal fill kernel for {dtype}")
    numel = int(np.prod(shape)) if shape else 1
    buf = _alloc_output_buf(max(numel, 1), dtype)
    _get_dispatcher().dispatch_fill(f"fill_{_kernel_suffix(dtype)}", buf, float(fill_value), numel,
                                    scalar_fmt=_scalar_fmt(dtype))
    return _from_metal_buffer(buf, shape, _contiguous_stride(shape), dtype, device)
''', why="np.full + upload replaced by the Metal fill kernel"),
]

MPS_OPTIM_PAIRS = [
    Pair(MPS_OPTIM, "_sgd_step", '''
def _sgd_step(param, grad, buf, lr, momentum, dampening, weight_decay, nesterov, maximize):
    from .ops import add, copy_, mul, neg, sub
    g = neg(grad) if maximize else grad
    if weight_decay != 0:
        g = add(g, mul(param, weight_decay))
    if momentum != 0:
        copy_(buf, add(mul(buf, momentum), mul(g, 1 - dampening)))
        g = add(g, mul(buf, momentum)) if nesterov else buf
    copy_(param, sub(param, mul(g, lr)))
    return param
''', why="optimizer step as Metal ops instead of numpy on host views"),
    Pair(MPS_OPTIM, "_adagrad_step", '''
def _adagrad_step(param, grad, state_sum, step, lr, lr_decay, weight_decay, eps, maximize):
    from .ops import add, copy_, div, mul, neg, sqrt, sub
    g = neg(grad) if maximize else grad
    if weight_decay != 0:
        g = add(g, mul(param, weight_decay))
    copy_(state_sum, add(state_sum, mul(g, g)))
    clr = lr / (1 + (step - 1) * lr_decay)
    copy_(param, sub(param, mul(div(g, add(sqrt(state_sum), eps)), clr)))
    return param
''', why="optimizer step as Metal ops"),
]

# issue 24: diagonal_op, det_op, im2col_op and col2im_op (and linalg_det_op, linalg_slogdet_op,
# linalg_matrix_rank_op through them) are no longer fix pairs: their host step is an index map
# computed from shapes alone and staged as a gather's operand, which is metadata, not a fallback.
NPU_PAIRS = [
    Pair(NPU, "_build_dft_matrices", '''
def _build_dft_matrices(N, device, dtype, inverse=False):
    """Real and imaginary parts of the DFT matrix, computed on the NPU."""
    import math
    from ..common import view as view_backend
    sign = 1.0 if inverse else -1.0
    k = _cast_tensor_dtype(_npu_arange_1d(N, device), float_dtype)
    kn = mul(view_backend.reshape(k, (N, 1)), view_backend.reshape(k, (1, N)))
    angles = mul(kn, sign * 2.0 * math.pi / N)
    Wr = cos(angles)
    Wi = sin(angles)
    if dtype != float_dtype:
        Wr = _cast_tensor_dtype(Wr, dtype)
        Wi = _cast_tensor_dtype(Wi, dtype)
    return Wr, Wi
''', why="twiddle factors computed with aclnn cos/sin instead of numpy + H2D copy"),
    Pair(NPU, "tril_indices", '''
def tril_indices(row, col, offset=0, dtype=None, device=None, layout=None):
    if layout is not None and layout != "strided":
        raise ValueError("layout must be strided")
    if row < 0 or col < 0:
        raise ValueError("row and col must be non-negative")
    from ..._device import device as Device
    from ..common import view as view_backend
    dev = Device("npu:0") if device is None else (Device(device) if isinstance(device, str) else device)
    r = view_backend.reshape(_npu_arange_1d(int(row), dev), (int(row), 1))
    c = view_backend.reshape(_npu_arange_1d(int(col), dev), (1, int(col)))
    r = _npu_broadcast_to(r, (int(row), int(col)))
    keep = le(sub(c, r), int(offset))          # column - row <= offset
    pairs = nonzero(keep)                       # (count, 2) on device; count read only to size it
    out = contiguous(view_backend.transpose(pairs, 0, 1))
    return out if dtype is None or dtype == int64_dtype else _cast_tensor_dtype(out, dtype)
''', why="index pairs from a device mask + nonzero instead of Python loops + upload"),
    Pair(NPU, "triu_indices", '''
def triu_indices(row, col, offset=0, dtype=None, device=None, layout=None):
    if layout is not None and layout != "strided":
        raise ValueError("layout must be strided")
    if row < 0 or col < 0:
        raise ValueError("row and col must be non-negative")
    from ..._device import device as Device
    from ..common import view as view_backend
    dev = Device("npu:0") if device is None else (Device(device) if isinstance(device, str) else device)
    r = view_backend.reshape(_npu_arange_1d(int(row), dev), (int(row), 1))
    c = view_backend.reshape(_npu_arange_1d(int(col), dev), (1, int(col)))
    r = _npu_broadcast_to(r, (int(row), int(col)))
    keep = ge(sub(c, r), int(offset))          # column - row >= offset
    pairs = nonzero(keep)
    out = contiguous(view_backend.transpose(pairs, 0, 1))
    return out if dtype is None or dtype == int64_dtype else _cast_tensor_dtype(out, dtype)
''', why="index pairs from a device mask + nonzero instead of Python loops + upload"),
    Pair(NPU, "cartesian_prod", '''
def cartesian_prod(*tensors):
    tensors = _normalize_tensor_sequence_args(tensors)
    if len(tensors) == 0:
        raise RuntimeError("cartesian_prod expects at least one tensor")
    first = tensors[0]
    for t in tensors:
        if t.device.type != "npu":
            raise ValueError("NPU cartesian_prod expects NPU tensors")
        if t.dim() != 1:
            raise ValueError("cartesian_prod expects 1D tensors")
        if t.dtype != first.dtype:
            raise RuntimeError("meshgrid expects all tensors to have the same dtype")
    from ..common import view as view_backend
    sizes = tuple(int(t.shape[0]) for t in tensors)
    total = _numel(sizes)
    columns = []
    for i, t in enumerate(tensors):
        shape = [1] * len(tensors)
        shape[i] = sizes[i]
        grid = _npu_broadcast_to(view_backend.reshape(t, tuple(shape)), sizes)
        columns.append(view_backend.reshape(contiguous(grid), (total, 1)))
    return cat(columns, dim=1)
''', why="meshgrid by broadcast on the device instead of .to('cpu').tolist() + Python product"),
    Pair(NPU, "block_diag", '''
def block_diag(*tensors):
    tensors = _normalize_tensor_sequence_args(tensors)
    from .creation import zeros_create
    if len(tensors) == 0:
        raise ValueError("block_diag expects at least one tensor on NPU")
    first = tensors[0]
    for t in tensors:
        if t.device.type != "npu":
            raise ValueError("NPU block_diag expects NPU tensors")
        if t.dim() != 2:
            raise ValueError("block_diag expects 2D tensors")
        if t.dtype != first.dtype:
            raise ValueError("block_diag expects tensors with the same dtype")
    rows = sum(int(t.shape[0]) for t in tensors)
    cols = sum(int(t.shape[1]) for t in tensors)
    out = zeros_create((rows, cols), dtype=first.dtype, device=first.device)
    r0 = 0
    c0 = 0
    for t in tensors:
        h = int(t.shape[0])
        w = int(t.shape[1])
        block = _npu_slice_view(_npu_slice_view(out, 0, r0, r0 + h), 1, c0, c0 + w)
        _npu_assign_to_view(block, t)
        r0 += h
        c0 += w
    return out
''', why="blocks copied into device views instead of .to('cpu').tolist() + Python fill"),
    Pair(NPU, "quantile_op", '''
def quantile_op(a, q, dim=None, keepdim=False):
    """Quantile via sort + on-device interpolation."""
    from ..._dispatch.dispatcher import dispatch
    from ..._creation import arange as _arange
    if hasattr(q, "shape"):
        # q values steer the computation (index and weight): a host-sync, not a fallback
        q_values = q.tolist() if len(q.shape) else [q.item()]
        if len(q.shape):
            results = [quantile_op(a, float(qv), dim=dim, keepdim=keepdim) for qv in q_values]
            return dispatch("stack", "npu", results, dim=0)
        q_val = float(q_values[0])
    else:
        q_val = float(q)
    if dim is None:
        a = dispatch("flatten", "npu", a)
        dim = 0
    sorted_t, _ = dispatch("sort", "npu", a, dim=dim)
    actual_dim = dim % len(sorted_t.shape)
    n = sorted_t.shape[actual_dim]
    idx_f = q_val * (n - 1)
    idx_lo = int(idx_f)
    idx_hi = min(idx_lo + 1, n - 1)
    frac_val = idx_f - idx_lo
    lo_val = index_select(sorted_t, actual_dim, _arange(idx_lo, idx_lo + 1, dtype=int64_dtype, device=a.device))
    hi_val = index_select(sorted_t, actual_dim, _arange(idx_hi, idx_hi + 1, dtype=int64_dtype, device=a.device))
    result = add(mul(lo_val, 1.0 - frac_val), mul(hi_val, frac_val))
    if not keepdim:
        result = dispatch("squeeze", "npu", result, actual_dim)
    return result
''', why="sorted values no longer copied D2H for host interpolation (q readback kept: host-sync)"),
    Pair(NPU, "nanmedian_op", '''
def nanmedian_op(a, dim=None, keepdim=False):
    """Median ignoring NaN values, on the device."""
    from ..._dispatch.dispatcher import dispatch
    from ..._creation import arange as _arange
    from ..._creation import tensor as create_tensor
    if dim is None:
        flat = dispatch("flatten", "npu", a)
        nan_mask = isnan(flat)
        clean = where(nan_mask, _scalar_to_npu_tensor(float("inf"), flat), flat)
        sorted_t, _ = dispatch("sort", "npu", clean)
        # the count of non-NaN values only picks the index: a host-sync
        count = int(sum_(_cast_tensor_dtype(logical_not(nan_mask), int64_dtype)).item())
        if count == 0:
            return create_tensor(float("nan"), dtype=a.dtype, device=a.device)
        med_idx = (count - 1) // 2
        picked = index_select(sorted_t, 0, _arange(med_idx, med_idx + 1, dtype=int64_dtype, device=a.device))
        return dispatch("squeeze", "npu", picked, 0)
    nan_mask = isnan(a)
    clean = where(nan_mask, _scalar_to_npu_tensor(float("inf"), a), a)
    sorted_t, sorted_idx = dispatch("sort", "npu", clean, dim=dim)
    actual_dim = dim % len(a.shape)
    mid = (sorted_t.shape[actual_dim] - 1) // 2
    mid_idx = _arange(mid, mid + 1, dtype=int64_dtype, device=sorted_t.device)
    values = dispatch("squeeze", "npu", index_select(sorted_t, actual_dim, mid_idx), actual_dim)
    indices = dispatch("squeeze", "npu", index_select(sorted_idx, actual_dim, mid_idx), actual_dim)
    if keepdim:
        values = dispatch("unsqueeze", "npu", values, actual_dim)
        indices = dispatch("unsqueeze", "npu", indices, actual_dim)
    from collections import namedtuple
    return namedtuple("nanmedian", ["values", "indices"])(values, indices)
''', why="median picked with index_select on the device instead of reading sorted values D2H"),
    Pair(NPU, "histogram_op", '''
def histogram_op(a, bins, range=None, weight=None, density=False):
    """Histogram returning (hist, bin_edges), edges built on the device."""
    from ..._dispatch.dispatcher import dispatch
    from .creation import linspace_create
    flat = dispatch("flatten", "npu", a)
    if isinstance(bins, int):
        nbins = bins
        if range is not None:
            lo, hi = float(range[0]), float(range[1])
        else:
            # the data range only parametrises the edges: a host-sync
            lo = float(dispatch("amin", "npu", _cast_tensor_dtype(flat, float_dtype)).item())
            hi = float(dispatch("amax", "npu", _cast_tensor_dtype(flat, float_dtype)).item())
        edges_tensor = linspace_create(lo, hi, nbins + 1, dtype=a.dtype, device=a.device)
    else:
        edges_tensor = _cast_tensor_dtype(dispatch("flatten", "npu", bins), a.dtype)
        nbins = edges_tensor.shape[0] - 1
    indices = searchsorted(edges_tensor, _cast_tensor_dtype(flat, a.dtype), right=False)
    indices = dispatch("clamp", "npu", indices, 1, nbins)
    indices = _cast_tensor_dtype(sub(indices, 1), int64_dtype)
    if weight is not None:
        w_flat = dispatch("flatten", "npu", weight)
        hist = dispatch("zeros", "npu", (nbins,), dtype=weight.dtype, device=a.device)
    else:
        w_flat = dispatch("ones", "npu", (flat.shape[0],), dtype=a.dtype, device=a.device)
        hist = dispatch("zeros", "npu", (nbins,), dtype=a.dtype, device=a.device)
    from ..._functional import scatter_add_ as _scatter_add
    _scatter_add(hist, 0, indices, w_flat)
    return hist, edges_tensor
''', why="edges from linspace on the device; no edge round trip through numpy"),
    Pair(NPU, "ctc_loss_op", '''
def ctc_loss_op(log_probs, targets, input_lengths, target_lengths,
                blank=0, reduction='mean', zero_infinity=False):
    """CTC loss on NPU.

    TODO: re-enable the numpy alpha recursion removal once aclnnCtcLoss is bound; until then
    the op is unsupported on NPU rather than computed on the host.
    """
    raise NotImplementedError("ctc_loss is not implemented on NPU (aclnnCtcLoss binding pending)")
''', why="host CTC recursion removed; unsupported until the native kernel is bound"),
    # Indirect fallbacks repaired by their callees' pairs.
    Pair(NPU, "_apply_dft_1d", None, fixed_by=("_build_dft_matrices",)),
    Pair(NPU, "fft_fft_op", None, fixed_by=("_build_dft_matrices",)),
    Pair(NPU, "fft_ifft_op", None, fixed_by=("_build_dft_matrices",)),
    Pair(NPU, "fft_rfft_op", None, fixed_by=("_build_dft_matrices",)),
    Pair(NPU, "fft_fft2_op", None, fixed_by=("_build_dft_matrices",)),
    Pair(NPU, "fft_ifftn_op", None, fixed_by=("_build_dft_matrices",)),
    Pair(NPU, "fft_hfft_op", None, fixed_by=("_build_dft_matrices",)),
]

CUDA_PAIRS = [
    Pair(CUDA, "add", '''
def add(a, b):
    # TODO: re-enable once the CUDA elementwise kernels land; no numpy round trip meanwhile
    raise NotImplementedError("add is not implemented on the cuda backend yet")
''', why="D2H + numpy add removed; unsupported until a CUDA kernel exists"),
    Pair(CUDA_CREATION, "zeros_create", '''
def zeros_create(shape, dtype=None, device=None, requires_grad=False, memory_format=None):
    from . import runtime as cuda_runtime
    if isinstance(shape, int):
        shape = (shape,)
    shape = tuple(shape)
    storage = empty_cuda_typed_storage(shape, dtype, device=device)
    nbytes = int(np.prod(shape)) * np.dtype(to_numpy_dtype(dtype)).itemsize
    if nbytes:
        cuda_runtime.memset(storage.data_ptr(), 0, nbytes)
    return Tensor(storage, shape, _contiguous_stride(shape), requires_grad=requires_grad)
''', why="np.zeros + upload replaced by cudaMemset (np.prod/np.dtype are metadata)"),
    Pair(CUDA_CREATION, "full_create", '''
def full_create(shape, fill_value, dtype=None, device=None):
    from . import runtime as cuda_runtime
    shape = tuple(shape)
    if fill_value != 0:
        # TODO: re-enable non-zero fills when the CUDA fill kernel lands
        raise NotImplementedError("full with a non-zero value is not implemented on cuda yet")
    storage = empty_cuda_typed_storage(shape, dtype, device=device)
    nbytes = int(np.prod(shape)) * np.dtype(to_numpy_dtype(dtype)).itemsize
    if nbytes:
        cuda_runtime.memset(storage.data_ptr(), 0, nbytes)
    return Tensor(storage, shape, _contiguous_stride(shape))
''', why="np.full + upload removed; zero fill by cudaMemset"),
]

PAIRS: list[Pair] = [*MPS_PAIRS, *MPS_CREATION_PAIRS, *MPS_OPTIM_PAIRS, *NPU_PAIRS, *CUDA_PAIRS]
