"""What compiling the check engine with mypyc would buy: the cold check on candle's backends,
interpreted against compiled, in CPU time, against ``ast.parse`` of the same files.

    .venv/bin/python benchmarks/mypyc_probe/probe.py [--rounds 5]

A measurement, not a build we ship (docs/performance.md, "The check compiled with mypyc").
It extracts ``device_types/`` as it was at commit ``ee59530`` (``git archive``) twice into a
temporary directory, applies ``engine.patch`` to both (the changes mypyc needs: a class-level alias made a def, two annotations, pickling
through constructors, a plain property for a ``cached_property``; they keep pure Python
correct), compiles the engine's eight modules of one copy with mypyc (a few minutes; needs
a C compiler), checks that both print the same findings, then runs, interleaved, the cold
check (``--no-cache``) with each copy and ``ast.parse`` of the same files (as
``lsp_bench.py`` measures it). To measure a later engine, refresh the patch and
``ENGINE_AT``.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
sys.path.insert(0, str(REPO))

from benchmarks.lsp_bench import CHECKED, PARSE, build  # noqa: E402

ENGINE = ["_interpret", "_guards", "_conditions", "_values", "_solver", "_summary", "_project", "_lines"]


#: The engine the patch was made against (later engines may need it refreshed).
ENGINE_AT = "ee59530"


def copy_engine(dest: Path) -> Path:
    """``device_types/`` as it was at ``ENGINE_AT``, patched, in ``dest``."""
    dest.mkdir(parents=True)
    archive = subprocess.run(["git", "-C", str(REPO), "archive", ENGINE_AT, "device_types"], capture_output=True)
    if archive.returncode != 0:
        raise SystemExit(f"git archive {ENGINE_AT} failed (a shallow clone?): {archive.stderr.decode()[-500:]}")
    subprocess.run(["tar", "-x"], input=archive.stdout, cwd=dest, check=True)
    subprocess.run(["patch", "-s", "-p1", "-i", str(HERE / "engine.patch")], cwd=dest, check=True)
    return dest


def compile_engine(tree: Path) -> None:
    mypyc = Path(sys.executable).with_name("mypyc")
    sources = [f"device_types/_check/{name}.py" for name in ENGINE]
    proc = subprocess.run([str(mypyc), *sources], cwd=tree, capture_output=True, text=True)
    if proc.returncode != 0 or not list((tree / "device_types/_check").glob("_interpret*.so")):
        raise SystemExit(f"mypyc failed:\n{proc.stdout[-3000:]}{proc.stderr[-3000:]}")


def cpu(cmd: list[str], cwd: Path, tree: Path | None) -> tuple[float, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONDONTWRITEBYTECODE")}
    if tree is not None:
        env["PYTHONPATH"] = str(tree)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, env=env)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(cmd)} exited {proc.returncode}:\n{proc.stderr[-2000:]}")
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), proc.stdout


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        project = build(root)
        interpreted = copy_engine(root / "interpreted")
        compiled = copy_engine(root / "compiled")
        compile_engine(compiled)
        check = [sys.executable, "-m", "device_types", "check", CHECKED, "--no-cache", "--format", "json"]
        outputs = {name: cpu(check, project, tree)[1] for name, tree in (("interpreted", interpreted),
                                                                        ("compiled", compiled))}
        if outputs["interpreted"] != outputs["compiled"]:
            raise SystemExit("the compiled engine printed other findings than the interpreted one")
        times: dict[str, list[float]] = {"interpreted": [], "compiled": [], "parse": []}
        for n in range(args.rounds):
            order = [("interpreted", interpreted), ("compiled", compiled)]
            for name, tree in order if n % 2 == 0 else reversed(order):
                times[name].append(cpu(check, project, tree)[0])
            times["parse"].append(float(cpu([sys.executable, "-c", PARSE, CHECKED], project, None)[1]))
    parse = statistics.median(times["parse"])
    print(f"ast.parse of {CHECKED}, CPU: {parse:.2f} s (median of {args.rounds})")
    for name in ("interpreted", "compiled"):
        median = statistics.median(times[name])
        print(f"check --no-cache, {name}: {median:.2f} s CPU, {median / parse:.1f}x ast.parse "
              f"(runs: {', '.join(f'{t:.2f}' for t in times[name])})")
    speedup = statistics.median(times["interpreted"]) / statistics.median(times["compiled"])
    print(f"compiled / interpreted: {speedup:.2f}x faster; the same findings")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
