"""Command line of ``device-types check``."""

from __future__ import annotations

import argparse
import os
import sys

from .. import _codes
from .._config import ConfigError, find_config, load_config
from ._findings import Finding

PROG = "device-types check"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description=(
            "Find CPU fallbacks in GPU/NPU backend code as it is (untyped, any tensor class): "
            "readbacks of device data computed on the host, host-built results uploaded, writes "
            "through host views, CPU-backend calls, and calls of backend functions that do any of "
            "these. Backends come from [tool.device_types] backends; without it, every "
            "*._backends.{mps,cuda,npu,xpu} package is one."
        ),
        epilog="exit status: 0 clean, 1 findings, 2 usage, configuration or unreadable input. See docs/untyped-backends.md.",
    )
    parser.add_argument("paths", nargs="*", metavar="PATH",
                        help="files or directories to report on (imports inside the project are followed); default: .")
    parser.add_argument("--config", metavar="FILE",
                        help="pyproject.toml, mypy.ini or setup.cfg with the device_types section "
                             "(default: the first one in the current directory)")
    parser.add_argument("--format", choices=("text", "json", "sarif"), default="text",
                        help="text: 'path:line: message [code]' lines and a summary (default); json; sarif (2.1.0)")
    parser.add_argument("--enable", action="append", default=[], metavar="CODE",
                        help="turn on an opt-in code (device-host-sync)")
    parser.add_argument("--disable", action="append", default=[], metavar="CODE", help="turn a code off")
    parser.add_argument("--baseline", metavar="FILE",
                        help="report only findings not in FILE, and list the entries of FILE that are fixed")
    parser.add_argument("--write-baseline", metavar="FILE", help="write every current finding to FILE and exit 0")
    parser.add_argument("--no-cache", action="store_true",
                        help="do not read or write .device_types_cache/ (a cold run)")
    parser.add_argument("--inventory", choices=("markdown", "json"),
                        help="per backend and op: the fallbacks found, against the known-issues table")
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    try:
        args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else 2
    try:
        return _run(args)
    except ConfigError as exc:
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return 2
    except _UsageError as exc:
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return 2


class _UsageError(Exception):
    pass


def _run(args: argparse.Namespace) -> int:
    from . import check_paths
    from ._output import json_report, sarif_report, text_report

    if args.config is not None and not os.path.isfile(args.config):
        raise _UsageError(f"--config {args.config!r}: no such file")
    found = args.config if args.config is not None else find_config(".")
    config = load_config(os.path.normpath(found) if found is not None else None)
    enabled = {*config.check.enable, *args.enable}
    disabled = {*config.check.disable, *args.disable}
    for code in enabled | disabled:
        if code not in _codes.BY_NAME:
            known = ", ".join(c.name for c in _codes.CHECK_CODES)
            raise _UsageError(f"unknown error code {code!r}; the check's codes are {known}")
    paths = args.paths or ["."]
    result = check_paths(paths, config, host_sync=_codes.HOST_SYNC.name in enabled and _codes.HOST_SYNC.name not in disabled,
                         use_cache=not args.no_cache)
    findings = [f for f in result.findings if f.code not in disabled]

    if args.write_baseline:
        from ._baseline import BaselineError, write_baseline

        try:
            write_baseline(args.write_baseline, findings)
        except BaselineError as exc:
            raise _UsageError(str(exc)) from None
        print(f"wrote {len(findings)} finding{'s' if len(findings) != 1 else ''} to {args.write_baseline}")
        return 0

    fixed: list[dict[str, object]] = []
    baseline_path = args.baseline or config.check.baseline
    if baseline_path:
        from ._baseline import BaselineError, apply_baseline

        try:
            findings, fixed = apply_baseline(baseline_path, findings)
        except BaselineError as exc:
            raise _UsageError(str(exc)) from None

    if args.inventory:
        from ._inventory import inventory

        report, missing = inventory(result, findings, config, args.inventory)
        print(report)
        return 1 if missing else 0

    summary = _summary_line(result.files, result.functions, findings, fixed, bool(baseline_path))
    if args.format == "json":
        print(json_report(findings, result.problems, {
            "findings": len(findings), "files": result.files, "functions": result.functions,
            "functions_with_findings": len({(f.path, f.function) for f in findings}),
            "backends": result.backends}, {"fixed_baseline_entries": fixed}))
    elif args.format == "sarif":
        from .. import __version__

        print(sarif_report(findings, result.problems, __version__))
    else:
        print(text_report(findings, result.problems, summary))
        for entry in fixed:
            print(f"fixed (remove from the baseline): {entry['path']}: {entry['function']}: {entry['anchor']} "
                  f"[{entry['code']}]")
    if result.problems:
        return 2
    return 1 if findings else 0


def _summary_line(files: int, functions: int, findings: list[Finding], fixed: list[dict[str, object]],
                  baselined: bool) -> str:
    def count(n: int, noun: str) -> str:
        return f"{n} {noun}{'' if n == 1 else 's'}"

    functions_hit = len({(f.path, f.function) for f in findings})
    scope = f"{count(functions, 'function')} in {count(files, 'file')}"
    new = "new " if baselined else ""
    tail = f"; {count(len(fixed), 'baseline entry')} fixed" if fixed else ""
    if not findings:
        return f"check clean: no {new}fallback in {scope}{tail}"
    return f"check failed: {count(len(findings), new + 'finding')} in {count(functions_hit, 'function')} of {scope}{tail}"
