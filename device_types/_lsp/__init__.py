"""``device-types lsp``: the check and the audit in the editor, over stdio (LSP).

The server needs the optional extra (``pip install 'device-types[lsp]'``: pygls and
lsprotocol); without it the command says so in one line. See docs/ci-and-ide.md.
"""

from __future__ import annotations

import argparse
import logging
import sys

__all__ = ["configure", "main", "run"]

PROG = "device-types lsp"


def configure(parser: argparse.ArgumentParser) -> None:
    """The options of ``device-types lsp`` (the console command's sub-parser)."""
    parser.description = ("Language server (stdio) for editors: the check's and the audit's findings as "
                          "diagnostics, a hover with each backend function's summary, quick fixes. The "
                          "workspace's [tool.device_types] is the configuration. See docs/ci-and-ide.md.")
    parser.add_argument("--stdio", action="store_true", help="talk LSP on stdin/stdout (the default; editors pass it)")
    parser.add_argument("--log-file", metavar="FILE", help="write the server's log to FILE")
    parser.set_defaults(handler=run)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog=PROG)
    configure(parser)
    try:
        args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else 2
    return run(args)


def run(args: argparse.Namespace) -> int:
    try:
        from ._server import build_server
    except ImportError as exc:
        print(f"{PROG}: error: the language server needs the lsp extra ({exc.name or exc} is missing): "
              "pip install 'device-types[lsp]'", file=sys.stderr)
        return 2
    if args.log_file:
        logging.basicConfig(filename=args.log_file, level=logging.INFO)
    else:  # stderr is the editor's log panel; stdout carries the protocol
        logging.basicConfig(stream=sys.stderr, level=logging.WARNING)
        # pygls logs a traceback for each malformed message; the server says it in one line
        logging.getLogger("pygls").setLevel(logging.CRITICAL)
    build_server().start_io()
    return 0
