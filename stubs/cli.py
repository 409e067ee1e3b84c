"""``device-types stubs install|check|uninstall|path`` and ``device-types coverage``: their
options and what they run. ``device_types._cli`` builds the one command line from
:func:`configure` and :func:`configure_coverage`; the overlay modules are imported only
when one of these commands runs, so ``device-types check`` never loads them."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

__all__ = ["configure", "configure_coverage", "main"]


def configure(parser: argparse.ArgumentParser) -> None:
    """The ``stubs`` sub-commands, on ``device-types stubs``'s parser."""
    sub = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    inst = sub.add_parser("install", help="generate the overlay from the installed torch and install it")
    inst.add_argument("--quiet", action="store_true", help="print nothing when the overlay is already up to date")
    inst.add_argument("--force", action="store_true", help="regenerate even when up to date")
    inst.add_argument("--target", type=Path, help="install into this directory instead of site-packages/torch-stubs")
    sub.add_parser("check", help="one line: is the installed overlay up to date? (exit 1 if not)")
    sub.add_parser("uninstall", help="remove the overlay")
    sub.add_parser("path", help="print where the overlay lives")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from .overlay import OverlayError, install, installed_state, overlay_dir, uninstall

    try:
        if args.action == "install":
            if args.target is None and not args.force:
                fresh, _ = installed_state()
                if fresh:
                    if not args.quiet:
                        print(f"device-types overlay already up to date in {overlay_dir()}")
                    return 0
            target, overlay = install(args.target)
            if overlay.warning:
                print(f"device-types: warning: {overlay.warning}", file=sys.stderr)
            patched = sum(len(ops) for ops in overlay.ops.values())
            print(f"installed the device-types overlay for torch {overlay.torch_version} in {target} ({len(overlay.files)} files, {patched} ops rewritten)")
            return 0
        if args.action == "check":
            fresh, line = installed_state()
            print(line, file=sys.stdout if fresh else sys.stderr)
            return 0 if fresh else 1
        if args.action == "uninstall":
            removed = uninstall()
            print("removed the device-types overlay" if removed else "no device-types overlay installed")
            return 0
        print(overlay_dir())
        return 0
    except OverlayError as exc:
        print(f"device-types: {exc}", file=sys.stderr)
        return 2


def configure_coverage(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--format", choices=["text", "json"], default="text")
    parser.add_argument("--output", metavar="FILE", help="write the report to FILE")
    parser.add_argument("--show-uncovered", action="store_true", help="list the ops without a device")
    parser.add_argument("--torch-dir", type=Path, help="an unpacked torch package to measure instead of the installed one")
    parser.set_defaults(handler=run_coverage)


def run_coverage(args: argparse.Namespace) -> int:
    from device_types._cli import emit

    from .coverage import TARGET, coverage
    from .overlay import NO_TORCH, OverlayError

    try:
        report = coverage(args.torch_dir)
    except OverlayError as exc:
        # without torch, an unpacked torch wheel can still be measured
        hint = "; or measure an unpacked torch package with --torch-dir DIR" if str(exc) == NO_TORCH else ""
        print(f"device-types: {exc}{hint}", file=sys.stderr)
        return 2
    lines: list[str] = []
    if args.format == "json":
        data: dict[str, object] = {"functions": report.functions.as_json(), "methods": report.methods.as_json()}
        data["namespaces"] = {title: None if part is None else part.as_json() for title, part in report.namespaces.items()}
        lines.append(json.dumps({**data, "torch": {"version": report.torch_version}}, indent=2))
    else:
        lines.append(f"device-generic coverage for torch {report.torch_version} (target {TARGET:.0%}):")
        for title, part in (
            ("torch._C._VariableFunctions functions", report.functions),
            ("Tensor methods and operators", report.methods),
        ):
            verdict = "ok" if part.ratio >= TARGET else "BELOW TARGET"
            lines.append(f"  {title}: {part.covered}/{part.total} = {part.ratio:.1%}  [{verdict}]")
            if args.show_uncovered and part.uncovered:
                lines.append("    without a device: " + ", ".join(part.uncovered))
        for title, namespace in report.namespaces.items():
            if namespace is None:
                lines.append(f"  {title}: no stub generated (this torch ships no native schemas)  [BELOW TARGET]")
                continue
            verdict = "ok" if namespace.ratio >= TARGET else "BELOW TARGET"
            lines.append(f"  {title}: {namespace.covered}/{namespace.total} = {namespace.ratio:.1%}  [{verdict}]")
            if args.show_uncovered and namespace.uncovered:
                lines.append("    without a device: " + ", ".join(namespace.uncovered))
    emit("\n".join(lines), args.output)
    return 0 if report.meets_target else 1


def main(argv: list[str]) -> int:
    """``device-types stubs ARGS``."""
    from device_types._cli import main as cli_main

    return cli_main(["stubs", *argv])
