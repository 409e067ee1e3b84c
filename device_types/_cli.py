"""``device-types``: the one command line (argparse sub-commands).

Every sub-command's options are declared here, with the same ``--format``, ``--output`` and
``--config`` where they apply and the same exit status (0 clean, 1 findings, 2 usage or
analysis error: one line, never a traceback). Each command runs from its own module,
imported only when asked for: ``check``, ``audit`` and ``explain`` import neither torch nor
mypy, and ``stubs`` / ``coverage`` come from the overlay package (``device_types_stubs``).
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from . import _codes
from ._config import BACKEND_DEVICES
from ._report import FORMATS

__all__ = ["main", "build_parser", "UsageError", "emit"]

PROG = "device-types"
EXIT_STATUS = ("exit status: 0 clean, 1 findings, 2 usage, configuration or unreadable input, 3 internal error "
               "(a crash report is written), 130 interrupted.")
DEFAULT_BACKENDS = f"*._backends.{{{','.join(BACKEND_DEVICES)}}}"


class UsageError(Exception):
    """Bad input the command cannot run on; ``str()`` is the one line shown (exit 2)."""


def main(argv: list[str] | None = None) -> int:
    """Run a command; whatever happens, one line and an exit status (``docs/errors.md``):
    0 clean, 1 findings, 2 usage, configuration or unreadable input, 3 internal error (with
    the path of a crash report), 130 interrupted (Ctrl-C)."""
    try:
        code = _main(sys.argv[1:] if argv is None else argv)
        if sys.stdout is not None and not sys.stdout.closed:  # (the language server closes it)
            sys.stdout.flush()  # a full disk or a closed pipe shows here, not after the exit status
        return code
    except BrokenPipeError:
        # `device-types check | head`: the reader left; stop quietly, as Unix tools do (killed
        # by SIGPIPE: 128 + 13), never 1, which would say "findings"
        _stdout_to_devnull()
        return 141
    except KeyboardInterrupt:
        _stdout_to_devnull()
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130
    except OSError as exc:
        if _is_stdout_error(exc):
            _stdout_to_devnull()
            print(f"{PROG}: error: cannot write the report to standard output: {exc.strerror or exc}",
                  file=sys.stderr)
            return 2
        return _crash(exc)
    except (Exception, RecursionError, MemoryError) as exc:  # noqa: BLE001 - exit 3, never a bare traceback
        return _crash(exc)


def _is_stdout_error(exc: OSError) -> bool:
    import errno

    return exc.errno in (errno.ENOSPC, errno.EFBIG, errno.EIO, errno.EDQUOT) and not getattr(exc, "filename", None)


def _stdout_to_devnull() -> None:
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass


def _crash(exc: BaseException) -> int:
    """An internal error: the traceback into a crash report file, one line on stderr, exit 3."""
    import tempfile
    import traceback

    from . import __version__

    report = "".join(traceback.format_exception(exc))
    text = (f"device-types {__version__} crashed\npython {sys.version}\nargv {sys.argv!r}\ncwd {os.getcwd()}\n\n"
            f"{report}")
    where = None
    try:
        handle, where = tempfile.mkstemp(prefix="device-types-crash-", suffix=".txt")
        with os.fdopen(handle, "w", encoding="utf-8", errors="replace") as stream:
            stream.write(text)
    except OSError:
        where = None
    summary = f"{type(exc).__name__}: {exc}".splitlines()[0][:200] if str(exc) else type(exc).__name__
    _stdout_to_devnull()
    place = f"the report is in {where}" if where else "no crash report could be written"
    try:
        print(f"{PROG}: internal error ({summary}); {place}; please file an issue with it", file=sys.stderr)
    except OSError:
        pass
    return 3


def _main(argv: list[str]) -> int:
    # only the named command's parser: the others import the overlay generator and the
    # language server to declare their options, which a re-check would pay for on every run
    parser = build_parser(argv[0] if argv and argv[0] in _COMMANDS else None)
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help (0) or a usage error (2), already printed by argparse
        return exc.code if isinstance(exc.code, int) else 2
    handler: Any = args.handler
    result: int = handler(args)
    return result


def emit(text: str, output: str | None) -> None:
    """The report on stdout, or into ``--output FILE``."""
    if output is None:
        print(text)
        return
    from ._files import WriteError, write_atomic

    if os.path.isdir(output):
        raise UsageError(f"--output {output!r} is a directory; name a file")
    try:
        write_atomic(output, text + "\n")
    except WriteError as exc:
        raise UsageError(f"--output: {exc}") from None


class _HelpFormatter(argparse.HelpFormatter):
    """argparse's formatter with the terminal's width read through ``os``: without a width
    argparse imports ``shutil`` (and bz2, lzma, zlib with it) for every parser it builds,
    a few ms of every re-check that never prints help."""

    def __init__(self, prog: str, indent_increment: int = 2, max_help_position: int = 24,
                 width: int | None = None) -> None:
        super().__init__(prog, indent_increment, max_help_position, _terminal_width() if width is None else width)


def _terminal_width() -> int:
    """What ``shutil.get_terminal_size().columns - 2`` gives, as argparse's own default."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns if sys.__stdout__ else 80
        except (AttributeError, ValueError, OSError):
            columns = 80
    return max(columns, 1) - 2


