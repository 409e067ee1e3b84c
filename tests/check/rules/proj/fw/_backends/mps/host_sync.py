"""device-host-sync (opt-in): data read back only to decide control flow."""
from . import kernels


def maybe_exp(a):
    if a.sum().item() > 0:  # E: device-host-sync
        return kernels.exp(a)
    return a


def always_exp(a):
    return kernels.exp(a)
