"""How right ``device-types check`` is on candle's backends, indirect fallbacks in particular.

    .venv/bin/python benchmarks/indirect_eval.py [--engine DIR ...] [--rounds 3] [--json FILE]

Each ``--engine`` is a checkout of device-types (the directory holding ``device_types/``;
default: this one); with two or more, every number is printed for each, and their cold runs
are interleaved round by round (the order rotates), so a change and its baseline are measured
in one run. An engine is used only through its CLI, as users run it: ``python -m
device_types check --format json --enable device-host-sync [--no-cache] --config <backends
only> candle/_backends`` (with ``PYTHONPATH=DIR``), reading only the finding fields ``path``,
``line``, ``code``, ``function``, ``chain``, ``message``, and ``hops`` / ``root`` /
``condition`` where an engine has them. Any engine version works.

The corpus is candle-python 0.1.0a1 from the registry (``tests/registry.py``, unzipped, never
installed), copied into a temporary project; the labels are
``tests/check/labels/candle-0.1.0a1.json`` (one verdict per function) and
``tests/check/labels/candle-0.1.0a1-indirect.json`` (one judged call site per edge). Printed:

1. **Per function, every code but host-sync** (as ``tests/check/test_candle_corpus.py``): a
   function is flagged when any such finding names it; over the labelled functions,
   precision = flagged fallbacks / flagged, recall = flagged fallbacks / fallbacks; overall
   and per backend. **Host-sync** separately: recall of the host-sync labels by
   ``device-host-sync`` findings, host-syncs flagged as fallbacks, and host-sync findings on
   functions labelled otherwise.
2. **Indirect findings** (``device-indirect-fallback``): the share that name a chain that is
   reached AND the real root. A chain is reached when every hop ``chain[i] -> chain[i+1]`` is
   a call site judged ``reached`` (the first hop at the finding's line when that line is a
   judged call site, later hops at the ``hops`` lines when given, else any judged site of the
   pair); a hop to a function labelled clean or host-sync is not reached. The root the finding names is its last ``hops`` entry or its ``root``; for engines
   without them, the line of the root function's own finding whose message quotes the same
   host step as the indirect message (``... -> div: "_to_numpy(a)")``). It is real when it is
   the first hop's ``root`` or one of its ``also_roots``. Of the right ones whose first hop the
   labels reach only under a condition, the share that states one (``condition``, or "when" in
   the message; its wording is not compared). Findings with a hop the file does
   not judge count as not right (listed). Also: the labelled indirect fallbacks
   (``why`` "indirect: ...") that get an indirect finding.
3. **Fix history** (``tests/check/pairs``, applied as ``tests/check/test_fix_pairs.py`` does):
   the share of pre-fix functions still flagged, and of fixed functions flagged (all of them
   wrongly: the labels tests check that no after reaches a remaining fallback), by code.
4. **The second framework**: mindtorch from the mindnlp 0.5.1 wheel (``mindtorch/_apis/npu.py``
   and ``gpu.py``, configured with its backends only), per function against
   ``tests/check/labels/mindnlp-0.5.1.json``.
5. **Cold CPU time**: user + system time of the check process (``getrusage`` of the
   children), ``--no-cache`` where the engine has it (else a fresh copy of the tree each
   run), median and min-max over ``--rounds``.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tests.check.candle_corpus import BACKENDS_TOML, HOST_SYNC, candle_root, corpus_path, load_labels  # noqa: E402
from tests.check.labels import indirect  # noqa: E402
from tests.check.pairs.candle_0_1_0a1 import PAIRS  # noqa: E402
from tests.check.pairs.model import apply_pairs  # noqa: E402
from tests.registry import unpacked  # noqa: E402

SIBLING = REPO / "tests" / "check" / "labels" / "mindnlp-0.5.1.json"

INDIRECT_CODE = "device-indirect-fallback"
BACKENDS = ("mps", "cuda", "npu")
# As users' Pythons do (see check_bench.py): no per-run recompiling of the engine.
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)


@dataclass
class Engine:
    root: Path
    no_cache: bool = True
    cpu: list[float] = field(default_factory=list)
    wall: list[float] = field(default_factory=list)

    @property
    def name(self) -> str:
        return str(self.root)

    def env(self) -> dict[str, str]:
        return {**os.environ, "PYTHONPATH": str(self.root)}


def _has_no_cache(engine: Engine) -> bool:
    proc = subprocess.run([sys.executable, "-m", "device_types", "check", "--help"], capture_output=True,
                          text=True, env=engine.env(), cwd=tempfile.gettempdir(), timeout=120)
    return "--no-cache" in proc.stdout


def _project(tmp: Path, name: str, source: Path) -> Path:
    """A project directory with candle's backends-only config and a copy of ``source``/candle."""
    project = tmp / name
    shutil.copytree(source / "candle", project / "candle")
    (project / "pyproject.toml").write_text(BACKENDS_TOML, encoding="utf-8")
    return project


