"""``device-types stubs install|check|uninstall``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .overlay import OverlayError, install, installed_state, overlay_dir, uninstall

__all__ = ["main"]


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="device-types stubs", description="Manage the device-generic torch overlay.")
    sub = parser.add_subparsers(dest="action", required=True)
    inst = sub.add_parser("install", help="generate the overlay from the installed torch and install it")
    inst.add_argument("--quiet", action="store_true", help="print nothing when the overlay is already up to date")
    inst.add_argument("--force", action="store_true", help="regenerate even when up to date")
    inst.add_argument("--target", type=Path, help="install into this directory instead of site-packages/torch-stubs")
    sub.add_parser("check", help="one line: is the installed overlay up to date? (exit 1 if not)")
    sub.add_parser("uninstall", help="remove the overlay")
    sub.add_parser("path", help="print where the overlay lives")
    args = parser.parse_args(argv)
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
