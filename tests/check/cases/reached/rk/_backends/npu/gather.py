"""Pattern 6: a chip-specific path still counts: the index read back with a helper drives
device-to-device copies element by element from a host loop (host addressing of the result)."""
from . import runtime
from ..common.host import to_numpy, use_soc_fallback


def _gather_soc(a, dim, index):
    idx = to_numpy(index)  # E: device-readback
    out = a.device.empty(index.shape, device=a.device)
    for i in range(index.numel()):
        runtime.memcpy_d2d(out.data_ptr() + i * a.itemsize, a.data_ptr() + int(idx[i]) * a.itemsize, a.itemsize)
    return out


def gather(a, dim, index):
    if use_soc_fallback("gather"):
        return _gather_soc(a, dim, index)  # E: device-indirect-fallback
    return a.device.gather_kernel(a, dim, index)


def index_select(a, dim, index):
    return gather(a, dim, index)  # E: device-indirect-fallback


def take_checked(a, index):
    count = int(to_numpy(index.sum())[()])  # one readback for a count: a host sync, not a fallback
    return a.device.take_kernel(a, index, count)
