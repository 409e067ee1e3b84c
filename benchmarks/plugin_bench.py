"""Cost of the device-types mypy plugin on a large synthetic backend tree.

Generates (benchmarks/gen_backend_tree.py) >= 50k lines of annotated on-device composite
code across mps/cuda/npu backend packages into benchmarks/out/plugin_tree, all of it
inside configured backends (the plugin's worst case), then in one run, for each
condition, interleaved (the order rotates every repetition):

* mypy cold (empty cache: torch itself is analysed too), warm (unchanged rerun on the
  cache) and after a one-file edit (a signature default changed in one backend module,
  then mypy on its cache), CPU time of the mypy process (rusage);
* optionally (``--dmypy``) a dmypy recheck after a one-line edit, plugin on.

Conditions (``--conditions``, default ``plain,control,plugin``; ``plain`` always runs first):

* ``plain``: mypy without a plugin;
* ``empty``: a plugin without hooks: the price of any Python plugin in mypy's chain;
* ``control``: the hooks of the per-call dispatch (every tensor op, torch function and
  local callee), each returning mypy's own type: the floor of checking every op from
  per-call hooks (benchmarks/plugin_conditions.py);
* ``percall``: the plugin forced into its per-call dispatch (what dmypy runs);
* ``plugin``: the plugin as shipped (per-call hooks for the few names that need the call,
  one pass per backend module for the operands).

* ``before`` (with ``--before REF``): the plugin as of the git revision REF (its
  ``mypy_plugin`` and ``device_types`` exported with ``git archive`` into a temporary
  directory that goes first on that condition's PYTHONPATH): a change to the plugin
  measured against the code before it, in the same run.

Targets (CPU time): the shipped plugin's cold, warm and one-file-edit ratios to plain
<= 1.05x; dmypy recheck < 0.5 s. Usage:
``.venv/bin/python benchmarks/plugin_bench.py [--lines 50000] [--repeat 3] [--conditions plain,control,plugin]``;
``--count-hooks`` instead counts hook calls and the plugin's own CPU time per dispatch;
``--edits-only`` times only the one-file-edit recheck, ``--repeat`` times per condition;
``--own-cpu`` times, in the one-file-edit recheck, only the plugin's own work (its import,
construction, ``report_config_data``, hooks and module pass), in-process, ``--repeat`` runs
per plugin condition (``plugin``, and ``before`` with ``--before REF``), interleaved: what a
change to the plugin saves, without mypy's own run-to-run spread (10-15 % of a recheck here).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from gen_backend_tree import BACKENDS_TOML, generate, write_config  # noqa: E402

TREE = HERE / "out" / "plugin_tree"
CONDITIONS = {
    "plain": None,
    "empty": f"{HERE / 'plugin_conditions.py'}:empty",
    "control": f"{HERE / 'plugin_conditions.py'}:control",
    "percall": f"{HERE / 'plugin_conditions.py'}:percall",
    "plugin": "device_types_mypy",
}
KINDS = ("cold", "warm", "edit")
#: PYTHONPATH of a condition's mypy runs (``before``: the exported revision).
PYTHONPATHS: dict[str, str] = {}

# Users' Pythons cache bytecode; a machine that sets PYTHONDONTWRITEBYTECODE (this one
# does) recompiles the plugin on every run and would charge it ~10 ms a run that users
# never pay. The runs below write and use bytecode like a default Python.
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
TARGETS = {"cold": 1.05, "warm": 1.05, "edit": 1.05}
DMYPY_TARGET_S = 0.5


def mypy(config: str, cache: Path) -> float:
    """CPU seconds (user + system, rusage of the child) of one mypy run."""
    condition = config.removeprefix("mypy-").removesuffix(".toml")
    env = dict(os.environ)
    if condition in PYTHONPATHS:
        env["PYTHONPATH"] = PYTHONPATHS[condition]
    with tempfile.TemporaryFile() as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "mypy", "--config-file", config, "--cache-dir", str(cache), "-p", "pkg"],
            cwd=TREE, stdout=out, stderr=subprocess.STDOUT, env=env,
        )
        _, status, usage = os.wait4(proc.pid, 0)
        if os.waitstatus_to_exitcode(status) != 0:
            out.seek(0)
            raise SystemExit(f"mypy ({config}) failed:\n{out.read()[-3000:].decode()}")
    return usage.ru_utime + usage.ru_stime


EDITED = TREE / "pkg" / "_backends" / "mps" / "ops_000.py"
#: mtime of the edit that writes ``beta: float = <value>.0``: BASE + value seconds.
EDIT_MTIME_BASE = 1_000_000_000


def write_edit(path: Path, original: str, value: int) -> None:
    """The one-line edit (a signature default), with an mtime of its own.

    mypy (``validate_meta``) and dmypy's file watcher take a file whose size and whole-second
    mtime match what they recorded as unchanged, and this edit keeps the size (``2.0`` ->
    ``3.0``): two edits of one condition written within one second (back-to-back runs at a
    rotation) were rechecked as if nothing had changed (0.39 s "rechecks" in a 0.8 s series).
    Each value gets its own mtime, in the past, distinct from every other edit's and from the
    generated tree's."""
    path.write_text(original.replace("beta: float = 1.0", f"beta: float = {value}.0", 1))
    os.utime(path, (EDIT_MTIME_BASE + value, EDIT_MTIME_BASE + value))


