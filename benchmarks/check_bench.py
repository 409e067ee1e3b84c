"""Speed of ``device-types check`` on real backend code, against mypy on the same tree.

    python3 benchmarks/check_bench.py [--rounds 3] [--tree real|replicated|both]
        [--mypy-python .venv/bin/python] [--no-mypy]

The corpus is candle-python 0.1.0a1 from the package registry (``tests/registry.py``:
downloaded once, unzipped, never installed), its ``candle/_backends/{mps,cuda,npu}``
(30 files, 41,926 lines). Candle's current main, which the issue measured (54 files, 51k
lines), is not on the registry; the ``replicated`` tree stands in for its size: the same
backends plus a second copy of ``npu/ops.py`` (``npu/ops_replica.py``, 11,414 lines),
53,340 lines in all. It is real code, repeated, not a like-for-like of candle's main.

Each tree is copied into a temporary project with candle's three-line
``[tool.device_types]`` section. One run measures, interleaved and repeated (``--rounds``;
the order of the conditions rotates each round):

* ``check cold, --no-cache``: neither reads nor writes the cache (``.device_types_cache/``
  in the directory the check runs from); an engine without ``--no-cache`` is always cold;
* ``check cold, first run``: an empty cache, which the run writes (whatever a run leaves
  in its project copy is deleted afterwards, so every such run starts empty);
* ``re-check, unchanged``: a second run on the cached tree (its own project copy);
* ``re-check, edit: <file>``: after a one-file edit. Three edits: a function appended to
  ``npu/ops.py`` (a big file), a statement inserted into its first function (every later
  line shifts), a function appended to ``mps/creation.py`` (a small one). Each edit starts
  from the original tree, cached: after the measured run the file is restored and checked
  again, unmeasured;
* ``mypy`` (defaults) and ``mypy --check-untyped-defs`` on the same paths, cold
  (``--no-incremental``, no cache). mypy runs in the project's venv (``--mypy-python``).

Times are the command's wall time and its CPU time (user + system, ``getrusage`` of the
children); the table shows the median and the min-max over the rounds. The targets
(issue 7): check cold <= 10 s and re-check after a one-file edit <= 1 s on the 51k-line
tree on a 2-core machine, and faster than mypy. ``main()`` returns the rows, for
``benchmarks/run.py``; the exit status is 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import ast
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tests.check.candle_corpus import BACKENDS_TOML as CONFIG, CANDLE  # noqa: E402
from tests.registry import unpacked  # noqa: E402

BACKEND_DIRS = ("candle/_backends/mps", "candle/_backends/cuda", "candle/_backends/npu")
BIG_FILE = "candle/_backends/npu/ops.py"
SMALL_FILE = "candle/_backends/mps/creation.py"
REPLICA = ("candle/_backends/npu/ops.py", "candle/_backends/npu/ops_replica.py")

# Users' Pythons cache bytecode; this machine sets PYTHONDONTWRITEBYTECODE, which would charge
# every run ~0.3 s of recompiling the engine that users never pay (as in plugin_bench.py).
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)

COLD_TARGET_S = 10.0
RECHECK_TARGET_S = 1.0


@dataclass
class Row:
    tree: str
    condition: str
    wall: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)
    #: what the tool reported (the last run's summary), to see that every run did the same work
    outcome: str = ""
    target_s: float | None = None

    @property
    def wall_median(self) -> float:
        return statistics.median(self.wall)

    @property
    def cpu_median(self) -> float:
        return statistics.median(self.cpu)

    @property
    def meets_target(self) -> bool | None:
        # CPU time is the verdict: on a shared machine wall time includes other users' work.
        return None if self.target_s is None else self.cpu_median <= self.target_s


# --- the trees --------------------------------------------------------------------------


def build_project(dest: Path, tree: str) -> Path:
    """A project directory holding candle's package and its ``[tool.device_types]`` config."""
    source = unpacked(*CANDLE) / "candle"
    project = dest / "project"
    shutil.copytree(source, project / "candle", ignore=shutil.ignore_patterns("__pycache__"))
    (project / "pyproject.toml").write_text(CONFIG)
    if tree == "replicated":
        original, copy = REPLICA
        shutil.copyfile(project / original, project / copy)
    return project


def backend_size(project: Path) -> tuple[int, int]:
    files = [p for d in BACKEND_DIRS for p in sorted((project / d).rglob("*.py"))]
    return len(files), sum(len(p.read_text(encoding="utf-8").splitlines()) for p in files)


def snapshot(project: Path) -> set[Path]:
    return set(project.rglob("*"))


def remove_new_files(project: Path, before: set[Path]) -> None:
    """Delete whatever a run left in the project (a cache inside the tree), so the next is cold."""
    for path in sorted(snapshot(project) - before, key=lambda p: len(p.parts)):
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path, ignore_errors=True)
        elif path.exists() or path.is_symlink():
            path.unlink()