def run_check(engine: Engine, project: Path, targets: tuple[str, ...] = ("candle/_backends",)) -> tuple[list[dict], float, float]:
    """(findings, CPU seconds, wall seconds) of one cold check of ``targets`` in ``project``."""
    if not engine.no_cache:
        shutil.rmtree(project / ".device_types_cache", ignore_errors=True)
    command = [sys.executable, "-m", "device_types", "check", "--format", "json", "--enable", HOST_SYNC,
               "--config", str(project / "pyproject.toml"), *(["--no-cache"] if engine.no_cache else []),
               *targets]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(command, cwd=project, capture_output=True, text=True, env=engine.env(), timeout=900)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if proc.returncode not in (0, 1):
        sys.exit(f"{engine.name}: `device-types check` exited {proc.returncode}: {proc.stderr.strip()[-500:]}")
    try:
        report = json.loads(proc.stdout)
    except json.JSONDecodeError:
        sys.exit(f"{engine.name}: `device-types check --format json` printed no JSON: {proc.stdout[-300:]!r}")
    findings = report["findings"] if isinstance(report, dict) else report
    for finding in findings:
        finding["path"] = corpus_path(finding["path"])
    return findings, cpu, wall


def by_function(findings: list[dict], *, host_sync: bool) -> dict[tuple[str, str], list[dict]]:
    out: dict[tuple[str, str], list[dict]] = {}
    for finding in findings:
        if (finding["code"] == HOST_SYNC) == host_sync:
            out.setdefault((finding["path"], finding["function"]), []).append(finding)
    return out


def _ratio(part: int, whole: int) -> str:
    return f"{part / whole:.3f} ({part}/{whole})" if whole else "n/a (0/0)"


# 1. per function --------------------------------------------------------------------------------

def per_function(findings: list[dict], labels: dict) -> list[tuple[str, str]]:
    flagged = by_function(findings, host_sync=False)
    rows = []
    for backend in ("all", *BACKENDS):
        scope = {k: v for k, v in labels.items() if backend == "all" or k[0].split("/")[2] == backend}
        fallbacks = {k for k, v in scope.items() if v.label == "fallback"}
        others = set(scope) - fallbacks
        found = fallbacks & flagged.keys()
        wrong = others & flagged.keys()
        rows.append((f"precision, {backend}", _ratio(len(found), len(found) + len(wrong))))
        rows.append((f"recall, {backend}", _ratio(len(found), len(fallbacks))))
    syncs = {k for k, v in labels.items() if v.label == "host-sync"}
    reported = by_function(findings, host_sync=True)
    rows.append(("host-sync recall", _ratio(len(syncs & reported.keys()), len(syncs))))
    rows.append(("host-syncs flagged as fallbacks", str(len(syncs & flagged.keys()))))
    for verdict in ("clean", "fallback"):
        rows.append((f"host-sync findings on functions labelled {verdict}",
                     str(len({k for k in reported if k in labels and labels[k].label == verdict}))))
    return rows


