"""Reading devices from mypy types and expressions.

A device is a device-type string ("cpu", "cuda", ...) or None for "unknown". Nothing here
reports errors; everything falls back to None for what it does not understand.
"""

from __future__ import annotations

from typing import Final

from device_types._devices import DEVICE_BY_TYPE, TORCH_DEVICE_TYPES, device_for_type
from mypy.maptype import map_instance_to_supertype
from mypy.nodes import (
    CallExpr,
    ComparisonExpr,
    Decorator,
    Expression,
    FuncDef,
    IndexExpr,
    IntExpr,
    MemberExpr,
    NameExpr,
    OpExpr,
    OverloadedFuncDef,
    RefExpr,
    StrExpr,
    SymbolNode,
    TypeInfo,
    UnaryExpr,
)
from mypy.types import CallableType, Instance, LiteralType, ProperType, Type, TypeAliasType, UnionType, get_proper_type

TENSOR_BASE: Final = "torch._C.TensorBase"
TORCH_DEVICE: Final = "torch._C.device"
TORCH_DEVICE_NAMES: Final = frozenset({"torch._C.device", "torch.device"})
DEVICES_MODULE: Final = "device_types._devices"
MARKER_DEVICE: Final = {f"{DEVICES_MODULE}.{cls.__name__}": device for device, cls in DEVICE_BY_TYPE.items()}
DEVICE_MARKER: Final = {device: cls.__name__ for device, cls in DEVICE_BY_TYPE.items()}
VALID_DEVICES: Final = ", ".join(DEVICE_BY_TYPE)
#: Device types torch accepts that have no marker: left alone (unknown device), no error.
OTHER_TORCH_DEVICES: Final = TORCH_DEVICE_TYPES - set(DEVICE_BY_TYPE)
#: torch's names for "a device spec" (``DeviceLikeType``, ``torch.types._device`` and
#: ``Device``, ``torch.cuda``'s ``_device_t``): only a parameter typed with one of these
#: reads a string argument as a device. ``device: str`` is often a registry key
#: (``register_interface_for_device("tpu", ...)``).
DEVICE_SPEC_ALIASES: Final = frozenset({"DeviceLikeType", "_device", "Device", "_device_t"})
NDARRAY: Final = "numpy.ndarray"


class Invalid(str):
    """A device string that names no device (``"gpu"``): the original text."""


def parse_device(text: str) -> str | Invalid | None:
    """"cuda:1" -> "cuda"; "gpu" -> Invalid("gpu"); "meta" -> None (no marker)."""
    marker = device_for_type(text)
    if marker is not None:
        return marker.type
    kind = text.strip().partition(":")[0]
    if kind in OTHER_TORCH_DEVICES:
        return None
    return Invalid(text)


#: TypeInfo fullname -> is a tensor class (an MRO scan, done once per class).
_TENSOR_CLASSES: dict[str, bool] = {"torch._tensor.Tensor": True, TENSOR_BASE: True}
#: Classes whose first type argument is the device (no supertype mapping needed).
_DIRECT = frozenset({"torch._tensor.Tensor", TENSOR_BASE, TORCH_DEVICE})


def is_tensor_info(info: TypeInfo) -> bool:
    known = _TENSOR_CLASSES.get(info.fullname)
    if known is None:
        known = _TENSOR_CLASSES[info.fullname] = info.has_base(TENSOR_BASE)
    return known


def tensor_instance(typ: Type | None) -> Instance | None:
    if typ is None:
        return None
    p = get_proper_type(typ)
    if isinstance(p, Instance) and is_tensor_info(p.type):
        return p
    return None


def is_ndarray(typ: Type | None) -> bool:
    if typ is None:
        return False
    p = get_proper_type(typ)
    return isinstance(p, Instance) and p.type.has_base(NDARRAY)


def _marker_device(typ: Type) -> str | None:
    p = get_proper_type(typ)
    if isinstance(p, Instance):
        return MARKER_DEVICE.get(p.type.fullname)
    return None


def _device_arg_of(p: Instance, base: str) -> str | None:
    for info in p.type.mro:
        if info.fullname == base:
            mapped = p if p.type is info else map_instance_to_supertype(p, info)
            if mapped.args:
                return _marker_device(mapped.args[0])
            return None
    return None