# --- running the tools ----------------------------------------------------------------


def timed(cmd: list[str], cwd: Path, env: dict[str, str], ok_codes: tuple[int, ...]) -> tuple[float, float, str]:
    """(wall s, CPU s of the child, output) of one command; a crash stops the benchmark."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if proc.returncode not in ok_codes:
        tail = (proc.stdout[-2000:] + proc.stderr[-2000:]).strip()
        raise SystemExit(f"{' '.join(cmd)} exited {proc.returncode} in {cwd}:\n{tail}")
    return wall, cpu, proc.stdout + proc.stderr


class Checker:
    """``python -m device_types check`` from this checkout, with a given cache state."""

    def __init__(self) -> None:
        self.env = dict(os.environ, PYTHONPATH=str(REPO))
        help_text = subprocess.run([sys.executable, "-m", "device_types", "check", "--help"], env=self.env,
                                   capture_output=True, text=True).stdout
        self.has_cache_dir = "--cache-dir" in help_text
        self.has_no_cache = "--no-cache" in help_text
        self.cache_note = ("--cache-dir" if self.has_cache_dir else "--no-cache" if self.has_no_cache
                           else "the engine has no cache flag: every run is cold")

    def run(self, project: Path, cache: Path, *, no_cache: bool = False) -> tuple[float, float, str]:
        args = [sys.executable, "-m", "device_types", "check"]
        if self.has_cache_dir:
            args += ["--cache-dir", str(cache)]
        if no_cache and self.has_no_cache:
            args += ["--no-cache"]
        env = dict(self.env, XDG_CACHE_HOME=str(cache / "xdg"))
        wall, cpu, out = timed([*args, *BACKEND_DIRS], project, env, ok_codes=(0, 1))
        return wall, cpu, _last_line(out, "check ")


def mypy_run(python: str, project: Path, extra: list[str]) -> tuple[float, float, str]:
    cmd = [python, "-m", "mypy", "--no-incremental", "--cache-dir", os.devnull, *extra, *BACKEND_DIRS]
    wall, cpu, out = timed(cmd, project, dict(os.environ), ok_codes=(0, 1))
    return wall, cpu, _last_line(out, "Found ") or _last_line(out, "Success")


def _last_line(output: str, prefix: str) -> str:
    lines = [line for line in output.splitlines() if line.startswith(prefix)]
    return lines[-1] if lines else ""


# --- one-file edits -------------------------------------------------------------------


def append_function(text: str, n: int) -> str:
    return text.rstrip("\n") + f"\n\n\ndef _bench_edit_{n}(x):\n    return x\n"


def insert_statement(text: str, n: int) -> str:
    """A harmless local assignment before the first statement of the file's first function."""
    tree = ast.parse(text)
    first = next(node for node in ast.walk(tree) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)))
    stmt = first.body[0]
    lines = text.splitlines(keepends=True)
    lines.insert(stmt.lineno - 1, " " * stmt.col_offset + f"_bench_edit = {n}\n")
    return "".join(lines)


@contextmanager
def restored(*paths: Path) -> Iterator[None]:
    originals = {p: p.read_bytes() for p in paths}
    try:
        yield
    finally:
        for path, data in originals.items():
            path.write_bytes(data)


# --- the benchmark --------------------------------------------------------------------


def bench_tree(tree: str, rounds: int, mypy_python: str | None, work: Path, checker: Checker) -> list[Row]:
    cold_project = build_project(work / f"{tree}-cold", tree)
    warm_project = build_project(work / f"{tree}-warm", tree)
    files, lines = backend_size(cold_project)
    label = f"{tree} ({files} files, {lines:,} lines)"
    pristine = snapshot(cold_project)
    warm_cache = work / f"{tree}-warm-cache"
    checker.run(warm_project, warm_cache)  # fills the cache the re-checks start from

    rows: dict[str, Row] = {}

    def row(condition: str, target: float | None = None) -> Row:
        return rows.setdefault(condition, Row(label, condition, target_s=target))

    big, small = warm_project / BIG_FILE, warm_project / SMALL_FILE
    big_text, small_text = big.read_text(), small.read_text()
    edit_no = iter(range(1, 10_000))

    def cold(no_cache: bool) -> Callable[[], None]:
        name = "check cold, --no-cache" if no_cache else "check cold, first run (writes the cache)"

        def condition() -> None:
            cache = work / f"{tree}-cold-cache"
            shutil.rmtree(cache, ignore_errors=True)
            record(row(name, COLD_TARGET_S), checker.run(cold_project, cache, no_cache=no_cache))
            remove_new_files(cold_project, pristine)
        return condition

    def unchanged() -> None:
        record(row("re-check, unchanged"), checker.run(warm_project, warm_cache))

    def edited(name: str, path: Path, text: str, edit: Callable[[str, int], str]) -> Callable[[], None]:
        def condition() -> None:
            path.write_text(edit(text, next(edit_no)))
            record(row(name, RECHECK_TARGET_S), checker.run(warm_project, warm_cache))
            # back to the original, unmeasured, so that the next edit is the only change again
            path.write_text(text)
            checker.run(warm_project, warm_cache)
        return condition

    def mypy(extra: list[str]) -> Callable[[], None]:
        def condition() -> None:
            assert mypy_python is not None
            record(row(" ".join(["mypy", *extra])), mypy_run(mypy_python, cold_project, extra))
            remove_new_files(cold_project, pristine)
        return condition

    conditions = [
        cold(no_cache=True),
        cold(no_cache=False),
        unchanged,
        edited(f"re-check, edit: function appended to {Path(BIG_FILE).name} ({len(big_text.splitlines()):,} lines)",
               big, big_text, append_function),
        edited("re-check, edit: statement inserted, later lines shift", big, big_text, insert_statement),
        edited(f"re-check, edit: function appended to {Path(SMALL_FILE).name} "
               f"({len(small_text.splitlines())} lines)", small, small_text, append_function),
    ]
    if mypy_python:
        conditions += [mypy([]), mypy(["--check-untyped-defs"])]
    with restored(big, small):
        for r in range(rounds):
            shift = r % len(conditions)
            for condition in conditions[shift:] + conditions[:shift]:
                condition()
    return list(rows.values())


