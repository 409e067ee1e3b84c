"""device-cpu-target: a transfer that names the CPU, in any spelling."""
from . import kernels

HOST = "cpu"


def sort_on_host(a):
    return kernels.sort(a.to(HOST)).to(a.device)  # E: device-cpu-target


def sort_in_half(a):
    return kernels.sort(a.to(a.dtype))
