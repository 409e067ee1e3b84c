"""Glue between mypy's options and ``device_types._config``.

The configuration is read once, when mypy constructs the plugin. A malformed
configuration does not raise there (that would print a traceback); it is kept and raised
as a blocking mypy error (``CompileError``) from the first hook mypy calls while it loads
the module graph, so the user sees one line ``<config file>: error: ...  [device-config]``
and mypy exits with status 2 before checking anything. See docs/plugin.md.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from device_types._config import Config, ConfigError, load_config
from device_types._devices import DEVICE_BY_TYPE
from mypy.errors import CompileError
from mypy.options import Options


MARKER_NAMES: Final = {device: cls.__name__ for device, cls in DEVICE_BY_TYPE.items()}


@dataclass(frozen=True)
class Backend:
    #: The configured module prefix this module falls under.
    prefix: str
    #: Device type of the backend ("mps", "cuda", ...).
    device: str

    @property
    def marker(self) -> str:
        return MARKER_NAMES.get(self.device, self.device.upper())


class PluginConfig:
    def __init__(self, options: Options) -> None:
        self.error: str | None = None
        self.path = options.config_file
        try:
            self.config = load_config(options.config_file)
        except ConfigError as exc:
            self.config = Config()
            self.error = str(exc)
        self._cache: dict[str, Backend | None] = {}
        # mypy asks for every module it loads (torch alone: ~1900 on a warm run);
        # most share no top-level package with any backend.
        self.roots = frozenset(prefix.partition(".")[0] for prefix in self.config.backends)

    def raise_if_broken(self) -> None:
        if self.error is not None:
            from . import messages

            raise CompileError([messages.config_error(_as_mypy_error(self.error))], use_stdout=True)

    def backend_of(self, module: str) -> Backend | None:
        if module.partition(".")[0] not in self.roots:
            return None
        try:
            return self._cache[module]
        except KeyError:
            pass
        prefix = self.config.backend_prefix_of(module)
        backend = None if prefix is None else Backend(prefix, self.config.backends[prefix])
        self._cache[module] = backend
        return backend

    def report_data(self, module: str) -> list[str] | None:
        """Per-module config data for mypy's cache: the module's backend, or None."""
        backend = self.backend_of(module)
        return None if backend is None else [backend.prefix, backend.device]


def _as_mypy_error(message: str) -> str:
    # ConfigError messages read "<path>: <what>"; mypy's own config errors read
    # "<path>: error: <what>".
    path, sep, rest = message.partition(": ")
    if sep and (path.endswith((".toml", ".ini", ".cfg"))):
        return f"{path}: error: {rest}"
    return f"error: {message}"