def record(row: Row, measured: tuple[float, float, str]) -> None:
    wall, cpu, outcome = measured
    row.wall.append(wall)
    row.cpu.append(cpu)
    row.outcome = outcome
    print(f"  {row.tree}: {row.condition}: {cpu:.2f} s CPU, {wall:.2f} s wall", file=sys.stderr, flush=True)


def speedups(rows: list[Row]) -> list[str]:
    notes = []
    for tree in dict.fromkeys(r.tree for r in rows):
        by = {r.condition: r for r in rows if r.tree == tree}
        cold = by.get("check cold, --no-cache")
        for name in ("mypy", "mypy --check-untyped-defs"):
            if cold and name in by:
                notes.append(f"{tree}: check cold is {by[name].cpu_median / cold.cpu_median:.1f}x faster than "
                             f"{name} in CPU time ({by[name].wall_median / cold.wall_median:.1f}x in wall time)")
    return notes


def table(rows: list[Row]) -> str:
    def span(values: list[float]) -> str:
        return f"{statistics.median(values):6.2f} ({min(values):.2f}-{max(values):.2f})"

    head = "| tree | condition | CPU s, median (min-max) | wall s, median (min-max) | target | tool's summary |"
    out = [head, "|---|---|---|---|---|---|"]
    for r in rows:
        verdict = "" if r.meets_target is None else f"<= {r.target_s:g} s {'ok' if r.meets_target else 'MISSED'}"
        out.append(f"| {r.tree} | {r.condition} | {span(r.cpu)} | {span(r.wall)} | {verdict} | {r.outcome} |")
    return "\n".join(out)


def default_mypy_python() -> str | None:
    for candidate in (REPO / ".venv" / "bin" / "python", Path(sys.executable)):
        if candidate.exists() and subprocess.run([str(candidate), "-m", "mypy", "--version"],
                                                 capture_output=True).returncode == 0:
            return str(candidate)
    return None


def main(argv: list[str] | None = None) -> list[Row]:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--tree", choices=("real", "replicated", "both"), default="both")
    parser.add_argument("--mypy-python", help="a Python with mypy installed (default: .venv/bin/python)")
    parser.add_argument("--no-mypy", action="store_true", help="skip the mypy rows")
    args = parser.parse_args(argv)
    # absolute, not resolved: the runs change directory, and a venv's python is a symlink
    given = os.path.abspath(args.mypy_python) if args.mypy_python else None
    mypy_python = None if args.no_mypy else (given or default_mypy_python())
    if not args.no_mypy and mypy_python is None:
        raise SystemExit("no Python with mypy found: pass --mypy-python or --no-mypy")
    checker = Checker()
    trees = ("real", "replicated") if args.tree == "both" else (args.tree,)
    print(f"{os.cpu_count()} CPUs, Python {sys.version.split()[0]}, {args.rounds} rounds; cold = {checker.cache_note}; "
          f"mypy: {mypy_python and subprocess.run([mypy_python, '-m', 'mypy', '--version'], capture_output=True, text=True).stdout.strip()}",
          flush=True)
    rows: list[Row] = []
    with tempfile.TemporaryDirectory(prefix="check-bench-") as tmp:
        for tree in trees:
            rows += bench_tree(tree, args.rounds, mypy_python, Path(tmp), checker)
    print(table(rows))
    for note in speedups(rows):
        print(note)
    return rows


if __name__ == "__main__":
    result = main()
    raise SystemExit(1 if any(r.meets_target is False for r in result) else 0)
