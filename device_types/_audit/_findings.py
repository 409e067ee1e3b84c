"""What every audit module hands back: findings (exit 1) and usage errors (exit 2)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, order=True)
class Finding:
    """One ``path:line: message [code]`` line; ``path`` is relative to the project root."""

    path: str
    line: int
    code: str
    message: str


class AuditError(Exception):
    """The audit could not run (bad root, unreadable document, backend not found).

    ``str()`` is the user-facing message; the command exits 2 and never shows a traceback.
    """
