"""``device-types audit``: rule-3 markers in backend code against rule-4's known-issues table.

Exit status: 0 clean, 1 findings, 2 usage or configuration error (one line on stderr,
never a traceback). Imports neither torch nor mypy, so it runs in a second on large trees.
"""

from __future__ import annotations

import argparse
import os
import sys

from .._config import ConfigError, find_config, load_config
from ._checks import AuditResult, run_audit
from ._findings import AuditError
from ._fix import plan_fixes, write_fixes
from ._report import exit_code, json_error, json_report, text_report

__all__ = ["main"]

PROG = "device-types audit"


def main(argv: list[str] | None = None) -> int:
    try:
        return _main(argv)
    except BrokenPipeError:
        # The reader went away (`| head`): the rest of the output is not wanted.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1


def _main(argv: list[str] | None) -> int:
    parser = _parser()
    try:
        args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    except SystemExit as exc:  # --help (0) or a usage error (2), already printed by argparse
        return exc.code if isinstance(exc.code, int) else 2
    if args.write and not args.fix:
        print(f"{PROG}: error: --write applies what --fix shows; pass --fix --write", file=sys.stderr)
        return 2
    if args.fix and args.format == "json":
        print(f"{PROG}: error: --fix prints a unified diff; leave out --format json", file=sys.stderr)
        return 2
    try:
        root = _root(args.root)
        config = load_config(find_config(root))
        result = run_audit(root, config, strict=True if args.strict else None)
        if args.fix:
            return _fix(root, result, write=args.write)
    except (ConfigError, AuditError) as exc:
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        if args.format == "json":
            print(json_error(str(exc)))
        return 2
    print(json_report(result) if args.format == "json" else text_report(result))
    return exit_code(result)


def _fix(root: str, result: AuditResult, write: bool) -> int:
    """Print the diff (exit 1 when there is one, so CI can ask "is it converged?"), or
    write it (exit 0); what needs a human is left to a following audit."""
    fixed = plan_fixes(result)
    if write:
        write_fixes(root, fixed)
        for change in fixed:
            print(f"fixed {change.path}")
        print(f"{len(fixed)} file{'' if len(fixed) == 1 else 's'} fixed; run '{PROG} --strict' for what needs a human")
        return 0
    for change in fixed:
        sys.stdout.write(change.diff())
    if not fixed:
        print(f"{PROG}: nothing to fix", file=sys.stderr)
    return 1 if fixed else 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description=(
            "Check that every '# TODO: re-enable native kernel when <platform> fixes <issue>' "
            "marker in the backend code has an open row in the known-issues table, and that "
            "every open row still has its marker, guard and composite workaround. Tables and "
            "markers are read as teams write them (one table per chip, their own column names "
            "and wording); --strict asks for the policy's exact form and --fix converges on it. "
            "Configuration: [tool.device_types] backends, known_issues, platforms, "
            "default_backend, strict; without backends, every */_backends/{mps,cuda,npu} "
            "directory under the root is one."
        ),
        epilog="exit status: 0 clean, 1 findings, 2 usage or configuration error. See docs/audit.md.",
    )
    parser.add_argument("--root", default=".", metavar="DIR",
                        help="project root holding the configuration and docs (default: the current directory)")
    parser.add_argument("--format", choices=("text", "json"), default="text",
                        help="text: 'path:line: message [code]' lines and a summary (default); json: one object for tools")
    parser.add_argument("--strict", action="store_true",
                        help="also demand the policy's exact column names, Backend and Status columns, status and "
                        "marker wording (as 'strict = true' in [tool.device_types] does)")
    parser.add_argument("--fix", action="store_true",
                        help="print a unified diff of the mechanical fixes: policy column names, Backend and Status "
                        "columns from what was inferred, status and marker wording (exit 1 if there is one)")
    parser.add_argument("--write", action="store_true", help="with --fix: write the fixes instead of printing them")
    return parser


def _root(path: str) -> str:
    if not os.path.isdir(path):
        what = "does not exist" if not os.path.lexists(path) else "is not a directory"
        raise AuditError(f"root {path!r} {what}; pass --root DIR with the project root")
    return os.path.abspath(path)
