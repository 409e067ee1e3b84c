"""The plugin's messages: one line each, saying what reaches the host, in which backend,
and the on-device alternative. The text is the registry's plugin template for the code
(``device_types._codes``); every message ends with the command that explains the code."""

from __future__ import annotations

from mypy.errorcodes import ErrorCode

from device_types import _codes

from . import errorcodes as codes
from .config import Backend


def _message(code: ErrorCode, backend: Backend | None = None, **fields: str) -> str:
    entry = codes.registry_code(code)
    if backend is not None:
        fields.update(device=backend.device, prefix=backend.prefix, marker=backend.marker)
    return f"{entry.messages[_codes.PLUGIN].format(**fields)}; {_codes.explain_tail(entry)}"


def cpu_call(method: str, backend: Backend) -> str:
    return _message(codes.CPU_CALL, backend, method=method)


def readback(method: str, backend: Backend) -> str:
    return _message(codes.READBACK, backend, method=method)


def cpu_target(what: str, backend: Backend) -> str:
    return _message(codes.CPU_TARGET, backend, what=what)


def numpy_call(what: str, backend: Backend) -> str:
    return _message(codes.NUMPY, backend, what=what)


def cpu_signature(func: str, backend: Backend) -> str:
    return _message(codes.CPU_SIGNATURE, backend, func=func)


def cpu_operand(op: str, origin: str, backend: Backend) -> str:
    return _message(codes.CPU_OPERAND, backend, op=op, origin=origin)


def mixed_devices(op: str, devices: list[str], backend: Backend) -> str:
    return _message(codes.MIXED_DEVICES, backend, op=op, devices=" and ".join(devices))


def wrong_device(what: str, device: str, backend: Backend) -> str:
    return _message(codes.WRONG_DEVICE, backend, what=what, other=device)


#: (reason, advice) of a host sync, by kind.
SCALAR_SYNC = ("and copies a scalar to the host", "keep the value as a 0-d tensor on the device")
CONDITION_SYNC = ("and converts it to a Python bool",
                  "keep the value as a 0-d tensor on the device and select with torch.where")
SHAPE_SYNC = ("to size the result from tensor data",
              "keep shapes static (torch.where, masked_fill, a fixed-size op)")


def host_sync(what: str, backend: Backend, kind: tuple[str, str] = SCALAR_SYNC) -> str:
    return _message(codes.HOST_SYNC, backend, what=what, reason=kind[0], advice=kind[1])


def unknown_operand(op: str, what: str, type_text: str, backend: Backend) -> str:
    return _message(codes.UNKNOWN_OPERAND, backend, op=op, what=what, type=type_text)


def unknown_device(text: str, valid: str) -> str:
    return _message(codes.UNKNOWN_DEVICE, text=text, valid=valid)


def config_error(message: str) -> str:
    return f"{_message(codes.CONFIG, message=message)}  [{codes.CONFIG.code}]"
