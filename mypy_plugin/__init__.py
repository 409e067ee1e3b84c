"""device-types mypy plugin (import name ``device_types_mypy``).

Enable it with ``plugins = ["device_types_mypy"]`` in your mypy configuration. It

* enforces the no-CPU-fallback policy inside the backend modules configured in
  ``[tool.device_types] backends`` (error codes ``device-*``, see docs/errors.md), and
* refines the device of factory and ``.to`` results in every module where the stubs
  cannot (``device="cuda:1"``, ``torch.device("npu", 0)``, ``device=x.device``).

Neither this package nor anything it imports imports torch.
"""

from __future__ import annotations

from .main import DeviceTypesPlugin, plugin

__all__ = ["DeviceTypesPlugin", "plugin"]
