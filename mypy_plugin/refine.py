"""Device refinement that the stubs cannot express, in every module.

``torch.zeros(3, device="cuda:1")``, ``torch.device("npu", 0)``, ``x.to(y.device)``:
the result's device is read from the argument and written into the result type, when the
result type is device-generic (overlay installed) and ``device_types._devices`` is
loaded. Anything else leaves mypy's type alone.
"""

from __future__ import annotations

from mypy.nodes import Context, Expression, StrExpr
from mypy.plugin import CheckerPluginInterface
from mypy.types import Type

from . import errorcodes as codes
from . import messages
from .report import fail_once
from .types import VALID_DEVICES, Invalid, device_of_expr, marker_instance, parse_device, with_device


def refine(
    api: CheckerPluginInterface, default: Type, found: tuple[Expression, Type] | None, context: Context
) -> Type:
    if found is None:
        return default
    return apply_device(api, default, device_of_expr(*found), context)


def refine_torch_device(api: CheckerPluginInterface, default: Type, first: Expression | None, context: Context) -> Type:
    """``torch.device("npu", 0)`` / ``torch.device("cuda:1")`` -> ``device[NPU]`` / ``device[CUDA]``."""
    if not isinstance(first, StrExpr):
        return default
    return apply_device(api, default, parse_device(first.value), context)


def apply_device(api: CheckerPluginInterface, default: Type, device: str | Invalid | None, context: Context) -> Type:
    """``default`` with ``device`` written in; an invalid device name is reported once."""
    if isinstance(device, Invalid):
        fail_once(api, messages.unknown_device(str(device), VALID_DEVICES), context, codes.UNKNOWN_DEVICE)
        return default
    if device is None:
        return default
    marker = marker_instance(getattr(api, "modules", {}), device)
    refined = with_device(default, marker) if marker is not None else None
    return default if refined is None else refined
