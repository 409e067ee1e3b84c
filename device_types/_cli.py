"""``device-types``: the console command (overlay, coverage, audit).

Each sub-command lives in its own module and is imported only when asked for, so
``device-types audit`` never pays for importing torch.
"""

from __future__ import annotations

import os
import sys

USAGE = """usage: device-types <command> [options]

commands:
  stubs install    generate the device-generic torch overlay from the installed torch
                   and install it into this environment's site-packages
  stubs check      say in one line whether the installed overlay matches torch (exit 1 if not)
  stubs uninstall  remove the overlay
  coverage         report which torch ops have device-generic signatures
  check            find CPU fallbacks in backend code as it is (untyped, no mypy needed)
  audit            check kernel TODO markers against docs/known-kernel-issues.md
  lsp              language server (stdio) for editors: check and audit findings live

Run 'device-types <command> --help' for a command's options."""


def main(argv: list[str] | None = None) -> int:
    try:
        return _dispatch(sys.argv[1:] if argv is None else argv)
    except BrokenPipeError:
        # `device-types check | head`: the reader left; stop quietly, as Unix tools do
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1


def _dispatch(args: list[str]) -> int:
    if not args or args[0] in {"-h", "--help"}:
        print(USAGE)
        return 0 if args else 2
    command, rest = args[0], args[1:]
    if command == "stubs":
        from device_types_stubs.cli import main as stubs_main

        return stubs_main(rest)
    if command == "coverage":
        from device_types_stubs.coverage import main as coverage_main

        return coverage_main(rest)
    if command == "check":
        from device_types._check import main as check_main

        return check_main(rest)
    if command == "lsp":
        from device_types._lsp import main as lsp_main

        return lsp_main(rest)
    if command == "audit":
        from device_types._audit import main as audit_main

        return audit_main(rest)
    print(f"device-types: unknown command {command!r}\n\n{USAGE}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