def bench_mypy(conditions: list[str], repeat: int) -> dict[str, dict[str, list[float]]]:
    """cold, warm and one-file-edit recheck (incremental mypy on its cache), CPU time;
    the conditions rotate inside every repetition."""
    results: dict[str, dict[str, list[float]]] = {c: {k: [] for k in KINDS} for c in conditions}
    original = EDITED.read_text()
    try:
        for rep in range(repeat):
            shift = rep % len(conditions)
            order = conditions[shift:] + conditions[:shift]
            load = os.getloadavg()[0]
            for condition in order:
                config = f"mypy-{condition}.toml"
                cache = TREE / f".cache-{condition}"
                shutil.rmtree(cache, ignore_errors=True)
                results[condition]["cold"].append(mypy(config, cache))
                results[condition]["warm"].append(mypy(config, cache))
                write_edit(EDITED, original, rep + 2)
                results[condition]["edit"].append(mypy(config, cache))
                EDITED.write_text(original)
            cold = ", ".join(f"{c} {results[c]['cold'][-1]:.1f}" for c in order)
            print(f"  repetition {rep + 1}: cold CPU s {cold}; load {load:.1f} -> {os.getloadavg()[0]:.1f}", flush=True)
    finally:
        EDITED.write_text(original)
    return results


def bench_edits(conditions: list[str], repeat: int) -> dict[str, list[float]]:
    """Only the one-file-edit recheck, ``repeat`` times per condition on one cache each
    (built once, unmeasured), the conditions interleaved and rotating: many samples of the
    short run whose ratio a cold/warm/edit repetition samples once."""
    results: dict[str, list[float]] = {c: [] for c in conditions}
    original = EDITED.read_text()
    try:
        for condition in conditions:
            cache = TREE / f".cache-{condition}"
            shutil.rmtree(cache, ignore_errors=True)
            mypy(f"mypy-{condition}.toml", cache)
        for rep in range(repeat):
            shift = rep % len(conditions)
            for condition in conditions[shift:] + conditions[:shift]:
                write_edit(EDITED, original, rep + 2)
                results[condition].append(mypy(f"mypy-{condition}.toml", TREE / f".cache-{condition}"))
                EDITED.write_text(original)
    finally:
        EDITED.write_text(original)
    return results


