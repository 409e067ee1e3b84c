"""Pattern 7: a helper that reads back on each of its branches, called with a literal that
picks one branch: the caller's root is the readback of the branch its call takes."""
from ..common.host import from_numpy, to_numpy


def _stage_rates(device, total, stagewise=False):
    rates = device.linspace_kernel(0.0, 1.0, total)
    if not stagewise:
        return to_numpy(rates)
    return to_numpy(rates.reshape_kernel(total, 1))


def stage_schedule(x, total):
    rates = _stage_rates(x.device, total, stagewise=True)  # E: device-readback
    return from_numpy(rates, x.dtype, x.device)


def block_schedule(x, total):
    rates = _stage_rates(x.device, total)  # E: device-readback
    return from_numpy(rates, x.dtype, x.device)