class _Parser(argparse.ArgumentParser):
    """A parser (and its sub-commands' parsers) with that formatter, whose usage errors are
    two lines (the error, and where the options are), not the whole usage text."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", _HelpFormatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> Any:
        self.exit(2, f"{self.prog}: error: {message}\nrun '{self.prog} --help' for the options\n")


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The command line; with ``only``, that one command's parser alone (same options)."""
    parser = _Parser(
        prog=PROG, description="Keep GPU/NPU backend code on its device: find CPU fallbacks, check kernel "
        "markers against the known-issues table, and manage the device-generic torch overlay.",
        epilog=f"{EXIT_STATUS} Run '{PROG} COMMAND --help' for a command's options.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True, parser_class=_Parser)
    for name, declare in _COMMANDS.items():
        if only is None or name == only:
            declare(sub)
    return parser


def _lsp_parser(sub: Any) -> None:
    from ._lsp import configure

    configure(sub.add_parser("lsp", help="language server (stdio) for editors: the check's and the audit's findings live"))


def _report_options(parser: argparse.ArgumentParser, config_help: str) -> None:
    parser.add_argument("--format", choices=FORMATS, default="text",
                        help="text: 'path:line: message [code]' lines and a summary (default); json: one object "
                        "for tools; sarif: SARIF 2.1.0 for code scanning; github: workflow annotations")
    parser.add_argument("--output", metavar="FILE", help="write the report to FILE (the summary line still goes to stdout)")
    parser.add_argument("--config", metavar="FILE", help=config_help)


def _check_parser(sub: Any) -> None:
    parser: argparse.ArgumentParser = sub.add_parser(
        "check", help="find CPU fallbacks in backend code as it is (untyped, no mypy needed)",
        description=(
            "Find CPU fallbacks in GPU/NPU backend code as it is (untyped, any tensor class): "
            "readbacks of device data computed on the host, host-built results uploaded, writes "
            "through host views, CPU-backend calls, and calls of backend functions that do any of "
            f"these. Backends come from [tool.device_types] backends; without it, every {DEFAULT_BACKENDS} "
            "package is one."),
        epilog=f"{EXIT_STATUS} See docs/untyped-backends.md.")
    parser.add_argument("paths", nargs="*", metavar="PATH",
                        help="files or directories to report on (imports inside the project are followed); default: .")
    _report_options(parser, "pyproject.toml, mypy.ini or setup.cfg with the device_types section "
                            "(default: the first one in the current directory)")
    parser.add_argument("--enable", action="append", default=[], metavar="CODE",
                        help="turn on an opt-in code (device-host-sync)")
    parser.add_argument("--disable", action="append", default=[], metavar="CODE", help="turn a code off")
    parser.add_argument("--baseline", metavar="FILE",
                        help="report only findings not in FILE, and list the entries of FILE that are fixed")
    parser.add_argument("--write-baseline", metavar="FILE",
                        help="write every current finding to FILE and exit 0 (exit 2, writing nothing, when a file "
                        "could not be analysed)")
    parser.add_argument("--allow-unanalysed", action="store_true",
                        help="with --write-baseline: write it even though some files could not be analysed")
    parser.add_argument("--no-cache", action="store_true",
                        help="do not read or write .device_types_cache/ (a cold run)")
    parser.add_argument("--inventory", choices=("markdown", "json"),
                        help="per backend and op: the fallbacks found, against the known-issues table")
    parser.set_defaults(handler=_run_check)


def _audit_parser(sub: Any) -> None:
    parser: argparse.ArgumentParser = sub.add_parser(
        "audit", help="check kernel TODO markers against docs/known-kernel-issues.md",
        description=(
            "Check that every '# TODO: re-enable native kernel when <platform> fixes <issue>' "
            "marker in the backend code has an open row in the known-issues table, and that "
            "every open row still has its marker, guard and composite workaround. Tables and "
            "markers are read as teams write them (one table per chip, their own column names "
            "and wording); --strict asks for the policy's exact form and --fix converges on it. "
            "Configuration: [tool.device_types] backends, known_issues, platforms, "
            "default_backend, strict; without backends, every "
            f"{DEFAULT_BACKENDS.replace('.', '/')} directory under the root is one."),
        epilog=f"{EXIT_STATUS} See docs/audit.md.")
    parser.add_argument("--root", default=".", metavar="DIR",
                        help="project root holding the configuration and docs (default: the current directory)")
    _report_options(parser, "pyproject.toml, mypy.ini or setup.cfg with the device_types section "
                            "(default: the first one in the root)")
    parser.add_argument("--strict", action="store_true",
                        help="also demand the policy's exact column names, Backend and Status columns, status and "
                        "marker wording (as 'strict = true' in [tool.device_types] does)")
    parser.add_argument("--fix", action="store_true",
                        help="print a unified diff of the mechanical fixes: policy column names, Backend and Status "
                        "columns from what was inferred, status and marker wording (exit 1 if there is one)")
    parser.add_argument("--write", action="store_true", help="with --fix: write the fixes instead of printing them")
    parser.set_defaults(handler=_run_audit)


def _explain_parser(sub: Any) -> None:
    parser: argparse.ArgumentParser = sub.add_parser(
        "explain", help="what a finding code means, with a bad and a good example",
        description="Print a code's entry in the code registry: what it means, which tools report it, whether "
        "it is on by default, its message and a bad and a good example. Without CODE: every code, one a line.",
        epilog="exit status: 0, or 2 for a code that does not exist.")
    parser.add_argument("code", nargs="?", metavar="CODE", help="e.g. device-readback or audit-orphan-row")
    parser.set_defaults(handler=_run_explain)


def _stubs_parser(sub: Any) -> None:
    parser: argparse.ArgumentParser = sub.add_parser(
        "stubs", help="install | check | uninstall | path: the device-generic torch overlay",
        description="Manage the device-generic torch overlay. 'install' and 'check' read the installed torch "
        "(pip install 'device-types[overlay]'); 'path' and 'uninstall' need no torch.")
    try:
        from device_types_stubs.cli import configure
    except ImportError:  # installed without the overlay
        parser.add_argument("rest", nargs=argparse.REMAINDER)
        parser.set_defaults(handler=_without_overlay)
        return
    configure(parser)


def _coverage_parser(sub: Any) -> None:
    parser: argparse.ArgumentParser = sub.add_parser(
        "coverage", help="report which torch ops have device-generic signatures",
        description="Report which torch ops have device-generic signatures in the overlay.",
        epilog="exit status: 0 at or above the coverage target, 1 below it, 2 when torch cannot be read.")
    try:
        from device_types_stubs.cli import configure_coverage as configure
    except ImportError:
        parser.add_argument("rest", nargs=argparse.REMAINDER)
        parser.set_defaults(handler=_without_overlay)
        return
    configure(parser)


_COMMANDS: dict[str, Any] = {
    "check": _check_parser,
    "audit": _audit_parser,
    "explain": _explain_parser,
    "stubs": _stubs_parser,
    "coverage": _coverage_parser,
    "lsp": _lsp_parser,
}


def _without_overlay(args: argparse.Namespace) -> int:
    print(f"{PROG} {args.command}: error: the overlay generator (device_types_stubs) is not installed",
          file=sys.stderr)
    return 2


def _run_check(args: argparse.Namespace) -> int:
    from ._check._cli import run

    return run(args)


def _run_audit(args: argparse.Namespace) -> int:
    from ._audit._cli import run

    return run(args)


def _run_explain(args: argparse.Namespace) -> int:
    if args.code is None:
        width = max(len(c.name) for c in _codes.ALL)
        for code in _codes.ALL:
            print(f"{code.name:<{width}}  {code.summary}")
        return 0
    entry = _codes.lookup(args.code)
    if entry is None:
        print(f"{PROG} explain: error: unknown code {args.code!r}; '{PROG} explain' lists every code",
              file=sys.stderr)
        return 2
    print(_codes.explain(entry, _configured_docs_url()))
    return 0


def _configured_docs_url() -> str | None:
    """``docs_url`` of the current directory's configuration, if it has one (a broken one is
    the check's and the audit's to report: explain still explains)."""
    from ._config import ConfigError, load_config_option

    try:
        return load_config_option(None, ".").docs_url
    except (ConfigError, OSError):
        return None


if __name__ == "__main__":
    sys.exit(main())