def bench_dmypy(repeat: int) -> list[float]:
    status = TREE / ".dmypy.json"
    dmypy = [sys.executable, "-m", "mypy.dmypy", "--status-file", str(status)]
    cache = TREE / ".cache-dmypy"
    shutil.rmtree(cache, ignore_errors=True)
    subprocess.run([*dmypy, "start", "--", "--config-file", "mypy-plugin.toml", "--cache-dir", str(cache)],
                   cwd=TREE, check=True, capture_output=True)
    target = TREE / "pkg" / "_backends" / "mps" / "ops_000.py"
    original = target.read_text()
    times: list[float] = []
    try:
        first = subprocess.run([*dmypy, "check", "pkg"], cwd=TREE, capture_output=True, text=True)
        if first.returncode != 0:
            raise SystemExit(f"dmypy initial check failed:\n{first.stdout[-3000:] + first.stderr[-3000:]}")
        for i in range(repeat):
            write_edit(target, original, i + 2)
            start = time.perf_counter()
            proc = subprocess.run([*dmypy, "check", "pkg"], cwd=TREE, capture_output=True, text=True)
            times.append(time.perf_counter() - start)
            if proc.returncode != 0:
                raise SystemExit(f"dmypy recheck failed:\n{proc.stdout[-3000:]}")
    finally:
        target.write_text(original)
        subprocess.run([*dmypy, "stop"], cwd=TREE, capture_output=True)
    return times


def count_hooks(dispatch: str) -> str:
    """One cold in-process run of the plugin (``dispatch``: "module" as shipped, or
    "call"): hook calls, CPU seconds inside the callbacks and in the module pass; where
    the callbacks ran (the module mypy was checking: a backend module, or another, such
    as torch's own, checked cold through follow_imports), the names most called, and how
    often mypy asked for each kind of hook."""
    from collections import Counter

    from mypy import api
    from mypy.checker_state import checker_state

    import device_types_mypy.module_pass as module_pass
    from device_types_mypy.main import DeviceTypesPlugin

    DeviceTypesPlugin.PER_CALL = dispatch == "call"
    calls = {"method": 0, "function": 0, "type-analyze": 0}
    spent = {"callbacks": 0.0, "pass": 0.0}
    where: Counter[str] = Counter()
    names: Counter[str] = Counter()
    lookups: Counter[str] = Counter()
    counted: dict[tuple[str, str], object] = {}

    def counting(kind: str, fullname: str, hook: object) -> object:
        if hook is None:
            return None
        if (kind, fullname) not in counted:
            def wrapper(ctx: object, hook: object = hook) -> object:
                calls[kind] += 1
                tree = getattr(checker_state.type_checker, "tree", None)
                module: str = tree.fullname if tree is not None else ""
                where[f"{kind} hooks in " + ("backend modules" if module.startswith("pkg.") else
                                             f"{module.partition('.')[0] or 'semantic analysis'} modules")] += 1
                names[f"{kind} {fullname}"] += 1
                start = time.process_time()
                try:
                    return hook(ctx)  # type: ignore[operator]
                finally:
                    spent["callbacks"] += time.process_time() - start
            counted[(kind, fullname)] = wrapper
        return counted[(kind, fullname)]

    def lookup(name: str, kind: str | None) -> None:
        original = getattr(DeviceTypesPlugin, name)

        def wrapped(self: object, fullname: str) -> object:
            lookups[name] += 1
            hook = original(self, fullname)
            return hook if kind is None else counting(kind, fullname, hook)

        setattr(DeviceTypesPlugin, name, wrapped)

    for name in [n for n in dir(DeviceTypesPlugin) if n.startswith("get_") and n.endswith("_hook")]:
        lookup(name, {"get_method_hook": "method", "get_function_hook": "function",
                      "get_type_analyze_hook": "type-analyze"}.get(name))
    check_module = module_pass.check_module

    def timed_pass(*args: object) -> None:
        start = time.process_time()
        check_module(*args)  # type: ignore[arg-type]
        spent["pass"] += time.process_time() - start

    module_pass.check_module = timed_pass  # type: ignore[assignment]
    cache = TREE / f".cache-count-{dispatch}"
    shutil.rmtree(cache, ignore_errors=True)
    start = time.process_time()
    os.chdir(TREE)
    out, _, status = api.run(["--config-file", "mypy-plugin.toml", "--cache-dir", str(cache), "-p", "pkg"])
    if status != 0:
        raise SystemExit(f"mypy failed:\n{out[-3000:]}")
    lines = [
        f"per-{dispatch} dispatch: {calls['method']:,} method, {calls['function']:,} function and "
        f"{calls['type-analyze']:,} type-analyze hook calls; {spent['callbacks']:.2f} s CPU in the callbacks, "
        f"{spent['pass']:.2f} s in the module pass, of {time.process_time() - start:.1f} s for the run",
        "  where: " + "; ".join(f"{place} {n:,}" for place, n in where.most_common()),
        "  most called: " + "; ".join(f"{name} {n:,}" for name, n in names.most_common(8)),
        "  lookups: " + "; ".join(f"{name} {n:,}" for name, n in lookups.most_common()),
    ]
    return "\n".join(lines)