def device_of_type(typ: Type | None) -> str | Invalid | None:
    """Device of a tensor, a ``torch.device``, a device marker or a literal device string."""
    if typ is None:
        return None
    p: ProperType = get_proper_type(typ)
    if isinstance(p, LiteralType):
        return parse_device(p.value) if isinstance(p.value, str) else None
    if not isinstance(p, Instance):
        return None
    if p.last_known_value is not None:
        return device_of_type(p.last_known_value)
    fullname = p.type.fullname
    if fullname in _DIRECT:
        return _marker_device(p.args[0]) if p.args else None
    if fullname in MARKER_DEVICE:
        return MARKER_DEVICE[fullname]
    if is_tensor_info(p.type):
        return _device_arg_of(p, TENSOR_BASE)
    if p.type.has_base(TORCH_DEVICE):
        return _device_arg_of(p, TORCH_DEVICE)
    return None


def callee_fullname(call: CallExpr) -> str | None:
    callee = call.callee
    if isinstance(callee, RefExpr):
        return callee.fullname or None
    return None


def device_of_expr(expr: Expression, typ: Type | None) -> str | Invalid | None:
    """Device an argument names: ``"cuda:1"``, ``0``, ``torch.device("npu", 0)``, a
    Final/Literal variable, ``x.device`` or a tensor (``.to(other)``)."""
    if isinstance(expr, StrExpr):
        return parse_device(expr.value)
    if isinstance(expr, IntExpr):
        return "cuda"  # torch reads a bare index as a CUDA device
    if isinstance(expr, CallExpr) and callee_fullname(expr) in TORCH_DEVICE_NAMES and expr.args:
        first = expr.args[0]
        if isinstance(first, StrExpr):
            return parse_device(first.value)
    return device_of_type(typ)


def param_names(node: SymbolNode | None) -> set[str]:
    """Parameter names of a function, or of all items of an overloaded one."""
    if isinstance(node, Decorator):
        node = node.func
    if isinstance(node, FuncDef):
        return {n for n in node.arg_names if n}
    if isinstance(node, OverloadedFuncDef):
        names: set[str] = set()
        for item in node.items:
            names |= param_names(item)
        return names
    return set()


def marker_instance(modules: dict[str, object], device: str) -> Instance | None:
    """``Instance`` of the marker class for ``device``, looked up through the loaded
    modules (never ``named_generic_type``); None when ``device_types`` is not loaded."""
    module = modules.get(DEVICES_MODULE)
    names = getattr(module, "names", None)
    if names is None:
        return None
    sym = names.get(DEVICE_MARKER.get(device, ""))
    node = sym.node if sym is not None else None
    if isinstance(node, TypeInfo):
        return Instance(node, [])
    return None


def with_device(typ: Type, marker: Instance) -> Type | None:
    """``typ`` (a device-generic tensor or ``torch.device``) with its device set to
    ``marker``; None when ``typ`` is not device-generic (no overlay) or not a tensor."""
    p = get_proper_type(typ)
    if not isinstance(p, Instance) or not p.args:
        return None
    if not (p.type.has_base(TENSOR_BASE) or p.type.has_base(TORCH_DEVICE)):
        return None
    tvars = p.type.defn.type_vars
    if not tvars:
        return None
    return p.copy_modified(args=[marker, *p.args[1:]])


def short_name(expr: Expression) -> str:
    if isinstance(expr, CallExpr):
        return short_name(expr.callee)
    if isinstance(expr, (NameExpr, MemberExpr)):
        return expr.name
    if isinstance(expr, OpExpr):
        return expr.op
    if isinstance(expr, ComparisonExpr):
        return expr.operators[0]
    if isinstance(expr, UnaryExpr):
        return expr.op
    if isinstance(expr, IndexExpr):
        return "[]"
    return "call"



def is_device_spec_type(typ: Type | None) -> bool:
    """Whether a parameter type is one of torch's device-spec aliases (possibly Optional)."""
    if isinstance(typ, TypeAliasType):
        if typ.alias is not None and typ.alias.name in DEVICE_SPEC_ALIASES:
            return True
        return is_device_spec_type(get_proper_type(typ))
    if isinstance(typ, UnionType):
        return any(is_device_spec_type(item) for item in typ.items)
    return False


def takes_device_spec(node: SymbolNode | None, parameter: str) -> bool:
    """Whether ``node`` (a function, overloaded or decorated, or a class by its
    ``__init__``) types ``parameter`` as a device spec in any of its signatures."""
    if isinstance(node, TypeInfo):
        init = node.names.get("__init__")
        node = init.node if init is not None else None
    if isinstance(node, Decorator):
        node = node.func
    if isinstance(node, OverloadedFuncDef):
        return any(takes_device_spec(item, parameter) for item in node.items)
    signature = getattr(node, "type", None)
    if not isinstance(signature, CallableType) or parameter not in signature.arg_names:
        return False
    return is_device_spec_type(signature.arg_types[signature.arg_names.index(parameter)])
