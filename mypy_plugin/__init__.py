"""device-types mypy plugin (import name ``device_types_mypy``).

Enable it with ``plugins = ["device_types_mypy"]`` in your mypy configuration. It

* enforces the no-CPU-fallback policy inside the backend modules configured in
  ``[tool.device_types] backends`` (error codes ``device-*``, see docs/errors.md), and
* refines the device of factory and ``.to`` results in every module where the stubs
  cannot (``device="cuda:1"``, ``torch.device("npu", 0)``, ``device=x.device``).

Neither this package nor anything it imports imports torch.
"""

from __future__ import annotations

import hashlib as _hashlib
import pathlib as _pathlib

from .main import DeviceTypesPlugin, plugin

__all__ = ["DeviceTypesPlugin", "plugin"]


def _source_digest() -> str:
    # mypy keys its cache on this module's file and ``__version__`` only: fold in every
    # module of the plugin and the tables it reads, so editing any of them invalidates
    # cached results.
    digest = _hashlib.sha256()
    here = _pathlib.Path(__file__).resolve().parent
    import device_types._config as _c
    import device_types._devices as _d
    import device_types._semantics as _s

    for path in [*sorted(here.glob("*.py")), *(_pathlib.Path(m.__file__) for m in (_c, _d, _s) if m.__file__)]:
        try:
            digest.update(path.read_bytes())
        except OSError:
            pass
    return digest.hexdigest()[:16]


__version__ = f"0.1.0+{_source_digest()}"
