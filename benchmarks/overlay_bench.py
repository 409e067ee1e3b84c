"""What does the device-types overlay cost the type checkers? One run, same tree, both ways.

For each condition {without overlay, with overlay} this measures, on a generated
torch-using tree (``gen_torch_tree.py``, written to ``benchmarks/out/tree``):

* mypy cold  (``python -m mypy --strict`` with a fresh ``--cache-dir``),
* mypy warm  (the same command again on that cache),
* pyright, basedpyright, and (when installed) pyrefly and ty,

``--reps`` times each (median reported; conditions alternate inside every repetition so
drift hits both alike), with the peak RSS of each checker process tree (``os.wait4``
rusage: no ``/usr/bin/time`` needed) and the number of diagnostics. It prints one table
with the ratio with/without and the verdict against the target (default 1.10x).

The overlay is toggled by renaming the installed ``torch-stubs`` directory aside and
back; the rename back happens in a ``finally`` (and on SIGTERM/SIGINT/SIGHUP), so the
environment is never left without it. If no overlay is installed at start, it is
installed first (``device-types stubs install``). Everything runs in
``sys.executable``'s environment.

    .venv/bin/python benchmarks/overlay_bench.py            # ~4 min on 2 cores
    .venv/bin/python benchmarks/overlay_bench.py --reps 1   # quick look
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gen_torch_tree import DEFAULT_OUT, PACKAGE, generate  # noqa: E402

BIN = Path(sys.executable).parent
STAMP = "DEVICE_TYPES_OVERLAY.json"
CONDITIONS = ("without", "with")


# --------------------------------------------------------------------------- overlay toggle


def overlay_dir() -> Path:
    """The installed overlay: ``<site-packages of sys.executable>/torch-stubs``."""
    out = subprocess.run(
        [sys.executable, "-c", "import importlib.util as u, pathlib as p; "
         "s = u.find_spec('torch'); print(p.Path(next(iter(s.submodule_search_locations))).parent)"],
        check=True, capture_output=True, text=True,
    ).stdout.strip()
    return Path(out) / "torch-stubs"


def ensure_overlay(target: Path) -> None:
    if (target / STAMP).exists():
        return
    print(f"no overlay in {target.parent}: installing it first", flush=True)
    subprocess.run([str(BIN / "device-types"), "stubs", "install"], check=True)
    if not (target / STAMP).exists():
        raise SystemExit(f"`device-types stubs install` did not create {target}")


class OverlayToggle:
    """Move ``torch-stubs`` aside and back. ``restore()`` is idempotent and signal-safe."""

    def __init__(self, target: Path) -> None:
        self.target = target
        self.aside = target.with_name(f".torch-stubs-bench-aside-{os.getpid()}")
        self.moved = False

    def hide(self) -> None:
        os.replace(self.target, self.aside)
        self.moved = True

    def restore(self) -> None:
        if not self.moved:
            return
        if self.target.exists():
            # Someone re-installed the overlay while it was aside: keep theirs.
            shutil.rmtree(self.aside, ignore_errors=True)
        else:
            os.replace(self.aside, self.target)
        self.moved = False

    @contextmanager
    def hidden(self) -> Iterator[None]:
        self.hide()
        try:
            yield
        finally:
            self.restore()


@contextmanager
def restore_on_signals(toggle: OverlayToggle) -> Iterator[None]:
    def handler(signum: int, frame: FrameType | None) -> None:
        toggle.restore()
        raise SystemExit(128 + signum)

    old = {s: signal.signal(s, handler) for s in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)}
    try:
        yield
    finally:
        toggle.restore()
        for s, h in old.items():
            signal.signal(s, h)


# --------------------------------------------------------------------------- measuring


@dataclass
class Sample:
    seconds: float
    cpu: float
    peak_mb: float
    diagnostics: int
    rc: int


@dataclass
class Tool:
    name: str
    #: (tree dir, scratch dir for this condition) -> argv
    argv: Callable[[Path, Path], list[str]]
    count: Callable[[str], int]
    #: run once before the measured run (mypy warm: the cold run that fills the cache)
    prime: bool = False
    #: sub-second checkers: sampled --fast-runs times per repetition (noise)
    fast: bool = False


def run_measured(argv: list[str], cwd: Path) -> tuple[Sample, str]:
    """Run argv; wall time, peak RSS of its process tree (wait4 rusage), output."""
    with tempfile.TemporaryFile() as out:
        start = time.perf_counter()
        proc = subprocess.Popen(argv, cwd=cwd, stdout=out, stderr=subprocess.STDOUT)
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        text = out.read().decode("utf-8", "replace")
    # ru_maxrss is KiB on Linux; it is the max over the child and its waited descendants.
    cpu = usage.ru_utime + usage.ru_stime
    return Sample(seconds, cpu, usage.ru_maxrss / 1024, 0, proc.returncode), text


def _count(pattern: str) -> Callable[[str], int]:
    rx = re.compile(pattern)

    def count(text: str) -> int:
        m = rx.search(text)
        return int(m.group(1)) if m else 0

    return count


def tools(selected: set[str]) -> list[Tool]:
    py = sys.executable
    mypy_argv = lambda tree, scratch: [  # noqa: E731
        py, "-m", "mypy", "--strict", "--cache-dir", str(scratch / "mypy-cache"), PACKAGE,
    ]
    all_tools = [
        Tool("mypy cold", mypy_argv, _count(r"Found (\d+) error")),
        Tool("mypy warm", mypy_argv, _count(r"Found (\d+) error"), prime=True, fast=True),
        Tool("pyright", lambda t, s: [str(BIN / "pyright"), "--pythonpath", py, PACKAGE],
             _count(r"(\d+) errors?,")),
        Tool("basedpyright", lambda t, s: [str(BIN / "basedpyright"), "--pythonpath", py, PACKAGE],
             _count(r"(\d+) errors?,")),
        Tool("pyrefly", lambda t, s: [str(BIN / "pyrefly"), "check", "--python-interpreter-path", py,
                                      "--preset", "default", "--use-ignore-files=false", "--summary=none", PACKAGE],
             lambda text: sum(1 for line in text.splitlines() if line.startswith("ERROR")), fast=True),
        Tool("ty", lambda t, s: [str(BIN / "ty"), "check", "--python", py, "--output-format", "concise", PACKAGE],
             _count(r"Found (\d+) diagnostic"), fast=True),
    ]
    available = [t for t in all_tools if t.name.split()[0] in selected]
    return [t for t in available if t.name.startswith("mypy") or (BIN / t.name).exists()]


@dataclass
class Results:
    samples: dict[tuple[str, str], list[Sample]] = field(default_factory=dict)
    label: str = "the model tree"
    rows: list[str] = field(default_factory=list)

    def add(self, tool: str, cond: str, sample: Sample) -> None:
        self.samples.setdefault((tool, cond), []).append(sample)


def measure(tool: Tool, cond: str, tree: Path, scratch: Path, toggle: OverlayToggle) -> Sample:
    scratch.mkdir(parents=True, exist_ok=True)
    argv = tool.argv(tree, scratch)
    if tool.name == "mypy cold":
        shutil.rmtree(scratch / "mypy-cache", ignore_errors=True)
    if tool.prime and not (scratch / "mypy-cache").exists():
        run_measured(argv, tree)
    sample, text = run_measured(argv, tree)
    sample.diagnostics = tool.count(text)
    present = (toggle.target / STAMP).exists()
    if present != (cond == "with"):
        raise RuntimeError(f"the overlay changed under the benchmark during {tool.name} ({cond}): rerun it")
    if "Traceback" in text or "INTERNAL ERROR" in text:
        raise RuntimeError(f"{tool.name} ({cond}) crashed:\n{text[-2000:]}")
    return sample


def run_all(selected: list[Tool], cond: str, tree: Path, scratch: Path, toggle: OverlayToggle,
            results: Results, fast_runs: int) -> None:
    for tool in selected:
        for _ in range(max(1, fast_runs) if tool.fast else 1):
            results.add(tool.name, cond, measure(tool, cond, tree, scratch, toggle))


# --------------------------------------------------------------------------- report


def med(xs: list[float]) -> float:
    return statistics.median(xs)


def report(results: Results, names: list[str], target: float) -> bool:
    header = (f"{'checker':<13} {'without s':>9} {'with s':>8} {'ratio':>6}   "
              f"{'cpu w/o':>7} {'cpu w/':>7} {'ratio':>6}   "
              f"{'peak MB w/o':>11} {'peak MB w/':>10}   {'diags w/o':>9} {'diags w/':>8}")
    print(header)
    print("-" * len(header))
    ok = True
    for name in names:
        a = results.samples[(name, "without")]
        b = results.samples[(name, "with")]
        ta, tb = med([s.seconds for s in a]), med([s.seconds for s in b])
        ratio = tb / ta
        ca, cb = med([s.cpu for s in a]), med([s.cpu for s in b])
        cratio = cb / ca
        # Verdict on CPU time: wall time on a shared 2-core box swings by 2x between runs.
        ok &= cratio <= target
        ma, mb = med([s.peak_mb for s in a]), med([s.peak_mb for s in b])
        da, db = a[-1].diagnostics, b[-1].diagnostics
        print(f"{name:<13} {ta:>9.2f} {tb:>8.2f} {ratio:>5.2f}x   {ca:>7.2f} {cb:>7.2f} {cratio:>5.2f}x   "
              f"{ma:>11.0f} {mb:>10.0f}   {da:>9} {db:>8}{'   <-- over target' if cratio > target else ''}")
        results.rows.append(f"RESULT overlay on {results.label}, {name} (CPU s) | {ca:.2f} | {cb:.2f} | {cratio:.2f}x | "
                            f"<= {target:.2f}x | {'ok' if cratio <= target else 'OVER TARGET'}")
    for row in results.rows:
        print(row)
    spread = {name: [round(s.seconds, 2) for c in CONDITIONS for s in results.samples[(name, c)]] for name in names}
    print(f"\nraw seconds (without..., with...): {spread}")
    return ok


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=3, help="repetitions per checker and condition (median)")
    parser.add_argument("--fast-runs", type=int, default=3,
                        help="extra samples per repetition for sub-second checkers (mypy warm, pyrefly, ty)")
    parser.add_argument("--target", type=float, default=1.10, help="max acceptable with/without time ratio")
    parser.add_argument("--tools", default="mypy,pyright,basedpyright,pyrefly,ty")
    parser.add_argument("--families", type=int, default=8, help="model modules in the tree")
    parser.add_argument("--kernel-parts", type=int, default=4, help="kernel modules per backend")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--real", metavar="DIST==VERSION:PACKAGE",
                        help="check real code from the registry instead, e.g. torchmetrics==1.9.0:torchmetrics")
    args = parser.parse_args()

    global PACKAGE
    label = "the model tree"
    if args.real:
        sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
        from tests.registry import unpacked

        spec, _, PACKAGE = args.real.partition(":")
        dist, _, version = spec.partition("==")
        unpacked_root = unpacked(dist, version)
        pkg = unpacked_root / PACKAGE  # PACKAGE may be a subpackage's path: timm/layers
        nfiles = sum(1 for _ in pkg.rglob("*.py"))
        nlines = sum(len(p.read_text(errors="replace").splitlines()) for p in pkg.rglob("*.py"))
        label = spec
    else:
        pkg, nfiles, nlines = generate(args.out, args.families, args.kernel_parts)
        unpacked_root = pkg.parent
    tree = unpacked_root
    target_dir = overlay_dir()
    ensure_overlay(target_dir)
    selected = tools(set(args.tools.split(",")))
    names = [t.name for t in selected]
    print(f"tree: {nfiles} files, {nlines} lines in {pkg}")
    print(f"overlay: {target_dir}; python {sys.executable}; {os.cpu_count()} cores; reps={args.reps}")
    versions = []
    for cmd in (["-m", "mypy", "--version"],):
        versions.append(subprocess.run([sys.executable, *cmd], capture_output=True, text=True).stdout.strip())
    print("; ".join(versions), flush=True)

    results = Results(label=label)
    toggle = OverlayToggle(target_dir)
    scratch_root = Path(tempfile.mkdtemp(prefix="overlay-bench-"))
    started = time.perf_counter()
    try:
        with restore_on_signals(toggle):
            for rep in range(args.reps):
                # Alternate the order of the conditions between repetitions.
                order = CONDITIONS if rep % 2 == 0 else CONDITIONS[::-1]
                for cond in order:
                    scratch = scratch_root / f"{cond}-{rep}"
                    if cond == "without":
                        with toggle.hidden():
                            run_all(selected, cond, tree, scratch, toggle, results, args.fast_runs)
                    else:
                        run_all(selected, cond, tree, scratch, toggle, results, args.fast_runs)
                    line = ", ".join(f"{t.name} {results.samples[(t.name, cond)][-1].seconds:.2f}s" for t in selected)
                    print(f"rep {rep + 1}/{args.reps} {cond:>7} overlay: {line}", flush=True)
    finally:
        toggle.restore()
        shutil.rmtree(scratch_root, ignore_errors=True)
    if not (target_dir / STAMP).exists():
        print(f"WARNING: {target_dir} is missing after the run; run `device-types stubs install`", file=sys.stderr)
        return 2
    print(f"\n{args.reps} repetitions (x{args.fast_runs} for mypy warm, pyrefly, ty), medians, {time.perf_counter() - started:.0f} s in all; overlay restored\n")
    ok = report(results, names, args.target)
    verdict = "PASS" if ok else "FAIL"
    print(f"\nverdict: {verdict}: every checker's CPU time with the overlay within {args.target:.2f}x of without"
          if ok else f"\nverdict: {verdict}: some checker's CPU time exceeds {args.target:.2f}x (marked above)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
