"""The plugin's messages: one line each, saying what reaches the host, in which backend,
and the on-device alternative."""

from __future__ import annotations

from mypy.errorcodes import ErrorCode

from . import errorcodes as codes
from .config import Backend

KEEP = "keep it on {device} and use an on-device composite of working ops"


def _tail(backend: Backend, code: ErrorCode, advice: str | None = None) -> str:
    advice = advice if advice is not None else KEEP.format(device=backend.device)
    return f"inside the {backend.device} backend ({backend.prefix}); {advice}; {codes.docs_ref(code)}"


def cpu_call(method: str, backend: Backend) -> str:
    return f'"{method}()" moves the tensor to the host ' + _tail(backend, codes.CPU_CALL)


def readback(method: str, backend: Backend) -> str:
    return f'"{method}()" copies tensor data to the host ' + _tail(backend, codes.READBACK)


def cpu_target(what: str, backend: Backend) -> str:
    return f"{what} targets the CPU " + _tail(backend, codes.CPU_TARGET)


def numpy_call(what: str, backend: Backend) -> str:
    return f"{what} computes on host (numpy) data " + _tail(
        backend, codes.NUMPY, f"use the torch op on {backend.device} tensors instead"
    )


def cpu_signature(func: str, backend: Backend) -> str:
    return f'"{func}" takes or returns Tensor[CPU] ' + _tail(
        backend, codes.CPU_SIGNATURE, f"take and return Tensor[{backend.marker}] instead"
    )


def cpu_operand(op: str, origin: str, backend: Backend) -> str:
    return f'"{op}" consumes a CPU tensor ({origin}) ' + _tail(
        backend, codes.CPU_OPERAND, f"create it on {backend.device} (device=x.device)"
    )


def mixed_devices(op: str, devices: list[str], backend: Backend) -> str:
    return f'"{op}" mixes tensors on {" and ".join(devices)} ' + _tail(
        backend, codes.MIXED_DEVICES, f"keep every operand on {backend.device}"
    )


def wrong_device(what: str, device: str, backend: Backend) -> str:
    return f"{what} is on {device}, not {backend.device}, " + _tail(
        backend, codes.WRONG_DEVICE, f"keep it on {backend.device}"
    )


def host_sync(method: str, backend: Backend) -> str:
    return f'"{method}()" waits for the device and copies a scalar to the host ' + _tail(
        backend, codes.HOST_SYNC, "keep the value as a 0-d tensor on the device"
    )


def unknown_device(text: str, valid: str) -> str:
    return (
        f'unknown device "{text}"; valid device types are {valid} '
        f'(optionally with an index, e.g. "cuda:1"); {codes.docs_ref(codes.UNKNOWN_DEVICE)}'
    )


def config_error(message: str) -> str:
    return f"{message}  [{codes.CONFIG.code}]"
