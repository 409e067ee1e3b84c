"""Which engine for ``device-types check``: measured on candle's real backends.

    python3 benchmarks/engine_choice.py [--astroid-python PY] [--jedi-python PY]
        [--libcst-python PY] [--semgrep PATH] [--sample 200] [--budget 300]

The corpus is ``candle/_backends/{mps,cuda,npu}`` of candle-python 0.1.0a1 (30 files,
41,926 lines), from the package registry through ``tests/registry.py``. Each row runs in a
fresh child process, so its peak memory (``ru_maxrss``) is its own; CPU time is the
child's user + system time (``getrusage``), wall time includes interpreter start-up.

Rows:

* ``python (nothing)``: interpreter start-up, the floor under every other row;
* ``ast.parse``: read and parse every backend file, the first step of our own pass;
* ``device-types check (all of it)``: our pass, in process: parse, one-function walks,
  summaries across functions and modules to a fixpoint, findings;
* ``astroid: build trees`` and ``astroid: infer ...``: astroid's trees for every backend
  file, then ``node.infer()`` on every call of ``_to_numpy`` (candle's readback helper) and
  on every call in ``--sample`` backend functions chosen with a fixed seed; the row says how
  many calls inferred to something other than ``Uninferable``;
* ``jedi: infer _to_numpy results``: ``Script.infer`` on the name each ``x = _to_numpy(...)``
  binds;
* ``libcst: parse`` and ``libcst: scope metadata``: LibCST's trees, then its ``ScopeProvider``;
* ``semgrep OSS taint``: a taint rule (sources: ``.numpy()``, ``._numpy_view()``,
  ``.to("cpu")``, ``.tolist()``, ``_to_numpy(...)``; sink: ``_from_numpy(...)``) over the
  corpus, and the same rule on three probes: source and sink in one function, behind a
  helper in the same file, behind a helper in another file.

astroid, jedi, libcst and semgrep are optional: never in the project's venv. A row whose
tool is missing is skipped with the command that installs it in a throwaway venv, e.g.
``python3 -m venv /tmp/engines && /tmp/engines/bin/pip install astroid jedi libcst numpy
semgrep``, then ``--astroid-python /tmp/engines/bin/python --semgrep /tmp/engines/bin/semgrep``
(numpy lets astroid and jedi resolve ``np.*`` as in a real install of candle).
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
BACKEND_DIRS = ("candle/_backends/mps", "candle/_backends/cuda", "candle/_backends/npu")
INSTALL_HINT = "python3 -m venv /tmp/engines && /tmp/engines/bin/pip install astroid jedi libcst numpy semgrep"

# --- workers: each runs alone in a child process and prints one JSON object ----------


def backend_files(project: Path) -> list[Path]:
    return [p for d in BACKEND_DIRS for p in sorted((project / d).rglob("*.py"))]


def module_name(project: Path, path: Path) -> str:
    parts = list(path.relative_to(project).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def worker_nothing(project: Path, args: argparse.Namespace) -> dict[str, object]:
    return {"step_cpu": 0.0, "detail": "interpreter start-up only"}


def worker_ast(project: Path, args: argparse.Namespace) -> dict[str, object]:
    start = time.process_time()
    trees = [ast.parse(p.read_bytes(), filename=str(p)) for p in backend_files(project)]
    parsed = time.process_time() - start
    calls = sum(isinstance(n, ast.Call) for t in trees for n in ast.walk(t))
    return {"step_cpu": parsed, "detail": f"{len(trees)} files, {calls:,} calls"}


def worker_check(project: Path, args: argparse.Namespace) -> dict[str, object]:
    sys.path.insert(0, str(REPO))
    from device_types._check import check_paths
    from device_types._config import load_config

    os.chdir(project)
    start = time.process_time()
    result = check_paths(list(BACKEND_DIRS), load_config("pyproject.toml"))
    spent = time.process_time() - start
    hit = len({(f.path, f.function) for f in result.findings})
    return {"step_cpu": spent, "detail": f"{len(result.findings)} findings in {hit} of {result.functions} functions"}


def _is_call_of(node: object, name: str) -> bool:
    import astroid

    if not isinstance(node, astroid.nodes.Call):
        return False
    func = node.func
    return (isinstance(func, astroid.nodes.Name) and func.name == name) or (
        isinstance(func, astroid.nodes.Attribute) and func.attrname == name)


def _infer_all(calls: list[Any], deadline: float) -> tuple[int, int, int, int, dict[str, int]]:
    """(tried, inferred to a value, only Uninferable, raised, what they inferred to)."""
    import astroid

    tried = known = unknown = failed = 0
    kinds: dict[str, int] = {}
    for call in calls:
        if time.monotonic() > deadline:
            break
        tried += 1
        try:
            values = list(call.infer())
        except (astroid.InferenceError, RecursionError, astroid.AstroidError):
            failed += 1
            continue
        real = [v for v in values if v is not astroid.Uninferable]
        if real:
            known += 1
            for value in real:
                name = getattr(value, "pytype", lambda: type(value).__name__)()
                kinds[name] = kinds.get(name, 0) + 1
        else:
            unknown += 1
    return tried, known, unknown, failed, kinds


def worker_astroid(project: Path, args: argparse.Namespace) -> dict[str, object]:
    import astroid

    sys.path.insert(0, str(project))
    files = backend_files(project)
    start = time.process_time()
    modules = [astroid.MANAGER.ast_from_file(str(p), module_name(project, p), source=True) for p in files]
    built = time.process_time() - start
    rss_built = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
    deadline = time.monotonic() + args.budget

    helper_calls = [n for m in modules for n in m.nodes_of_class(astroid.nodes.Call) if _is_call_of(n, "_to_numpy")]
    start = time.process_time()
    h_tried, h_known, h_unknown, h_failed, h_kinds = _infer_all(helper_calls, deadline)
    helper_s = time.process_time() - start

    functions = [f for m in modules for f in m.nodes_of_class(astroid.nodes.FunctionDef)]
    sample = random.Random(0).sample(functions, min(args.sample, len(functions)))
    sample_calls = [c for f in sample for c in f.nodes_of_class(astroid.nodes.Call)]
    start = time.process_time()
    s_tried, s_known, s_unknown, s_failed, _ = _infer_all(sample_calls, deadline)
    sample_s = time.process_time() - start
    top = ", ".join(f"{k} x{v}" for k, v in sorted(h_kinds.items(), key=lambda kv: -kv[1])[:3]) or "nothing"
    return {
        "rows": [
            {"engine": "astroid: build trees", "step_cpu": built, "peak_after_mb": rss_built,
             "detail": f"{len(modules)} modules, {len(functions):,} functions"},
            {"engine": "astroid: infer every _to_numpy(...) call", "step_cpu": helper_s,
             "detail": f"{h_tried}/{len(helper_calls)} calls tried: {h_known} inferred ({top}), "
                       f"{h_unknown} Uninferable, {h_failed} raised"},
            {"engine": f"astroid: infer every call in {len(sample)} sampled functions", "step_cpu": sample_s,
             "detail": f"{s_tried}/{len(sample_calls)} calls tried: {s_known} inferred, {s_unknown} Uninferable, "
                       f"{s_failed} raised" + (" (budget hit)" if s_tried < len(sample_calls) else "")},
        ],
    }


def worker_jedi(project: Path, args: argparse.Namespace) -> dict[str, object]:
    import jedi

    jproject = jedi.Project(str(project))
    sites = []
    for path in backend_files(project):
        tree = ast.parse(path.read_bytes())
        for node in ast.walk(tree):
            if (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
                    and isinstance(node.value, ast.Call) and isinstance(node.value.func, ast.Name)
                    and node.value.func.id == "_to_numpy"):
                sites.append((path, node.targets[0].lineno, node.targets[0].col_offset))
    deadline = time.monotonic() + args.budget
    start = time.process_time()
    known = tried = 0
    kinds: dict[str, int] = {}
    scripts: dict[Path, object] = {}
    for path, line, col in sites:
        if time.monotonic() > deadline:
            break
        tried += 1
        script = scripts.setdefault(path, jedi.Script(path=str(path), project=jproject))
        names = script.infer(line, col)  # type: ignore[attr-defined]
        if names:
            known += 1
            for n in names:
                kinds[n.full_name or n.name] = kinds.get(n.full_name or n.name, 0) + 1
    spent = time.process_time() - start
    top = ", ".join(f"{k} x{v}" for k, v in sorted(kinds.items(), key=lambda kv: -kv[1])[:3]) or "nothing"
    return {"step_cpu": spent, "detail": f"{tried}/{len(sites)} 'x = _to_numpy(...)' sites: {known} inferred ({top})"}


def worker_libcst(project: Path, args: argparse.Namespace) -> dict[str, object]:
    import libcst
    from libcst.metadata import MetadataWrapper, ScopeProvider

    start = time.process_time()
    trees = [libcst.parse_module(path.read_bytes()) for path in backend_files(project)]
    parsed = time.process_time() - start
    start = time.process_time()
    scopes = sum(len(set(MetadataWrapper(tree).resolve(ScopeProvider).values())) for tree in trees)
    resolved = time.process_time() - start
    return {"rows": [
        {"engine": "libcst: parse", "step_cpu": parsed, "detail": f"{len(trees)} files"},
        {"engine": "libcst: scope metadata", "step_cpu": resolved,
         "detail": f"{scopes:,} scopes (names and bindings only: no values, no return types)"},
    ]}


WORKERS = {"nothing": worker_nothing, "ast": worker_ast, "check": worker_check, "astroid": worker_astroid,
           "jedi": worker_jedi, "libcst": worker_libcst}

# --- semgrep (its own binary) -------------------------------------------------------------

SEMGREP_RULE = """\
rules:
  - id: host-data-uploaded
    mode: taint
    languages: [python]
    severity: WARNING
    message: device data read to the host and uploaded again
    pattern-sources:
      - pattern: $X.numpy()
      - pattern: $X._numpy_view()
      - pattern: $X.to("cpu")
      - pattern: $X.tolist()
      - pattern: _to_numpy(...)
    pattern-sinks:
      - pattern: _from_numpy(...)
