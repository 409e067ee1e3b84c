"""``device-types audit``: rule-3 markers in backend code against rule-4's known-issues table.

Exit status: 0 clean, 1 findings, 2 usage or configuration error (one line on stderr,
never a traceback). Imports neither torch nor mypy, so it runs in a second on large trees.
"""

from __future__ import annotations

import argparse
import os
import sys

from .._config import ConfigError, find_config, load_config
from ._checks import run_audit
from ._findings import AuditError
from ._report import exit_code, json_error, json_report, text_report

__all__ = ["main"]

PROG = "device-types audit"


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    try:
        args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    except SystemExit as exc:  # --help (0) or a usage error (2), already printed by argparse
        return exc.code if isinstance(exc.code, int) else 2
    try:
        root = _root(args.root)
        config = load_config(find_config(root))
        result = run_audit(root, config)
    except (ConfigError, AuditError) as exc:
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        if args.format == "json":
            print(json_error(str(exc)))
        return 2
    print(json_report(result) if args.format == "json" else text_report(result))
    return exit_code(result)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description=(
            "Check that every '# TODO: re-enable native kernel when <platform> fixes <issue>' "
            "marker in the backend code has an open row in the known-issues table, and that "
            "every open row still has its marker, guard and composite workaround. Backends and "
            "the document come from [tool.device_types] (backends, known_issues); without "
            "backends, every */_backends/{mps,cuda,npu} directory under the root is one."
        ),
        epilog="exit status: 0 clean, 1 findings, 2 usage or configuration error. See docs/audit.md.",
    )
    parser.add_argument("--root", default=".", metavar="DIR",
                        help="project root holding the configuration and docs (default: the current directory)")
    parser.add_argument("--format", choices=("text", "json"), default="text",
                        help="text: 'path:line: message [code]' lines and a summary (default); json: one object for tools")
    return parser


def _root(path: str) -> str:
    if not os.path.isdir(path):
        what = "does not exist" if not os.path.lexists(path) else "is not a directory"
        raise AuditError(f"root {path!r} {what}; pass --root DIR with the project root")
    return os.path.abspath(path)
