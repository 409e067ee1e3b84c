"""What an overlay layout changes under pyright strict on real code: two overlays, one run.

    .venv/bin/python benchmarks/strict_layouts.py [--variant never-guards] [--tool pyright]
                                                  [--real torchmetrics==1.9.0:torchmetrics ...]

The installed overlay (``torch-stubs``) against a variant the generator builds
(``benchmarks/overlay_variants.py``'s ``GENERATED``, default ``never-guards``: the layout
whose first overload of a factory and of ``.to`` was a ``device: Never`` guard) and against
no overlay at all. Each library's wheel comes from the package registry (``tests/registry.py``,
unzipped, never installed) and is checked from its own directory by pyright (or basedpyright)
in strict mode, once per environment; the environments are symlink farms of this venv's
site-packages that differ in ``torch-stubs`` only (as in ``editor_bench.py``).

Printed: the count of errors per environment and rule, and each place (file:line rule) with an
error under the installed overlay but not under the variant, and the reverse. Typing strength,
not time: nothing here is timed.
"""

from __future__ import annotations

import argparse
import collections
import json
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(REPO))

from editor_bench import SITE, make_env  # noqa: E402
from overlay_variants import GENERATED, generated_variant  # noqa: E402

from tests.registry import unpacked  # noqa: E402

BIN = Path(sys.executable).parent
STRICT = {"typeCheckingMode": "strict", "reportMissingImports": False, "reportMissingModuleSource": False,
          "reportMissingTypeStubs": False}


def errors(tool: str, root: Path, packages: list[str], python: Path) -> list[tuple[str, str, str]]:
    """(file:line, rule, message) of each error of ``tool`` in strict mode on ``packages`` under ``root``."""
    config = root / "pyrightconfig.json"
    config.write_text(json.dumps(STRICT))
    try:
        proc = subprocess.run([str(BIN / tool), "--outputjson", "--pythonpath", str(python), *packages],
                              cwd=root, capture_output=True, text=True)
    finally:
        config.unlink()
    report = json.loads(proc.stdout)
    out = []
    for d in report["generalDiagnostics"]:
        if d["severity"] == "error":
            where = f"{Path(d['file']).resolve().relative_to(root.resolve())}:{d['range']['start']['line'] + 1}"
            out.append((where, d.get("rule", ""), d["message"].splitlines()[0]))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variant", default="never-guards", choices=sorted(GENERATED))
    parser.add_argument("--tool", default="pyright", choices=("pyright", "basedpyright"))
    parser.add_argument("--real", action="append", default=None,
                        help="DIST==VERSION:PACKAGE[,PACKAGE] (default torchmetrics and timm/layers)")
    args = parser.parse_args(argv)
    reals = args.real or ["torchmetrics==1.9.0:torchmetrics", "timm==1.0.29:timm/layers"]
    with tempfile.TemporaryDirectory(prefix="strict-layouts-") as tmp:
        root = Path(tmp)
        variant = generated_variant(root / "variant-stubs" / "torch-stubs", GENERATED[args.variant])
        pythons = {"stock": make_env(root / "stock", None), args.variant: make_env(root / "variant", variant),
                   "overlay": make_env(root / "overlay", SITE / "torch-stubs")}
        for spec in reals:
            dist, _, packages = spec.partition(":")
            name, _, version = dist.partition("==")
            lib = unpacked(name, version)
            found = {c: errors(args.tool, lib, packages.split(","), python) for c, python in pythons.items()}
            print(f"== {args.tool} strict on {spec}: errors per environment")
            rules = sorted({rule for f in found.values() for _, rule, _ in f})
            counts = {c: collections.Counter(rule for _, rule, _ in f) for c, f in found.items()}
            print(f"{'rule':40} " + " ".join(f"{c:>14}" for c in found))
            for rule in rules:
                row = [counts[c][rule] for c in found]
                if len(set(row)) > 1:
                    print(f"{rule:40} " + " ".join(f"{n:>14}" for n in row))
            print(f"{'all':40} " + " ".join(f"{len(f):>14}" for f in found.values()))
            for a, b in (("overlay", args.variant), (args.variant, "overlay")):
                places = collections.Counter((w, r) for w, r, _ in found[a]) - collections.Counter(
                    (w, r) for w, r, _ in found[b])
                print(f"-- {sum(places.values())} errors under {a}, not under {b}:")
                for (where, rule), n in sorted(places.items()):
                    message = next(m for w, r, m in found[a] if w == where and r == rule)
                    print(f"   {where} {rule}{f' (x{n})' if n > 1 else ''}: {message[:140]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