"""
PROBE_HELPER = "def host_copy(t):\n    return t._numpy_view()\n"
PROBES = {
    "one function": {"probe.py": "def op(a):\n    arr = a._numpy_view()\n    return _from_numpy(arr + 1)\n"},
    "helper, same file": {"probe.py": PROBE_HELPER + "\n\ndef op(a):\n    arr = host_copy(a)\n"
                                                     "    return _from_numpy(arr + 1)\n"},
    "helper, other file": {"helpers.py": PROBE_HELPER,
                           "probe.py": "from helpers import host_copy\n\n\ndef op(a):\n    arr = host_copy(a)\n"
                                       "    return _from_numpy(arr + 1)\n"},
}


PEAK_WRAPPER = (
    "import resource, subprocess, sys\n"
    "proc = subprocess.run(sys.argv[2:])\n"
    "open(sys.argv[1], 'w').write(str(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss))\n"
    "sys.exit(proc.returncode)\n"
)


def semgrep_row(semgrep: str, project: Path, work: Path) -> dict[str, object]:
    rule = work / "rule.yaml"
    rule.write_text(SEMGREP_RULE)
    cmd = [semgrep, "scan", "--config", str(rule), "--metrics=off", "--disable-version-check", "--json", "--quiet"]
    env = dict(os.environ, SEMGREP_SEND_METRICS="off", SEMGREP_ENABLE_VERSION_CHECK="0")
    peak_file = work / "semgrep-peak"
    # semgrep's work is done by its semgrep-core child: a wrapper reports the largest descendant's peak
    wrapped = [sys.executable, "-c", PEAK_WRAPPER, str(peak_file), *cmd, *BACKEND_DIRS]
    wall, cpu, out = _timed(wrapped, project, env)
    found = json.loads(out)["results"]
    probes = []
    for name, files in PROBES.items():
        probe = work / name.replace(" ", "_").replace(",", "")
        probe.mkdir()
        for filename, text in files.items():
            (probe / filename).write_text(text)
        _, _, probe_out = _timed([*cmd, "."], probe, env)
        probes.append(f"{name}: {'found' if json.loads(probe_out)['results'] else 'MISSED'}")
    version = subprocess.run([semgrep, "--version"], capture_output=True, text=True, env=env).stdout.strip()
    return {"engine": f"semgrep {version} OSS, one taint rule", "step_cpu": None, "wall": wall, "cpu": cpu,
            "peak_mb": int(peak_file.read_text()) // 1024,
            "detail": f"{len(found)} results on the corpus; probes: {'; '.join(probes)}"}


# --- driver ---------------------------------------------------------------------------------


def _timed(cmd: list[str], cwd: Path, env: dict[str, str] | None = None) -> tuple[float, float, str]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd[:4])} ... exited {proc.returncode}: {(proc.stderr or proc.stdout)[-1500:]}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), proc.stdout


def run_worker(python: str, name: str, project: Path, args: argparse.Namespace) -> list[dict[str, object]]:
    cmd = [python, str(Path(__file__).resolve()), "--worker", name, "--project", str(project),
           "--sample", str(args.sample), "--budget", str(args.budget)]
    env = dict(os.environ, PYTHONPATH=str(REPO))
    # ru_maxrss of RUSAGE_CHILDREN is the largest child so far: a worker prints its own peak instead.
    wall, cpu, out = _timed(cmd, REPO, env)
    report = json.loads(out.strip().splitlines()[-1])
    rows = report.get("rows") or [{"engine": name, "step_cpu": report["step_cpu"], "detail": report["detail"]}]
    for i, row in enumerate(rows):
        # one process ran the steps in order: its totals go on the first row only
        row.update(cpu=cpu, wall=wall, peak_mb=report["peak_mb"]) if i == 0 else row.update(cpu=None, wall=None)
        if "peak_after_mb" in row:
            row["detail"] += f" ({row.pop('peak_after_mb')} MB after this step)"
    return rows


def has_module(python: str, module: str) -> bool:
    return subprocess.run([python, "-c", f"import {module}"], capture_output=True).returncode == 0


def build_project(work: Path) -> Path:
    sys.path.insert(0, str(REPO))
    from tests.check.candle_corpus import BACKENDS_TOML as CONFIG, CANDLE
    from tests.registry import unpacked

    project = work / "project"
    shutil.copytree(unpacked(*CANDLE) / "candle", project / "candle", ignore=shutil.ignore_patterns("__pycache__"))
    (project / "pyproject.toml").write_text(CONFIG)
    return project


def table(rows: list[dict[str, object]]) -> str:
    def num(value: object, fmt: str) -> str:
        return "" if value is None else format(value, fmt)

    out = ["| engine, step | step CPU s | process CPU s | process wall s | process peak RSS MB | result |",
           "|---|---|---|---|---|---|"]
    for r in rows:
        out.append(f"| {r['engine']} | {num(r.get('step_cpu'), '.2f')} | {num(r.get('cpu'), '.2f')} | "
                   f"{num(r.get('wall'), '.2f')} | {num(r.get('peak_mb'), 'd')} | {r.get('detail', '')} |")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> list[dict[str, object]]:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--astroid-python", default=sys.executable, help="a Python with astroid (default: this one)")
    parser.add_argument("--jedi-python", help="a Python with jedi (default: --astroid-python)")
    parser.add_argument("--libcst-python", help="a Python with libcst (default: --astroid-python)")
    parser.add_argument("--semgrep", default=shutil.which("semgrep"), help="the semgrep executable")
    parser.add_argument("--sample", type=int, default=200, help="backend functions whose calls astroid infers")
    parser.add_argument("--budget", type=float, default=300.0, help="seconds of inference per engine, at most")
    parser.add_argument("--worker", choices=sorted(WORKERS), help=argparse.SUPPRESS)
    parser.add_argument("--project", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    if args.worker:
        report = WORKERS[args.worker](Path(args.project), args)
        report["peak_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
        print(json.dumps(report))
        return []

    optional = {"astroid": args.astroid_python, "jedi": args.jedi_python or args.astroid_python,
                "libcst": args.libcst_python or args.astroid_python}
    rows: list[dict[str, object]] = []
    with tempfile.TemporaryDirectory(prefix="engine-choice-") as tmp:
        project = build_project(Path(tmp))
        for name, label in (("nothing", "python (nothing)"), ("ast", "ast.parse"),
                            ("check", "device-types check (all of it)")):
            rows += [dict(r, engine=label) for r in run_worker(sys.executable, name, project, args)]
        for name, python in optional.items():
            if has_module(python, name):
                found = run_worker(python, name, project, args)
                if name == "jedi":
                    found[0]["engine"] = "jedi: infer _to_numpy results"
                rows += found
            else:
                print(f"skipped {name}: not importable by {python}; install it apart from the project: "
                      f"{INSTALL_HINT}, then pass --{name}-python /tmp/engines/bin/python")
        if args.semgrep:
            rows.append(semgrep_row(args.semgrep, project, Path(tmp)))
        else:
            print(f"skipped semgrep: not found; {INSTALL_HINT}, then pass --semgrep /tmp/engines/bin/semgrep")
    print(table(rows))
    return rows


if __name__ == "__main__":
    main()
