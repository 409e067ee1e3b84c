"""What every audit module hands back: findings (exit 1) and usage errors (exit 2), and
the policy's words that their messages quote."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final

from ._table import FIELD_TITLES

MARKER_FORM: Final = "# TODO: re-enable native kernel when <platform> fixes <issue>"
OPEN: Final = "open (workaround active)"
RESOLVED: Final = "resolved (native kernel re-enabled)"


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


def titles(names: Iterable[str], conjunction: str = "and", quote: bool = True) -> str:
    """'Op name', 'Backend' and 'Status' (field keys become their titles)."""
    items = [FIELD_TITLES.get(n, n) for n in names]
    shown = [f"'{i}'" if quote else i for i in items]
    return shown[0] if len(shown) == 1 else f"{', '.join(shown[:-1])} {conjunction} {shown[-1]}"
