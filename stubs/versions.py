"""The torch releases the overlay generator supports, and what it says about the others.

The range is tested in the suite (``tests/versions``): the oldest minor, the pinned dev
version and the newest the registry serves. An older torch is refused in one line (its
stubs lack what the overlay rewrites); a newer one is generated and warned about: its
layout is checked file by file, so an unknown layout still fails in one line, never as a
broken overlay.
"""

from __future__ import annotations

import re
from typing import Final

__all__ = ["OLDEST", "NEWEST_TESTED", "parse_version", "version_note"]

#: Oldest torch minor whose overlay passes the typecheck cases under mypy and pyright.
OLDEST: Final = (2, 4)
#: Newest torch minor the suite tests; newer ones get a warning.
NEWEST_TESTED: Final = (2, 14)

_RELEASE = re.compile(r"^\s*(\d+)\.(\d+)")


def parse_version(version: str) -> tuple[int, int] | None:
    """``"2.13.0+cpu"`` -> ``(2, 13)``; None for a version string we cannot read."""
    match = _RELEASE.match(version)
    return (int(match[1]), int(match[2])) if match else None


def _minor(release: tuple[int, int]) -> str:
    return f"{release[0]}.{release[1]}"


def version_note(version: str) -> tuple[str | None, str | None]:
    """(refusal, warning) for generating an overlay from torch ``version``; both one line."""
    release = parse_version(version)
    if release is None:
        return f"cannot read the torch version {version!r}; supported are torch {_minor(OLDEST)} and newer", None
    if release < OLDEST:
        return (
            f"torch {version} is older than {_minor(OLDEST)}, the oldest torch the device-types overlay supports; "
            f"upgrade torch to {_minor(OLDEST)} or newer"
        ), None
    if release > NEWEST_TESTED:
        return None, (
            f"torch {version} is newer than {_minor(NEWEST_TESTED)}, the newest torch device-types was tested with; "
            "the overlay was generated from its stubs: check it with `device-types coverage`"
        )
    return None, None
