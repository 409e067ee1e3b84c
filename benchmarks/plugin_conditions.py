"""Plugin variants that benchmarks/plugin_bench.py measures beside the shipped plugin.

* ``control``: the hooks of the per-call dispatch (a hook for every tensor op, torch
  function and local callee, as under dmypy), each returning mypy's own type and doing
  nothing else. It is the floor of any plugin that checks every op from per-call hooks:
  the cost of mypy dispatching them.
* ``empty``: a plugin with no hooks at all: what mypy pays for any Python plugin in its
  chain (every hook lookup, ~540k on a 12k-line tree, most of them for torch's modules,
  becomes a Python call).
* ``percall``: the shipped plugin forced into its per-call dispatch (the design before
  the per-module pass; what dmypy runs).

mypy loads these by path: ``plugins = ["benchmarks/plugin_conditions.py:control"]``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from device_types_mypy.main import DeviceTypesPlugin
from mypy.plugin import Plugin
from mypy.types import Type


def _default(ctx: Any) -> Type:
    return ctx.default_return_type  # type: ignore[no-any-return]


class ControlPlugin(DeviceTypesPlugin):
    """The per-call dispatch's hook set; every callback returns mypy's type."""

    PER_CALL = True

    def get_method_hook(self, fullname: str) -> Callable[[Any], Type] | None:
        return _default if super().get_method_hook(fullname) is not None else None

    def get_function_hook(self, fullname: str) -> Callable[[Any], Type] | None:
        return _default if super().get_function_hook(fullname) is not None else None

    def get_type_analyze_hook(self, fullname: str) -> None:
        return None  # mypy analyses the markers itself (semantic analysis, not per call)


class EmptyPlugin(Plugin):
    """No hook, no configuration."""


class PerCallPlugin(DeviceTypesPlugin):
    PER_CALL = True


def control(version: str) -> type[Plugin]:
    return ControlPlugin


def empty(version: str) -> type[Plugin]:
    return EmptyPlugin


def percall(version: str) -> type[Plugin]:
    return PerCallPlugin
