"""Pooling and shape ops (the shapes of real markers: kernel names, chips, flags)."""

USE_NATIVE_CUMSUM = False  # TODO: re-enable native aclnnCumsum when CANN fixes 161001.


def max_pool2d(x):
    # TODO: re-enable native aclnnMaxPool2d when CANN fixes 161002 on 910C
    if _use_soc_fallback("max_pool2d"):
        return _unfold_amax(x)
    return _native_max_pool2d(x)


def pixel_shuffle(x):
    # TODO: re-enable native aclnnPixelShuffle when CANN fixes it
    runtime = _runtime(x)
    return _reshape_permute(runtime, x)


def roll(x, shifts):
    if not _use_soc_fallback("roll"):
        # TODO: re-enable native aclnnRoll when CANN fixes 561103
        pass
    return _slice_cat(x, shifts)


def index_put(x, mask, values):
    if mask.dtype == "bool":
        # TODO: re-enable native kernel when CANN fixes aclnnIndexPut bool-mask accumulate (161001)
        raise RuntimeError("NPU boolean mask index_put is not supported")
    return _native_index_put(x, mask, values)