def export(ref: str, dest: Path) -> Path:
    """``device_types`` and the plugin (as ``device_types_mypy``) of git revision ``ref`` under ``dest``."""
    archive = subprocess.run(["git", "-C", str(HERE.parent), "archive", ref, "device_types", "mypy_plugin"],
                             check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(dest)], input=archive, check=True)
    (dest / "mypy_plugin").rename(dest / "device_types_mypy")
    return dest


def _with_before(ref: str, argv: list[str]) -> int:
    """Run main with the condition ``before`` added, its PYTHONPATH an export of ``ref``."""
    rest = [a for i, a in enumerate(argv) if a != "--before" and (i == 0 or argv[i - 1] != "--before")]
    rest = [a for a in rest if not a.startswith("--before=")]
    with tempfile.TemporaryDirectory(prefix="plugin-before-") as tmp:
        PYTHONPATHS["before"] = str(export(ref, Path(tmp)))
        CONDITIONS["before"] = "device_types_mypy"
        if "--conditions" in rest:
            at = rest.index("--conditions") + 1
            rest[at] = f"{rest[at]},before"
        else:
            rest += ["--conditions", "plain,plugin,before"]
        return main(rest)


OWN_PARTS = ("import", "init", "report_config_data", "hooks", "pass")


def own_cpu_one(condition: str, value: int) -> dict[str, float]:
    """In this process: the one-file-edit recheck of ``condition`` (its cache built), the
    plugin's own CPU seconds by part, and the whole run's (mypy imported first)."""
    import json

    import mypy.api
    import mypy.build
    import mypy.checker
    import mypy.semanal  # noqa: F401  (mypy's own import is not the plugin's)

    start = time.process_time()
    import device_types_mypy
    from device_types_mypy import main as plugin_main

    spent = dict.fromkeys(OWN_PARTS, 0.0)
    spent["import"] = time.process_time() - start
    spent["hook calls"] = 0
    del device_types_mypy

    def timed(part: str, fn: Any) -> Any:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            begun = time.process_time()
            try:
                return fn(*args, **kwargs)
            finally:
                spent[part] += time.process_time() - begun
                if part == "hooks":
                    spent["hook calls"] += 1
        return wrapper

    cls = plugin_main.DeviceTypesPlugin
    hooks: dict[Any, Any] = {}

    def wrap_lookup(lookup: Any) -> Any:
        def wrapped(self: Any, fullname: str) -> Any:
            hook = lookup(self, fullname)
            if hook is not None and hook not in hooks:
                hooks[hook] = timed("hooks", hook)
            return None if hook is None else hooks[hook]
        return wrapped

    for name in ("get_method_hook", "get_function_hook", "get_type_analyze_hook"):
        setattr(cls, name, wrap_lookup(getattr(cls, name)))
    cls.__init__ = timed("init", cls.__init__)  # type: ignore[method-assign]
    cls.report_config_data = timed("report_config_data", cls.report_config_data)  # type: ignore[method-assign]
    cls.get_additional_indirect_deps = timed("pass", cls.get_additional_indirect_deps)  # type: ignore[method-assign]
    os.chdir(TREE)
    original = EDITED.read_text()
    write_edit(EDITED, original, value)
    try:
        begun = time.process_time()
        out, _, status = mypy.api.run(["--config-file", f"mypy-{condition}.toml", "--cache-dir",
                                       str(TREE / f".cache-{condition}"), "-p", "pkg"])
        spent["run"] = time.process_time() - begun
    finally:
        EDITED.write_text(original)
    if status != 0:
        raise SystemExit(f"mypy failed:\n{out[-3000:]}")
    print(json.dumps(spent))
    return spent


