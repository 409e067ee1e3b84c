"""Which backend a table's rows belong to when the table has no Backend column.

Teams split the document by chip or platform (``## 310B``, ``## Apple (MPS)``) rather than
repeat the backend on every row. The backend is read, first match wins, from:

1. the nearest heading above the table (then the outer ones) that names a platform
   configured in ``[tool.device_types] platforms`` (``"910B" = "npu"``);
2. a heading that names a device or a well-known synonym (``NPU``, ``Ascend``, ``Metal``);
3. the document's path (``docs/npu/known-kernel-issues.md``);
4. ``[tool.device_types] default_backend``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

from .._config import Config
from ._table import Heading, Table

#: Backend names people write instead of the device type.
BACKEND_SYNONYMS: Final = {
    "metal": "mps", "apple": "mps", "macos": "mps",
    "ascend": "npu", "cann": "npu", "huawei": "npu",
    "nvidia": "cuda", "gpu": "cuda", "rocm": "cuda",
}


@dataclass(frozen=True)
class Section:
    #: The backend the table's rows belong to, or None when nothing names one.
    backend: str | None
    #: The configured platform its heading names ("910B"), which keeps a kernel listed
    #: once per chip from being a duplicate row.
    platform: str | None
    #: Where the backend came from, for messages ("the heading '## 910B'").
    source: str | None


def table_section(table: Table, docs: str, config: Config, allowed: list[str]) -> Section:
    for heading in reversed(table.headings):
        platform = _configured_platform(heading.text, config)
        if platform is not None:
            return Section(config.platforms[platform], platform, _shown(heading))
    for heading in reversed(table.headings):
        device = device_named(heading.text, allowed)
        if device is not None:
            return Section(device, None, _shown(heading))
    device = device_named(re.sub(r"[^A-Za-z0-9]+", " ", docs), allowed)
    if device is not None:
        return Section(device, None, f"the path {docs}")
    if config.default_backend is not None:
        return Section(config.default_backend, None, "default_backend")
    return Section(None, None, None)


#: Kernel-name prefixes and kernel-column words that say whose kernels a table lists; only
#: a suggestion for the configuration (a table's backend is never guessed from them).
_KERNEL_VENDORS: Final = {
    "aclnn": "npu", "acl": "npu", "ascend": "npu", "cann": "npu",
    "mps": "mps", "mpsgraph": "mps", "metal": "mps", "mtl": "mps",
    "cuda": "cuda", "cudnn": "cuda", "cublas": "cuda", "cutlass": "cuda", "triton": "cuda",
}


def kernel_vendor(table: Table) -> str | None:
    """The device a table's kernel column suggests ("ACLNN kernel", ``aclnnAvgPool2d``)."""
    texts = [table.headers[i] for i in table.kernel_columns]
    texts += [r.raw[i] for r in table.rows for i in table.kernel_columns if i < len(r.raw)]
    for text in texts:
        for word in re.findall(r"[A-Za-z]+", text):
            prefix = re.match(r"[a-z]+|[A-Z]+(?=[A-Z][a-z])|[A-Za-z][a-z]*", word)
            for candidate in (word.lower(), prefix.group(0).lower() if prefix else ""):
                if candidate in _KERNEL_VENDORS:
                    return _KERNEL_VENDORS[candidate]
    return None


def platform_named(text: str, config: Config) -> str | None:
    """The configured platform a text (a heading, a marker) names as a word, if any."""
    return _configured_platform(text, config)


def device_named(text: str, allowed: list[str]) -> str | None:
    """The one device a text names by its type or a synonym; None if none or several."""
    found = set()
    for word in re.findall(r"[A-Za-z]+", text.lower()):
        if word in allowed:
            found.add(word)
        elif word in BACKEND_SYNONYMS:
            found.add(BACKEND_SYNONYMS[word])
    return found.pop() if len(found) == 1 else None


def _configured_platform(text: str, config: Config) -> str | None:
    # Longest name first, so "910B2" is not read as "910B".
    for name in sorted(config.platforms, key=len, reverse=True):
        if re.search(rf"(?<![A-Za-z0-9]){re.escape(name)}(?![A-Za-z0-9])", text, re.IGNORECASE):
            return name
    return None


def _shown(heading: Heading) -> str:
    return f"the heading '{'#' * heading.level} {heading.text}' (line {heading.line})"