def false_flags(findings: list[dict], labels: dict) -> list[str]:
    """Labelled non-fallbacks that a finding (not host-sync) flags, and fallbacks none flags."""
    flagged = by_function(findings, host_sync=False)
    out = [f"  flagged, labelled {labels[k].label}: {k[0]}:{f[0]['line']} {k[1]} [{f[0]['code']}]"
           for k, f in sorted(flagged.items()) if k in labels and labels[k].label != "fallback"]
    out += [f"  missed fallback: {k[0]} {k[1]}" for k, v in sorted(labels.items())
            if v.label == "fallback" and k not in flagged]
    return out


# 2. indirect findings ---------------------------------------------------------------------------

def _hop_lines(finding: dict) -> list[tuple[str, int]]:
    """``hops`` as (path, line): dicts with path/line (or file/line) or ``"path:line"`` strings."""
    out = []
    for hop in finding.get("hops") or ():
        if isinstance(hop, str) and ":" in hop:
            path, _, line = hop.rpartition(":")
        elif isinstance(hop, dict):
            path, line = hop.get("path") or hop.get("file") or finding["path"], hop.get("line")
        else:
            continue
        try:
            out.append((corpus_path(str(path)), int(line)))
        except (TypeError, ValueError):
            continue
    return out


def _root_text(finding: dict) -> str | None:
    """The host step an indirect message quotes: ``(a -> b: "_to_numpy(a)") inside ...``."""
    chain = " -> ".join(finding.get("chain") or ())
    at = finding["message"].find(chain + ": ") if chain else -1
    if at < 0:
        return None
    rest = finding["message"][at + len(chain) + 2:]
    end = rest.find(") inside ")
    return (rest[:end] if end >= 0 else rest).strip() or None


def named_root(finding: dict, findings: list[dict]) -> str | None:
    """The ``path:line`` a finding names as its root, or None when it cannot be told."""
    root = finding.get("root")
    if isinstance(root, str) and ":" in root:
        return corpus_path(root)
    if isinstance(root, dict) and root.get("line"):
        return f"{corpus_path(str(root.get('path') or finding['path']))}:{root['line']}"
    hops = _hop_lines(finding)
    if len(hops) >= len(finding.get("chain") or ()):
        path, line = hops[-1]
        return f"{path}:{line}"
    text = _root_text(finding)
    last = (finding.get("chain") or [None])[-1]
    if not text or not last:
        return None
    own = [f for f in findings if f["function"] == last and f["path"] == finding["path"]
           and f["code"] not in (INDIRECT_CODE, HOST_SYNC)]
    quoted = re.findall(r'"[^"]*"', text)
    key = quoted[0] if quoted else text
    matching = [f for f in own if key in f["message"]]
    return f"{finding['path']}:{min(f['line'] for f in matching)}" if matching else None


def judge_indirect(finding: dict, findings: list[dict], edges: list[indirect.Edge], labels: dict) -> tuple[str, str]:
    """(verdict, detail): verdict is "right", "not reached", "wrong root" or "unjudged"."""
    chain = finding.get("chain") or []
    hops = _hop_lines(finding)
    first_edge = None
    for i, (caller, callee) in enumerate(zip(chain, chain[1:])):
        sites = [e for e in edges if e.path == finding["path"] and e.caller == caller and e.callee == callee]
        if not sites:
            label = labels.get((finding["path"], callee))
            if label is not None and label.label != "fallback":
                return "not reached", f"the callee is labelled {label.label}: {label.why}"
            return "unjudged", f"{caller} -> {callee} is not in the indirect labels"
        line = finding["line"] if i == 0 else (hops[i][1] if i < len(hops) else None)
        at_line = [e for e in sites if e.call_line == line]
        judged = at_line or sites
        reached = [e for e in judged if e.reached]
        if not reached:
            return "not reached", judged[0].why
        if i == 0:
            first_edge = reached[0]
    if first_edge is None:
        return "unjudged", "a chain of one function"
    root = named_root(finding, findings)
    if root is None:
        return "wrong root", "the finding names no root that can be located"
    if root not in first_edge.roots:
        return "wrong root", f"names {root}, the real root is {first_edge.root}"
    return "right", first_edge.root or ""


