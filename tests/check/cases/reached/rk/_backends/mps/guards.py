"""Pattern 2: the caller's own guard (or its early return) rules out the callee's host branch."""
from ..common.host import can_use_gpu, from_numpy, to_numpy


def _exp(x):
    if not can_use_gpu(x):
        return from_numpy(to_numpy(x) ** 2, x.dtype, x.device)  # E: device-readback
    return x.device.kernel("exp", x)


def exp_guarded(a):
    if can_use_gpu(a):
        return _exp(a)
    return a.device.kernel("exp_generic", a)


def exp_after_return(a):
    if not can_use_gpu(a):
        return a.device.kernel("exp_generic", a)
    return _exp(a)


def exp_any(a):
    return _exp(a)  # E: device-indirect-fallback


def _cast_half(x):
    if x.dtype != "float16":
        return from_numpy(to_numpy(x).astype("float16"), "float16", x.device)  # E: device-readback
    return x


def half_checked(a):
    assert a.dtype == "float16"
    return _cast_half(a)


def half_any(a):
    return _cast_half(a)  # E: device-indirect-fallback
