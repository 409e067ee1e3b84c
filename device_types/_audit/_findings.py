"""What every audit module hands back: findings (exit 1) and usage errors (exit 2), and
the policy's words that their messages quote."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

from .. import _codes
from .._codes import MARKER_FORM
from .._finding import Finding
from ._table import FIELD_TITLES

__all__ = ["MARKER_FORM", "OPEN", "RESOLVED", "AuditError", "Finding", "finding", "titles"]

OPEN: Final = "open (workaround active)"
RESOLVED: Final = "resolved (native kernel re-enabled)"


def finding(path: str, line: int, code: _codes.Code, message: str) -> Finding:
    """One ``path:line: message [code]`` line (``path`` relative to the project root); the
    audit knows lines, not columns. The message gets the registry's explain tail."""
    assert _codes.AUDIT in code.front_ends, code.name
    return Finding(path, line, None, code.name, f"{message}; {_codes.explain_tail(code)}")


class AuditError(Exception):
    """The audit could not run (bad root, unreadable document, backend not found).

    ``str()`` is the user-facing message; the command exits 2 and never shows a traceback.
    """


def titles(names: Iterable[str], conjunction: str = "and", quote: bool = True) -> str:
    """'Op name', 'Backend' and 'Status' (field keys become their titles)."""
    items = [FIELD_TITLES.get(n, n) for n in names]
    shown = [f"'{i}'" if quote else i for i in items]
    return shown[0] if len(shown) == 1 else f"{', '.join(shown[:-1])} {conjunction} {shown[-1]}"