def _first_edge(finding: dict, edges: list[indirect.Edge]) -> indirect.Edge:
    """The judged, reached call site of a right finding's first hop (its line when judged)."""
    chain = finding["chain"]
    sites = [e for e in edges if e.path == finding["path"] and e.caller == chain[0] and e.callee == chain[1] and e.reached]
    return next((e for e in sites if e.call_line == finding["line"]), sites[0])


def indirect_rows(findings: list[dict], labels: dict, edges: list[indirect.Edge]) -> tuple[list, list]:
    verdicts = []
    for finding in findings:
        if finding["code"] == INDIRECT_CODE:
            verdict, detail = judge_indirect(finding, findings, edges, labels)
            verdicts.append((verdict, finding, detail))
    counts = Counter(v for v, _, _ in verdicts)
    total = len(verdicts)
    rows = [("indirect findings", str(total)),
            ("  reached chain and real root", _ratio(counts["right"], total)),
            ("  chain not reached", str(counts["not reached"])),
            ("  reached, wrong root", str(counts["wrong root"])),
            ("  hop not in the indirect labels", str(counts["unjudged"]))]
    conditional = [f for v, f, _ in verdicts if v == "right" and _first_edge(f, edges).condition]
    stated = [f for f in conditional if f.get("condition") or " when " in f["message"]]
    rows.append(("  of the right ones reached only under a condition, say when", _ratio(len(stated), len(conditional))))
    chained = {k for k, v in labels.items() if v.label == "fallback" and v.why.startswith("indirect:")}
    with_chain = {(f["path"], f["function"]) for _, f, _ in verdicts}
    rows.append(("labelled indirect fallbacks with an indirect finding", _ratio(len(chained & with_chain), len(chained))))
    wrong = [(v, f, d) for v, f, d in verdicts if v != "right"]
    return rows, wrong


# 3. fix history ---------------------------------------------------------------------------------

def fix_rows(before: list[dict], after: list[dict]) -> list[tuple[str, str]]:
    flagged_before = by_function(before, host_sync=False)
    flagged_after = by_function(after, host_sync=False)
    keys = [(p.path, p.function) for p in PAIRS]
    still = [k for k in keys if k in flagged_after]
    by_code = Counter("indirect" if all(f["code"] == INDIRECT_CODE for f in flagged_after[k]) else "direct"
                      for k in still)
    return [("pre-fix versions flagged", _ratio(sum(k in flagged_before for k in keys), len(keys))),
            ("fixed versions flagged (wrongly)", _ratio(len(still), len(keys))),
            ("  of them only by an indirect finding", str(by_code["indirect"])),
            ("  of them by a direct finding", str(by_code["direct"]))]


# 5. the second framework ------------------------------------------------------------------------

def sibling_project(tmp: Path) -> tuple[Path, tuple[str, ...], dict]:
    """mindtorch from the mindnlp wheel, configured with its backends only, and its labels."""
    data = json.loads(SIBLING.read_text(encoding="utf-8"))
    root = unpacked("mindnlp", "0.5.1", ("mindtorch/*",))
    project = tmp / "mindtorch"
    shutil.copytree(root / "mindtorch", project / "mindtorch")
    table = ", ".join(f'"{module}" = "{kind}"' for module, kind in data["backends"].items())
    (project / "pyproject.toml").write_text(f"[tool.device_types]\nbackends = {{ {table} }}\n", encoding="utf-8")
    targets = tuple(module.replace(".", "/") + ".py" for module in data["backends"])
    labels = {(e["path"], e["function"]): e["label"] for e in data["functions"]}
    return project, targets, labels


