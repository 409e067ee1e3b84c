"""Project configuration: ``[tool.device_types]`` in pyproject.toml or ``[device_types]``
in mypy.ini / .mypy.ini / setup.cfg.

One reader for the mypy plugin and ``device-types audit``. Every defect in the file is a
``ConfigError`` that names the file and the key; nothing here raises anything else.
Torch-free and mypy-free: the plugin imports it at start-up.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final

from . import _codes
from ._devices import DEVICE_BY_TYPE

if TYPE_CHECKING:
    from ._vocabulary import HostVocabulary

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

__all__ = ["CheckConfig", "Config", "ConfigError", "INI_FILES", "load_config", "find_config", "default_backend_device",
           "infer_backends", "load_config_option"]

SECTION: Final = "device_types"
#: ``[tool.device-types]``, the distribution's name, is read as ``[tool.device_types]``.
DISTRIBUTION_SECTION: Final = "device-types"
DEFAULT_KNOWN_ISSUES: Final = "docs/known-kernel-issues.md"
#: Files looked at, in mypy's own order of precedence, when no file is named.
INI_FILES: Final = ("mypy.ini", ".mypy.ini", "pyproject.toml", "setup.cfg")
#: Device types a backend may be mapped to (the host is never a backend).
BACKEND_DEVICES: Final = tuple(sorted(t for t in DEVICE_BY_TYPE if t != "cpu"))
#: Without configured backends, the package ``<anything>._backends.<device>`` (the directory
#: ``<anything>/_backends/<device>/``) is the backend of ``<device>``, for every backend device.
#: One rule for the check (module names) and the audit (directories).
BACKENDS_PACKAGE: Final = "_backends"
KNOWN_KEYS: Final = frozenset({"backends", "known_issues", "platforms", "default_backend", "strict", "check",
                                "docs_url"})
#: Keys of ``[tool.device_types.check]`` (``[device_types.check]`` in INI files).
CHECK_KEYS: Final = frozenset({"cpu_backends", "readbacks", "uploads", "enable", "disable", "baseline", "vocabulary"})
#: Keys whose INI value is a mapping written ``name = value`` (commas or new lines).
_INI_MAPPINGS: Final = {"backends": "module.prefix = device", "platforms": "platform name = device"}
_INI_BOOLEANS: Final = {"true": True, "yes": True, "on": True, "1": True, "false": False, "no": False, "off": False, "0": False}


def default_backend_device(parent: str, name: str) -> str | None:
    """The device of package ``name`` inside package ``parent`` when no backends are configured."""
    return name if parent == BACKENDS_PACKAGE and name in BACKEND_DEVICES else None


def infer_backends(module_names: Iterable[str]) -> dict[str, str]:
    """Backends of these modules by :func:`default_backend_device`: module prefix -> device."""
    found: dict[str, str] = {}
    for name in module_names:
        parts = name.split(".")
        for i in range(1, len(parts)):
            device = default_backend_device(parts[i - 1], parts[i])
            if device is not None:
                found[".".join(parts[: i + 1])] = device
    return found


class ConfigError(Exception):
    """A malformed ``device_types`` configuration; ``str()`` is the user-facing line."""


@dataclass(frozen=True)
class CheckConfig:
    """``device-types check`` settings: what the analysis cannot infer, and code selection."""

    #: Module prefixes of CPU backends; empty means "the ``cpu`` sibling of each backend".
    cpu_backends: tuple[str, ...] = ()
    #: Dotted callables that return host data of their first argument (declared readbacks).
    readbacks: tuple[str, ...] = ()
    #: Dotted callables that upload their first argument to a device (declared uploads).
    uploads: tuple[str, ...] = ()
    enable: tuple[str, ...] = ()
    disable: tuple[str, ...] = ()
    #: Baseline file used when ``--baseline`` is not given (relative to the project root).
    baseline: str | None = None
    #: The host vocabulary when the project extends it (``[tool.device_types.check.vocabulary]``,
    #: merged with the built-in one); None: the built-in one. Read ``vocabulary``.
    project_vocabulary: HostVocabulary | None = None

    @property
    def vocabulary(self) -> HostVocabulary:
        """The host vocabulary: built in, plus ``[tool.device_types.check.vocabulary]``.

        The built-in one is imported on first use: the mypy plugin imports this module at
        every mypy start and never reads it (``_vocabulary`` took 4 ms of a one-file edit's
        recheck, docs/performance.md)."""
        if self.project_vocabulary is not None:
            return self.project_vocabulary
        from ._vocabulary import BUILTIN

        return BUILTIN


@dataclass(frozen=True)
class Config:
    """The ``[tool.device_types]`` settings (``load_config``), with their defaults."""

    #: Dotted module prefix -> device type ("mps", "cuda", "npu", "xpu").
    backends: dict[str, str] = field(default_factory=dict)
    #: Path of the known-kernel-issues document, relative to ``root``.
    known_issues: str = DEFAULT_KNOWN_ISSUES
    #: Chip or platform name (as written in a section heading of the document, e.g. "910B")
    #: -> device type; the audit reads a table's backend from its heading through this.
    platforms: dict[str, str] = field(default_factory=dict)
    #: Backend of known-issues rows that name none (no Backend column, heading or path).
    default_backend: str | None = None
    #: Whether the audit demands the policy's exact table schema and marker wording.
    strict: bool = False
    #: Directory the configuration was read from (the project root).
    root: str = "."
    #: The file it was read from, or None when no file has a device_types section.
    source: str | None = None
    check: CheckConfig = field(default_factory=CheckConfig)
    #: Base URL of the docs that links point at (``<base>/errors.md#<code>``); None: the
    #: installed package's own copy (``device_types._links``).
    docs_url: str | None = None

    def backend_prefix_of(self, module: str) -> str | None:
        """The configured prefix that covers ``module`` (the longest one), if any."""
        covering = [p for p in self.backends if module == p or module.startswith(p + ".")]
        return max(covering, key=len, default=None)

    def backend_of(self, module: str) -> str | None:
        """Device type of the backend that ``module`` belongs to (longest prefix wins)."""
        prefix = self.backend_prefix_of(module)
        return None if prefix is None else self.backends[prefix]


#: A configuration file is hand-written: a larger one is not read.
_MAX_CONFIG_BYTES = 16 * 1024 * 1024


def find_config(directory: str = ".") -> str | None:
    """The first file in ``directory`` that has a device_types section, if any."""
    for name in INI_FILES:
        path = os.path.join(directory, name)
        if os.path.isfile(path) and _has_section(path):
            return path
    return None


def load_config_option(option: str | None, directory: str) -> Config:
    """The configuration of ``--config FILE``, or else of the first config file in ``directory``."""
    if option is not None and not os.path.isfile(option):
        if os.path.isdir(option):
            raise ConfigError(f"--config {option!r} is a directory; name the file (pyproject.toml, mypy.ini or setup.cfg)")
        if os.path.lexists(option):
            raise ConfigError(f"--config {option!r} is not a regular file")
        raise ConfigError(f"--config {option!r}: no such file")
    found = option if option is not None else find_config(directory)
    return load_config(os.path.normpath(found) if found is not None else None)


def load_config(path: str | None) -> Config:
    """Read the device_types section of ``path`` (pyproject.toml or an INI file).

    A file without the section, or ``path=None``, gives the empty configuration. When
    ``path`` is an INI file without the section, a pyproject.toml beside it is read
    instead, so projects that keep mypy's config in mypy.ini may keep ours in pyproject.
    """
    if path is None:
        return Config()
    root = os.path.dirname(os.path.abspath(path))
    raw = _read_section(path)
    if raw is None and not path.endswith(".toml"):
        sibling = os.path.join(root, "pyproject.toml")
        if os.path.isfile(sibling):
            path, raw = sibling, _read_section(sibling)
    if raw is None:
        return Config(root=root)
    return _validate(raw, path, root)


def _has_section(path: str) -> bool:
    try:
        return _read_section(path) is not None
    except ConfigError:
        return True  # a broken section is still the one to report


def _read_section(path: str) -> dict[str, Any] | None:
    try:
        if path.endswith(".toml"):
            from ._files import read_regular

            data = tomllib.loads(read_regular(path, _MAX_CONFIG_BYTES).decode("utf-8"))
            tool = data.get("tool", {})
            section = tool.get(SECTION) if isinstance(tool, dict) else None
            spelled = tool.get(DISTRIBUTION_SECTION) if isinstance(tool, dict) else None
            if section is not None and spelled is not None:
                raise ConfigError(f"{path}: both [tool.{SECTION}] and [tool.{DISTRIBUTION_SECTION}]: keep one")
            section = section if section is not None else spelled  # the distribution's name works too
            if section is None:
                return None
            if not isinstance(section, dict):
                raise ConfigError(f"{path}: [tool.{SECTION}] must be a table")
            return section
        return _read_ini_section(path)
    except (OSError, UnicodeDecodeError) as exc:
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
        raise ConfigError(f"{path}: cannot read the file: {why}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from None
    except RecursionError:
        raise ConfigError(f"{path}: nested too deeply to be a configuration") from None


def _read_ini_section(path: str) -> dict[str, Any] | None:
    import configparser  # only for setup.cfg / mypy.ini: a pyproject.toml run never loads it

    try:
        parser = configparser.ConfigParser(interpolation=None)
        parser.optionxform = str  # type: ignore[assignment,method-assign]  # keep module names' case
        parser.read(path, encoding="utf-8")
        if not parser.has_section(SECTION):
            return None
        section = {key: _parse_ini_value(path, key, value) for key, value in parser.items(SECTION)}
        if parser.has_section(f"{SECTION}.check"):
            section["check"] = {key: [v.strip() for v in value.replace(",", "\n").splitlines() if v.strip()]
                                if key != "baseline" else value.strip()
                                for key, value in parser.items(f"{SECTION}.check")}
        if parser.has_section(f"{SECTION}.check.vocabulary"):  # names and patterns; copy_apis need TOML
            section.setdefault("check", {})["vocabulary"] = {
                key: [v.strip() for v in value.splitlines() if v.strip()]
                for key, value in parser.items(f"{SECTION}.check.vocabulary")}
        return section
    except configparser.Error as exc:
        raise ConfigError(f"{path}: not a valid INI file: {exc.message}") from None


def _parse_ini_value(path: str, key: str, value: str) -> Any:
    if key == "strict":
        flag = _INI_BOOLEANS.get(value.strip().lower())
        return value if flag is None else flag  # a word that is no boolean is reported by _validate
    if key not in _INI_MAPPINGS:
        return value.strip()
    # backends = pkg._backends.mps = mps, pkg._backends.cuda: cuda   (commas or new lines)
    mapping: dict[str, str] = {}
    for item in value.replace(",", "\n").splitlines():
        item = item.strip()
        if not item:
            continue
        sep = "=" if "=" in item else ":"
        module, found, device = item.partition(sep)
        if not found:
            raise ConfigError(f"{path}: [{SECTION}] {key}: {item!r} is not '{_INI_MAPPINGS[key]}'")
        mapping[module.strip()] = device.strip()
    return mapping


def _listed_backends(listed: list[Any], path: str, where: str) -> dict[str, str]:
    """``backends = ["pkg._backends.mps", ...]``: a list of packages named after their device."""
    table: dict[str, str] = {}
    for module in listed:
        if not isinstance(module, str) or not _is_dotted_name(module):
            raise ConfigError(f"{path}: {where} backends: {module!r} is not a dotted module name such as 'pkg._backends.mps'")
        device = module.rpartition(".")[2]
        if device not in BACKEND_DEVICES:
            raise ConfigError(
                f'{path}: {where} backends: {module!r} is not named after a device ({", ".join(BACKEND_DEVICES)}); '
                f'give its device in a table: backends = {{ "{module}" = "npu" }}')
        table[module] = device
    return table


def _validate(raw: dict[str, Any], path: str, root: str) -> Config:
    where = f"[tool.{SECTION}]" if path.endswith(".toml") else f"[{SECTION}]"
    unknown = sorted(set(raw) - KNOWN_KEYS)
    if unknown:
        if unknown[0] in CHECK_KEYS:  # ``cpu_backends`` at the top: it is the check's
            raise ConfigError(f"{path}: {where} {unknown[0]!r} belongs in {where[:-1]}.check]")
        raise ConfigError(
            f"{path}: {where} unknown key {unknown[0]!r}; known keys: {', '.join(sorted(KNOWN_KEYS))}"
        )
    backends_raw = raw.get("backends", {})
    if isinstance(backends_raw, list):  # ["pkg._backends.mps", ...]: each package's last name is its device
        backends_raw = _listed_backends(backends_raw, path, where)
    if not isinstance(backends_raw, dict):
        raise ConfigError(
            f'{path}: {where} backends must be a table of module prefix -> device, e.g. {{ "pkg._backends.mps" = "mps" }}'
        )
    backends: dict[str, str] = {}
    for module, device in backends_raw.items():
        label = f"{where} backends.{module!r}" if module else f"{where} backends"
        if not isinstance(module, str) or not _is_dotted_name(module):
            raise ConfigError(f"{path}: {label}: a key must be a dotted module name such as 'pkg._backends.mps'")
        backends[module] = _device(device, path, label)
    for module, device in backends.items():
        for other, other_device in backends.items():
            if other != module and other.startswith(module + ".") and other_device != device:
                raise ConfigError(
                    f"{path}: {where} backends.{other!r} ({other_device}) lies inside backends.{module!r} ({device}): "
                    "a module belongs to one device; remove one of the keys"
                )
    known_issues = raw.get("known_issues", DEFAULT_KNOWN_ISSUES)
    if not isinstance(known_issues, str) or not known_issues.strip():
        raise ConfigError(f"{path}: {where} known_issues must be a path such as {DEFAULT_KNOWN_ISSUES!r}")
    return Config(
        backends=backends,
        known_issues=known_issues.strip(),
        platforms=_platforms(raw.get("platforms", {}), path, where),
        default_backend=_default_backend(raw.get("default_backend"), path, where),
        strict=_strict(raw.get("strict", False), path, where),
        root=root,
        source=path,
        check=_validate_check(raw.get("check", {}), path, where),
        docs_url=_docs_url(raw.get("docs_url"), path, where),
    )


def _docs_url(raw: object, path: str, where: str) -> str | None:
    if raw is None:
        return None
    if not isinstance(raw, str) or not raw.strip().startswith(("https://", "http://", "file:")) or "#" in raw:
        raise ConfigError(f"{path}: {where} docs_url must be the base URL of the docs, e.g. "
                          "'https://github.com/org/repo/blob/main/docs' (links are <docs_url>/errors.md#CODE)")
    return raw.strip().rstrip("/")


def _device(value: object, path: str, label: str) -> str:
    """A backend device named in the configuration, lower-cased; ConfigError naming ``label`` if not."""
    if not isinstance(value, str):
        raise ConfigError(f"{path}: {label}: the device must be a string, one of {', '.join(BACKEND_DEVICES)}")
    normalized = value.strip().lower()
    if normalized not in BACKEND_DEVICES:
        hint = " (the host is never a backend)" if normalized == "cpu" else ""
        raise ConfigError(
            f"{path}: {label}: unknown backend device {value!r}{hint}; use one of {', '.join(BACKEND_DEVICES)}"
        )
    return normalized


def _platforms(raw: object, path: str, where: str) -> dict[str, str]:
    if not isinstance(raw, dict):
        raise ConfigError(
            f'{path}: {where} platforms must be a table of platform name -> device, e.g. {{ "910B" = "npu" }}'
        )
    platforms: dict[str, str] = {}
    for name, device in raw.items():
        label = f"{where} platforms.{name!r}"
        if not isinstance(name, str) or not name.strip():
            raise ConfigError(f"{path}: {where} platforms: a key must be a platform name as headings write it, e.g. '910B'")
        platforms[name.strip()] = _device(device, path, label)
    return platforms


def _default_backend(raw: object, path: str, where: str) -> str | None:
    return None if raw is None else _device(raw, path, f"{where} default_backend")


def _strict(raw: object, path: str, where: str) -> bool:
    if not isinstance(raw, bool):
        raise ConfigError(f"{path}: {where} strict must be true or false, not {raw!r}")
    return raw


def _validate_check(raw: Any, path: str, where: str) -> CheckConfig:
    where = f"{where[:-1]}.check]"
    if not isinstance(raw, dict):
        raise ConfigError(f"{path}: {where} must be a table")
    unknown = sorted(set(raw) - CHECK_KEYS)
    if unknown:
        raise ConfigError(f"{path}: {where} unknown key {unknown[0]!r}; known keys: {', '.join(sorted(CHECK_KEYS))}")
    lists: dict[str, tuple[str, ...]] = {}
    for key in ("cpu_backends", "readbacks", "uploads", "enable", "disable"):
        value = raw.get(key, [])
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ConfigError(f"{path}: {where} {key} must be a list of strings")
        for item in value:
            if key in ("enable", "disable"):
                if not item.startswith("device-"):
                    raise ConfigError(f"{path}: {where} {key}: {item!r} is not an error code such as {_codes.HOST_SYNC.name!r}")
            elif not _is_dotted_name(item):
                raise ConfigError(f"{path}: {where} {key}: {item!r} is not a dotted name such as 'pkg.helpers.to_host'")
        lists[key] = tuple(value)
    baseline = raw.get("baseline")
    if baseline is not None and (not isinstance(baseline, str) or not baseline.strip()):
        raise ConfigError(f"{path}: {where} baseline must be a file path")
    vocabulary = None
    if raw.get("vocabulary") is not None:
        from ._vocabulary import VocabularyError, extended

        try:
            vocabulary = extended(raw.get("vocabulary"), f"{where[:-1]}.vocabulary]")
        except VocabularyError as exc:
            raise ConfigError(f"{path}: {exc}") from None
    return CheckConfig(baseline=baseline, project_vocabulary=vocabulary, **lists)


def _is_dotted_name(name: str) -> bool:
    return bool(name) and all(part.isidentifier() for part in name.split("."))
