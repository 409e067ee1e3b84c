"""An NPU backend: ACLNN calls, D2H copies through runtime helpers, SoC branches."""
import numpy as np

from . import runtime


def _soc_fallback(name):
    return name in ("nonzero",)


def nonzero(a):
    if not _soc_fallback("nonzero"):
        return aclnn_nonzero(a)
    host = runtime.copy_to_host(a.data_ptr(), a.shape, a.dtype)  # E: device-readback
    idx = np.stack(np.nonzero(host), axis=-1)
    return upload(idx, device=a.device)


def index_map(a, n):
    """An index map from shapes alone, staged as the gather's operand: metadata (issue 24)."""
    idx = np.arange(n).reshape(n, 1) * a.shape[1]
    return gather(a, upload(idx, device=a.device))


def index_table(n, device):
    """The same map returned as the op's result: built on the host."""
    idx = np.arange(n).reshape(n, 1) * n  # E: device-numpy
    return upload(idx, device=device)


def repeat_interleave(a, repeats):
    counts = repeats.to("cpu").tolist()  # E: device-cpu-target
    expanded = [i for i, c in enumerate(counts) for _ in range(c)]
    return gather(a, upload(np.array(expanded), device=a.device))


def validate(a, index):
    bad = index.to("cpu").numpy()
    if (bad < 0).any():
        raise IndexError("negative index")
    return gather(a, index)


def aclnn_nonzero(a):
    return ("aclnnNonzero", a)


def gather(a, index):
    return runtime.acl.op("aclnnGather", a, index)


def upload(arr, device):
    return ("h2d", arr, device)
