"""Device conformance on a real GPU: the suite of ``tests/conformance/suite.py`` on CUDA.

Runs torch's OpInfo samples for every op the overlay types (generated in memory from the
torch installed where this runs) on ``cuda``, and, for comparison in the same run, on
``fake-cuda`` (what CI sees), ``meta`` and ``cpu``. It writes the whole report as
``conformance_gpu.json`` and ``conformance_gpu.md`` to ``--out`` and prints the summary.

    python benchmarks/conformance_gpu.py --out benchmarks/out     # needs a CUDA GPU

Needs torch with CUDA, ``expecttest`` and ``hypothesis`` (op_db imports them), the
repository on the path (``device_types``) and ``stubs`` importable as
``device_types_stubs`` (an editable install, or a link; see docs/limits.md,
"Run-time conformance", for the device-tool command that ran it).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parent / "out")
    parser.add_argument("--samples", type=int, default=3, help="samples per OpInfo entry and variant")
    parser.add_argument("--devices", default="cuda,fake-cuda,meta,cpu")
    args = parser.parse_args()
    import torch

    if not torch.cuda.is_available():
        print("conformance_gpu: no CUDA GPU on this machine; nothing to run")
        return 0
    from tests.conformance.suite import run

    wall = time.perf_counter()
    report = run(args.devices.split(","), samples_per_op=args.samples)
    report.seconds["wall"] = round(time.perf_counter() - wall, 1)
    args.out.mkdir(parents=True, exist_ok=True)
    data = report.as_json()
    data["gpu"] = torch.cuda.get_device_name(0)
    (args.out / "conformance_gpu.json").write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    (args.out / "conformance_gpu.md").write_text(f"GPU: {data['gpu']}\n\n" + report.markdown(), encoding="utf-8")
    summary = report.summary()
    summary.pop("unchecked")
    print(json.dumps(summary, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
