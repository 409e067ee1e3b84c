"""Math ops (the shapes of real markers: dtype paths, continuation lines, qualifiers)."""

USE_NATIVE_NANMEAN = False


def bmm(a, b):
    # TODO: re-enable float32 native path when CANN fixes float32 support on 310P.
    if a.dtype == "float32":
        return _cast_run_cast(a, b)
    return _native_bmm(a, b)


def hardswish(x):
    # TODO: re-enable float32 native path when CANN fixes float32 support on 310P.
    if x.dtype == "float32":
        return _cast_run_cast(x)
    return _native_hardswish(x)


def logaddexp(a, b):
    if _use_soc_fallback("logaddexp"):
        # TODO: re-enable native aclnnLogAddExp when CANN fixes 561103 on 310P
        #       and once aclnnLogAddExp availability is confirmed on 910C.
        return _max_log_exp(a, b)
    return _native_logaddexp(a, b)


def nanmean(x):
    # TODO: re-enable native aclnnNanmean when CANN fixes 161002
    # for the nan path of the reduction
    if USE_NATIVE_NANMEAN:
        return _native_nanmean(x)
    return _nansum_over_count(x)


def erfinv(x):
    if x.dtype == "float16":
        # TODO: re-enable native kernel when CANN fixes aclnnErfinv on 910A (561000)
        return _erfinv_series(x)
    return _native_erfinv(x)


def argmax(x):
    # TODO: re-enable native aclnnArgMax when CANN fixes 561103
    if _use_soc_fallback("argmax"):
        return _max_then_index(x)
    return _native_argmax(x)


def renorm(x):
    # TODO: re-enable native kernel when CANN 8.2 fixes aten.renorm
    if _use_soc_fallback("renorm"):
        return _norm_div(x)
    return _native_renorm(x)


def group_norm(x):
    # TODO: re-enable native aclnnGroupNorm when CANN fixes 561103.
    if _use_soc_fallback("group_norm"):
        return _reshape_layer_norm(x)
    return _native_group_norm(x)


def isfinite(x):
    # TODO: re-enable native kernel when CANN fixes 561000 on 910A
    if not _use_soc_fallback("isfinite"):
        return _native_isfinite(x)
    return _eq_self_and_abs(x)


def query_event(stream):
    # TODO: re-enable native kernel when CANN fixes the event API
    if HAVE_EVENTS:
        return _native_query(stream)
    return _synchronize(stream)