def sibling_rows(findings: list[dict], labels: dict[tuple[str, str], str]) -> list[tuple[str, str]]:
    flagged = by_function(findings, host_sync=False)
    fallbacks = {k for k, v in labels.items() if v == "fallback"}
    found = fallbacks & flagged.keys()
    wrong = (set(labels) - fallbacks) & flagged.keys()
    return [("labelled functions", str(len(labels))),
            ("  of them labelled fallback", str(len(fallbacks))),
            ("flagged, labelled otherwise", str(len(wrong))),
            ("precision", _ratio(len(found), len(found) + len(wrong))),
            ("recall", _ratio(len(found), len(fallbacks))),
            ("findings (all codes)", str(len(findings)))]


# driver -----------------------------------------------------------------------------------------

def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engine", action="append", type=Path, help="a device-types checkout (repeatable)")
    parser.add_argument("--rounds", type=int, default=3, help="cold runs per engine (CPU time)")
    parser.add_argument("--json", type=Path, help="also write the numbers here")
    parser.add_argument("--show-wrong", action="store_true",
                        help="list the false flags, the misses and the indirect findings that are not right")
    args = parser.parse_args(argv)
    engines = [Engine(root.resolve()) for root in (args.engine or [REPO])]
    for engine in engines:
        if not (engine.root / "device_types").is_dir():
            parser.error(f"{engine.root} holds no device_types/ package")
        engine.no_cache = _has_no_cache(engine)
    labels = load_labels()
    edges = indirect.edges()
    results: dict = {}
    with tempfile.TemporaryDirectory(prefix="indirect-eval-") as tmp_name:
        tmp = Path(tmp_name)
        wheel = candle_root()
        original = _project(tmp, "candle", wheel)
        fixed = _project(tmp, "candle-fixed", wheel)
        apply_pairs(fixed, PAIRS)
        runs: dict[str, dict[str, list[dict]]] = {e.name: {} for e in engines}
        for round_no in range(max(args.rounds, 1)):
            order = engines[round_no % len(engines):] + engines[:round_no % len(engines)]
            for engine in order:
                findings, cpu, wall = run_check(engine, original)
                engine.cpu.append(cpu)
                engine.wall.append(wall)
                runs[engine.name]["original"] = findings
        sibling, sibling_targets, sibling_labels = sibling_project(tmp)
        for engine in engines:
            runs[engine.name]["fixed"], _, _ = run_check(engine, fixed)
            runs[engine.name]["sibling"], _, _ = run_check(engine, sibling, sibling_targets)
    for engine in engines:
        found = runs[engine.name]["original"]
        indirect_table, wrong = indirect_rows(found, labels, edges)
        sections = {
            "per function (all codes but host-sync), vs candle-0.1.0a1.json": per_function(found, labels),
            "indirect findings, vs candle-0.1.0a1-indirect.json": indirect_table,
            "fix history (tests/check/pairs)": fix_rows(found, runs[engine.name]["fixed"]),
            "second framework: mindtorch (mindnlp 0.5.1), vs mindnlp-0.5.1.json":
                sibling_rows(runs[engine.name]["sibling"], sibling_labels),
            "cold CPU time (user+system), --no-cache" if engine.no_cache else "cold CPU time (fresh tree)": [
                ("CPU s, median [min-max]", f"{statistics.median(engine.cpu):.2f} [{min(engine.cpu):.2f}-{max(engine.cpu):.2f}]"),
                ("wall s, median", f"{statistics.median(engine.wall):.2f}"),
                ("rounds", str(len(engine.cpu)))],
        }
        print(f"# engine {engine.name}")
        for title, rows in sections.items():
            print(f"## {title}")
            for what, value in rows:
                print(f"  {what:<56} {value}")
        if args.show_wrong:
            print("## per function: false flags and misses")
            print("\n".join(false_flags(found, labels)) or "  none")
            print("## indirect findings that are not right")
            for verdict, finding, detail in wrong:
                print(f"  {finding['path']}:{finding['line']} {finding['function']} [{verdict}] "
                      f"{' -> '.join(finding.get('chain') or ())}: {detail}")
        print()
        results[engine.name] = {title: dict(rows) for title, rows in sections.items()}
    if args.json:
        args.json.write_text(json.dumps(results, indent=1), encoding="utf-8")
    return results


if __name__ == "__main__":
    main()