def bench_own_cpu(conditions: list[str], repeat: int) -> int:
    import json

    for condition in conditions:  # a cache each, built once (unmeasured)
        shutil.rmtree(TREE / f".cache-{condition}", ignore_errors=True)
        mypy(f"mypy-{condition}.toml", TREE / f".cache-{condition}")
    runs: dict[str, list[dict[str, float]]] = {c: [] for c in conditions}
    for rep in range(repeat):
        shift = rep % len(conditions)
        for condition in conditions[shift:] + conditions[:shift]:
            env = dict(os.environ)
            if condition in PYTHONPATHS:
                env["PYTHONPATH"] = PYTHONPATHS[condition]
            proc = subprocess.run([sys.executable, __file__, "--own-cpu-one", f"{condition}:{rep + 2}"],
                                  capture_output=True, text=True, env=env, check=True)
            runs[condition].append(json.loads(proc.stdout.strip().splitlines()[-1]))
    print(f"\nthe plugin's own CPU in a one-file-edit recheck, ms, median of {repeat} (in-process, mypy imported):")
    for condition in conditions:
        parts = {part: statistics.median(r[part] for r in runs[condition]) * 1000 for part in (*OWN_PARTS, "run")}
        own = statistics.median(sum(r[p] for p in OWN_PARTS) for r in runs[condition]) * 1000
        calls = statistics.median(r["hook calls"] for r in runs[condition])
        print(f"  {condition:8} own {own:5.1f} ms of a {parts['run']:.0f} ms run ({own / parts['run'] * 100:.1f} %): "
              + ", ".join(f"{part} {parts[part]:.1f}" for part in OWN_PARTS) + f" ({calls:.0f} hook calls)")
        print(f"RESULT plugin tree, mypy edit, {condition}'s own CPU (in-process, ms) | {parts['run'] - own:.0f} | "
              f"{parts['run']:.0f} | {parts['run'] / (parts['run'] - own):.3f}x | | ")
    return 0


