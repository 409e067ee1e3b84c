"""What ``device-types audit`` runs (its options: ``device_types._cli``)."""

from __future__ import annotations

import argparse
import os
import sys

from .._cli import DEFAULT_BACKENDS, UsageError, emit
from .._config import ConfigError, load_config_option
from .._report import json_error, render
from ._checks import AuditResult, run_audit
from ._findings import AuditError
from ._fix import plan_fixes, write_fixes
from ._report import report

PROG = "device-types audit"


def run(args: argparse.Namespace) -> int:
    if args.write and not args.fix:
        return _usage("--write applies what --fix shows; pass --fix --write")
    if args.fix and args.format != "text":
        return _usage(f"--fix prints a unified diff; leave out --format {args.format}")
    try:
        root = _root(args.root)
        _recover(root, writing=args.write)
        config = load_config_option(args.config, root)
        result = run_audit(root, config, strict=True if args.strict else None)
        if result.backend_files == 0:
            raise UsageError(_no_backend(root, result))
        if args.fix:
            return _fix(root, result, write=args.write)
        shown = report(result)
        shown.docs_url = config.docs_url
        emit(render(shown, args.format), args.output)
    except (ConfigError, AuditError, UsageError) as exc:
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        if args.format == "json":
            emit(json_error("audit", str(exc)), args.output)
        return 2
    if args.output is not None:
        print(shown.summary_line)
    return shown.exit_code


def _recover(root: str, writing: bool) -> None:
    """Finish or undo the change of a ``--fix --write`` that was killed (``_journal``),
    before anything is read; one line on standard error when there was one."""
    from .._files import JOURNAL, remove_leftovers

    if not os.path.lexists(os.path.join(root, JOURNAL)):
        remove_leftovers(root, JOURNAL)  # a journal's temporary file, cut by a kill
        return
    from .._journal import JournalError, recover

    try:
        done = recover(root, writing=writing)
    except JournalError as exc:
        raise AuditError(str(exc)) from None
    if done is not None:
        print(f"{PROG}: {done}", file=sys.stderr)


def _usage(message: str) -> int:
    print(f"{PROG}: error: {message}", file=sys.stderr)
    return 2


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


def _no_backend(root: str, result: AuditResult) -> str:
    return (f"no backend code under {root} (without [tool.device_types] backends, a backend is a "
            f"{DEFAULT_BACKENDS.replace('.', '/')} directory); pass --root DIR with the project root, "
            "or name the backends")


def _root(path: str) -> str:
    if not os.path.isdir(path):
        what = "does not exist" if not os.path.lexists(path) else "is not a directory"
        raise AuditError(f"root {path!r} {what}; pass --root DIR with the project root")
    return os.path.abspath(path)
