"""device-unknown-operand on torch's own package: mypy with the plugin and the code turned on,
torch's modules configured as a CUDA backend, counts per device-* code.

    .venv/bin/python benchmarks/unknown_operand_torch.py [--device cuda] [MODULE ...]

The default modules are torch's reference ops, decompositions, prims, nn.functional and
distributions. The other policy codes fire there (torch builds host tensors on purpose);
the count of device-unknown-operand is the number docs/errors.md states.
"""

from __future__ import annotations

import argparse
import collections
import re
import subprocess
import sys
import tempfile
from pathlib import Path

DEFAULT = ["torch._refs", "torch._decomp", "torch._prims", "torch.nn.functional", "torch.distributions"]
PACKAGES = {"torch.nn.functional"}  # a module, not a package: -m


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cuda")
    parser.add_argument("modules", nargs="*", default=DEFAULT)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        backends = ", ".join(f'"{m}" = "{args.device}"' for m in args.modules)
        (Path(tmp) / "pyproject.toml").write_text(
            '[tool.mypy]\nplugins = ["device_types_mypy"]\ncheck_untyped_defs = true\n'
            'enable_error_code = ["device-unknown-operand", "device-host-sync"]\n\n'
            f"[tool.device_types]\nbackends = {{ {backends} }}\n")
        targets = [a for m in args.modules for a in (("-m", m) if m in PACKAGES else ("-p", m))]
        proc = subprocess.run([sys.executable, "-m", "mypy", "--no-pretty", "--no-error-summary",
                               "--cache-dir", str(Path(tmp) / "cache"), *targets],
                              cwd=tmp, capture_output=True, text=True)
    if proc.returncode not in (0, 1):
        print(proc.stdout + proc.stderr, file=sys.stderr)
        return 2
    counts = collections.Counter(re.findall(r"  \[(device-[a-z-]+)\]$", proc.stdout, re.MULTILINE))
    print(f"modules: {' '.join(args.modules)} (backend device {args.device})")
    for code in sorted(counts):
        print(f"  {code}: {counts[code]}")
    print(f"  device-unknown-operand: {counts['device-unknown-operand']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