def _spread(values: list[float]) -> str:
    return f"{statistics.median(values):.2f} ({min(values):.2f}-{max(values):.2f})"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=50_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--conditions", default="plain,control,plugin",
                        help=f"comma-separated, from {', '.join(CONDITIONS)} (plain is always added)")
    parser.add_argument("--dmypy", action="store_true", help="also time a dmypy recheck after a one-line edit")
    parser.add_argument("--count-hooks", action="store_true",
                        help="instead: count hook calls and the plugin's own CPU time, per dispatch (in-process)")
    parser.add_argument("--count-one", choices=("module", "call"), help=argparse.SUPPRESS)
    parser.add_argument("--edits-only", action="store_true",
                        help="only the one-file-edit recheck, --repeat times per condition (one cold build each)")
    parser.add_argument("--own-cpu", action="store_true",
                        help="only the plugin's own CPU in the one-file-edit recheck, by part (in-process)")
    parser.add_argument("--own-cpu-one", help=argparse.SUPPRESS)
    parser.add_argument("--before", metavar="REF",
                        help="add the condition 'before': the plugin as of the git revision REF")
    args = parser.parse_args(argv)
    if args.before:
        return _with_before(args.before, argv or sys.argv[1:])
    if args.count_one:
        print(count_hooks(args.count_one))
        return 0
    if args.own_cpu_one:
        condition, _, value = args.own_cpu_one.partition(":")
        own_cpu_one(condition, int(value))
        return 0
    if args.count_hooks:
        written = generate(TREE, args.lines)
        print(f"tree: {written} lines under {TREE}", flush=True)
        for dispatch in ("module", "call"):  # one process each: mypy keeps state per process
            subprocess.run([sys.executable, __file__, "--count-one", dispatch], check=True)
        return 0
    chosen = [c.strip() for c in args.conditions.split(",") if c.strip()]
    unknown = sorted(set(chosen) - set(CONDITIONS))
    if unknown:
        parser.error(f"unknown condition(s) {', '.join(unknown)}; choose from {', '.join(CONDITIONS)}")
    conditions = ["plain", *[c for c in CONDITIONS if c in chosen and c != "plain"]]
    written = generate(TREE, args.lines)
    for condition in conditions:
        write_config(TREE / f"mypy-{condition}.toml", CONDITIONS[condition], BACKENDS_TOML)
    files = sum(1 for _ in TREE.rglob("*.py"))
    print(f"tree: {written} lines in {files} files under {TREE} ({os.cpu_count()} CPUs); "
          f"conditions {', '.join(conditions)}, {args.repeat} repetitions", flush=True)
    if args.own_cpu:
        return bench_own_cpu([c for c in conditions if c != "plain"], args.repeat)
    if args.edits_only:
        edits = bench_edits(conditions, args.repeat)
        plain = statistics.median(edits["plain"])
        print("\none-file-edit recheck, CPU s, median (min-max), and the ratio of medians to plain:")
        ok = True
        for condition in conditions[1:]:
            value = statistics.median(edits[condition])
            paired = sorted(v / p for v, p in zip(edits[condition], edits["plain"]))
            target = TARGETS["edit"] if condition == "plugin" else None
            verdict = "" if target is None else ("ok" if value / plain <= target else "OVER TARGET")
            ok &= target is None or value / plain <= target
            print(f"plain {_spread(edits['plain'])}; {condition} {_spread(edits[condition])} = {value / plain:.3f}x "
                  f"(paired ratios: median {statistics.median(paired):.3f}x, {paired[0]:.2f}-{paired[-1]:.2f}x; "
                  f"ratio of minima {min(edits[condition]) / min(edits['plain']):.3f}x)")
            print(f"RESULT plugin tree, mypy edit ({args.repeat} edits), {condition} (CPU s) | {plain:.2f} | "
                  f"{value:.2f} | {value / plain:.2f}x | {'' if target is None else f'<= {target:.2f}x'} | {verdict}")
        return 0 if ok else 1
    res = bench_mypy(conditions, args.repeat)
    ok = True
    print("\nCPU s, median (min-max), and the ratio of medians to plain:")
    for kind in KINDS:
        plain = statistics.median(res["plain"][kind])
        cells = [f"plain {_spread(res['plain'][kind])}"]
        for condition in conditions[1:]:
            value = statistics.median(res[condition][kind])
            cells.append(f"{condition} {_spread(res[condition][kind])} = {value / plain:.3f}x")
        print(f"mypy {kind:4}: " + "; ".join(cells))
        for condition in conditions[1:]:
            value = statistics.median(res[condition][kind])
            ratio = value / plain
            target = TARGETS[kind] if condition == "plugin" else None
            verdict = "" if target is None else ("ok" if ratio <= target else "OVER TARGET")
            ok &= target is None or ratio <= target
            bound = "" if target is None else f"<= {target:.2f}x"
            print(f"RESULT plugin tree, mypy {kind}, {condition} (CPU s) | {plain:.2f} | {value:.2f} | "
                  f"{ratio:.2f}x | {bound} | {verdict}")
    if args.dmypy:
        times = bench_dmypy(args.repeat)
        best, median = min(times), statistics.median(times)
        verdict = "ok" if median < DMYPY_TARGET_S else "OVER TARGET"
        ok &= median < DMYPY_TARGET_S
        print(f"dmypy recheck after a one-line edit: median {median:.3f} s, best {best:.3f} s "
              f"(target < {DMYPY_TARGET_S} s) {verdict}")
        print(f"RESULT plugin tree, dmypy one-line-edit recheck (wall s) | | {median:.3f} | | < {DMYPY_TARGET_S} s | {verdict}")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
