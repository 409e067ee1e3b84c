"""device-cpu-backend: the CPU backend's op called on device data."""
from ..cpu import ops as cpu_ops
from . import kernels


def cumsum_on_cpu_backend(a):
    return cpu_ops.cumsum(a)  # E: device-cpu-backend


def cumsum_native(a):
    return kernels.cumsum(a)


def cumsum_under_cpu_guard(a):
    """A CPU tensor handed to the CPU backend: no device data there."""
    if a.device.type == "cpu":
        return cpu_ops.cumsum(a)
    return kernels.cumsum(a)
