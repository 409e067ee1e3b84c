"""``device-types audit``: rule-3 markers in backend code against rule-4's known-issues table.

Data flow: ``_sources`` / ``_markers`` (backend code) and ``_table`` / ``_rows`` (the
document) -> ``_matching`` -> ``_checks`` (one sorted list of findings) -> ``_report`` ->
the shared reporter. Exit status: 0 clean, 1 findings, 2 usage, configuration or analysis
error (one line on stderr, never a traceback). Imports neither torch nor mypy, so it runs
in a second on large trees.
"""

from __future__ import annotations

import sys

__all__ = ["main"]


def main(argv: list[str] | None = None) -> int:
    """``device-types audit ARGS`` (the one command line, ``device_types._cli``)."""
    from .._cli import main as cli_main

    return cli_main(["audit", *(sys.argv[1:] if argv is None else argv)])
