"""Pattern 14: a branch for another accelerator's tensors (``x.device.type == "mps"``) does
not run in the npu backend: its host path is no finding, and callers get the root on the
path the npu backend takes."""
from ..common.host import from_numpy, to_numpy


def _solve_on_host(a):
    return from_numpy(to_numpy(a) * 2.0, a.dtype, a.device)  # E: device-readback


def solve(a):
    if a.device.type == "mps":
        return from_numpy(to_numpy(a) + 1.0, a.dtype, a.device)
    return _solve_on_host(a)  # E: device-indirect-fallback


def solve_batch(a):
    return solve(a)  # E: device-indirect-fallback
