"""Every count and size in README.md and docs/, from the command that produces it.

The docs hold generated text between markers::

    <!-- generated: NAME -->...<!-- /generated -->

(inline in a sentence or a table cell, or around whole blocks); this script recomputes each
NAME and writes it there. ``tests/core/test_docs_numbers.py`` recomputes them too and fails
when a page disagrees, so a number in the docs is never older than the code it describes.
Timings are not here: they carry their command, machine, load and date, and ``make bench``
regenerates them (docs/performance.md).

    .venv/bin/python tools/generate_docs.py            # rewrite the generated parts
    .venv/bin/python tools/generate_docs.py --check    # exit 1 and list what is stale
    .venv/bin/python tools/generate_docs.py --only codes   # one part (here: errors.md's sections)
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Callable
from functools import cached_property
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

#: One generated part: ``<!-- generated: NAME[ anything] -->TEXT<!-- /generated -->``.
REGION = re.compile(r"<!-- generated: (?P<name>[a-z0-9.-]+)(?P<note>[^>]*)-->(?P<text>.*?)<!-- /generated -->",
                    re.DOTALL)
LABELS = ROOT / "tests" / "check" / "labels"
#: The torch releases of the coverage table (docs/installation.md), and what their typecheck
#: cases do (tests/versions/test_range.py asserts those verdicts).
RELEASES = (("2.4.1", "oldest", "pass, except the gaps below"),
            ("installed", "dev pin", "pass (mypy, pyright, basedpyright)"),
            ("2.14.1", "newest served", "pass"))


def pages() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


class Facts:
    """What the generated parts say, each computed once, on first use."""

    def __init__(self, wheel: Path | None = None) -> None:
        self._wheel = wheel
        self._tmp = tempfile.TemporaryDirectory(prefix="generate-docs-")
        self._overlays: dict[str, tuple[object, object]] = {}

    # --- the wheel and the hook environment ---------------------------------------------------

    @cached_property
    def wheel(self) -> Path:
        if self._wheel is not None:
            return self._wheel
        from tests.wheel import build_wheel

        work = Path(self._tmp.name) / "wheel"
        work.mkdir()
        return build_wheel(work)

    @cached_property
    def hook_env_bytes(self) -> int:
        """``du`` of the environment pre-commit builds for the documented ``repo: local`` hooks
        (docs/ci-and-ide.md#pre-commit), as ``benchmarks/hook_env_size.py`` measures it: pre-commit
        from the package registry, the snippet taken from the page, pointed at the wheel."""
        sys.path.insert(0, str(ROOT / "benchmarks"))
        import hook_env_size as bench

        work = Path(self._tmp.name) / "hook-env"
        work.mkdir()
        pre_commit = bench.install_pre_commit(work / "pre-commit-venv")
        (size,) = bench.hook_env_sizes(pre_commit, bench.documented_snippet(self.wheel), work / "run")
        return size

    # --- coverage of the overlay --------------------------------------------------------------

    def overlay(self, version: str):  # -> (Overlay, Report)
        """The overlay built from torch ``version`` ("installed": this environment's) and its coverage."""
        if version in self._overlays:
            return self._overlays[version]
        from device_types_stubs.coverage import report_for
        from device_types_stubs.overlay import build_overlay

        if version == "installed":
            overlay = build_overlay()
        else:
            from tests.torch_versions import overlay_for

            overlay = overlay_for(version)
        self._overlays[version] = result = (overlay, report_for(overlay))
        return result


    # --- the check on candle's backends (tests/check/test_candle_corpus.py's run) ---------------

    @cached_property
    def candle(self):  # -> CheckRun
        from tests.check.candle_corpus import candle_root, run_check

        config = Path(self._tmp.name) / "candle-config"
        config.mkdir()
        return run_check(candle_root(), config)

    @cached_property
    def fixed_candle(self):  # -> CheckRun, with every fix pair's "after" applied
        import shutil

        from tests.check.candle_corpus import candle_root, run_check
        from tests.check.pairs.candle_0_1_0a1 import PAIRS
        from tests.check.pairs.model import apply_pairs

        root = Path(self._tmp.name) / "fixed-candle"
        shutil.copytree(candle_root() / "candle", root / "candle")
        apply_pairs(root, PAIRS)
        config = Path(self._tmp.name) / "fixed-config"
        config.mkdir()
        return run_check(root, config)

    @cached_property
    def candle_text(self) -> list[str]:
        """The text report of ``device-types check candle/_backends`` (no host syncs)."""
        from tests.check.candle_corpus import BACKENDS_TOML, candle_root

        config = Path(self._tmp.name) / "summary-config.toml"
        config.write_text(BACKENDS_TOML, encoding="utf-8")
        run = subprocess.run([sys.executable, "-m", "device_types", "check", "--no-cache", "--config", str(config),
                              "candle/_backends"], cwd=candle_root(), capture_output=True, text=True, timeout=600)
        return run.stdout.splitlines()

    @cached_property
    def mindtorch(self):  # -> (findings, {(path, function): label})
        """The check on mindtorch's two backend modules, as ``benchmarks/indirect_eval.py`` runs it
        (the mindnlp 0.5.1 wheel from the registry, a backends-only config, host syncs enabled)."""
        from benchmarks import indirect_eval

        engine = indirect_eval.Engine(ROOT)
        project, targets, labels = indirect_eval.sibling_project(Path(self._tmp.name))
        findings, _, _ = indirect_eval.run_check(engine, project, targets)
        return findings, labels


#: The functions whose findings docs/untyped-backends.md shows from the check on candle.
CANDLE_EXAMPLES = (("candle/_backends/cuda/ops.py", "add"), ("candle/_backends/mps/creation.py", "randn_create"),
                   ("candle/_backends/mps/ops.py", "matmul"), ("candle/_backends/mps/ops.py", "mm"),
                   ("candle/_backends/mps/ops.py", "argmax"), ("candle/_backends/npu/ops.py", "quantile_op"),
                   ("candle/_backends/npu/ops.py", "_build_dft_matrices"), ("candle/_backends/npu/ops.py", "fft_fft_op"))


def candle_example(facts: Facts) -> str:
    """Those functions' lines of the text report, then its summary line, as one block."""
    lines = facts.candle_text
    shown = []
    for path, function in CANDLE_EXAMPLES:
        (line,) = [text for text in lines if text.startswith(f"{path}:") and f': "{function}" ' in text][:1]
        shown.append(line)
    return "```\n" + "\n".join([*shown, "...", lines[-1]]) + "\n```"


def candle_host_sync_example(facts: Facts) -> str:
    """The host sync of candle's npu ``nonzero``, as ``--enable device-host-sync`` prints it."""
    (finding,) = [f for f in facts.candle.findings if f["code"] == "device-host-sync"
                  and f["path"].endswith("candle/_backends/npu/ops.py") and f["function"].endswith("nonzero")]
    return f"```\n{finding['path']}:{finding['line']}: {finding['message']} [{finding['code']}]\n```"


def _labelled(label: str) -> set[tuple[str, str]]:
    from tests.check.candle_corpus import load_labels

    return {k for k, v in load_labels().items() if v.label == label}


def recall_precision(facts: Facts) -> tuple[int, int, int]:
    """(found, fallbacks, flagged labelled functions), as test_candle_corpus counts them."""
    from tests.check.candle_corpus import load_labels

    flagged = facts.candle.by_function(host_sync=False).keys()
    fallbacks = _labelled("fallback")
    found = fallbacks & flagged
    false_positives = (load_labels().keys() - fallbacks) & flagged
    return len(found), len(fallbacks), len(found) + len(false_positives)


def candle_recall(facts: Facts) -> str:
    found, fallbacks, _ = recall_precision(facts)
    return f"{found / fallbacks:.3f} ({found}/{fallbacks} fallback functions)"


def candle_precision(facts: Facts) -> str:
    found, _, flagged = recall_precision(facts)
    return f"{found / flagged:.3f} ({found}/{flagged}"


def candle_short(facts: Facts) -> str:
    found, fallbacks, flagged = recall_precision(facts)
    return f"recall {found / fallbacks:.2f} and precision {found / flagged:.3f}"


def candle_host_sync(facts: Facts) -> str:
    host_syncs = _labelled("host-sync")
    reported = host_syncs & facts.candle.by_function(host_sync=True).keys()
    as_fallback = host_syncs & facts.candle.by_function(host_sync=False).keys()
    return f"{len(reported)}/{len(host_syncs)}; {len(as_fallback) or 'none'}"


def candle_indirect(facts: Facts) -> str:
    """Indirect findings on candle that name a reached chain and the real root, as
    ``benchmarks/indirect_eval.py`` judges them against ``candle-0.1.0a1-indirect.json``."""
    from benchmarks.indirect_eval import INDIRECT_CODE, judge_indirect
    from tests.check.candle_corpus import corpus_path, load_labels
    from tests.check.labels import indirect

    findings = [{**f, "path": corpus_path(f["path"])} for f in facts.candle.findings]
    labels, edges = load_labels(), indirect.edges()
    verdicts = [judge_indirect(f, findings, edges, labels)[0] for f in findings if f["code"] == INDIRECT_CODE]
    return f"{verdicts.count('right')}/{len(verdicts)}"


def mindnlp_score(facts: Facts) -> str:
    """Per function on mindtorch (mindnlp 0.5.1) against ``mindnlp-0.5.1.json``, as
    ``benchmarks/indirect_eval.py`` scores it (every code but host-sync)."""
    from benchmarks.indirect_eval import by_function

    findings, labels = facts.mindtorch
    flagged = by_function(findings, host_sync=False).keys()
    fallbacks = {k for k, v in labels.items() if v == "fallback"}
    found, wrong = fallbacks & flagged, (labels.keys() - fallbacks) & flagged
    if not fallbacks:
        return f"none labelled fallback; {len(wrong)} of {len(labels)} flagged"
    return f"recall {len(found)}/{len(fallbacks)}, precision {len(found)}/{len(found) + len(wrong)}"


def candle_pairs(facts: Facts) -> str:
    from tests.check.pairs.candle_0_1_0a1 import PAIRS

    before = facts.candle.by_function(host_sync=False)
    after = facts.fixed_candle.by_function(host_sync=False)
    flagged_before = sum((p.path, p.function) in before for p in PAIRS)
    flagged_after = sum((p.path, p.function) in after for p in PAIRS)
    return f"{flagged_before}/{len(PAIRS)}, {flagged_after}/{len(PAIRS)}"


def _count(n: int) -> str:
    return f"{n:,}"


def _part(part: object) -> str:
    covered, total = part.covered, part.total  # type: ignore[attr-defined]
    percent = f"{covered / total * 100:.1f}".removesuffix(".0")
    return f"{covered}/{total} ({percent} %)"


def _ratio(part: object) -> str:
    return f"{part.covered}/{part.total}"  # type: ignore[attr-defined]


def _version(facts: Facts, version: str) -> str:
    overlay, _ = facts.overlay(version)
    return overlay.torch_version.split("+")[0]


def coverage_table(facts: Facts) -> str:
    rows = ["| torch | overlay files | ops rewritten | `_VariableFunctions` functions with a device "
            "| `Tensor` methods and operators with a device | typecheck cases |", "|---|---|---|---|---|---|"]
    for version, role, cases in RELEASES:
        overlay, report = facts.overlay(version)
        ops = sum(len(v) for v in overlay.ops.values())
        rows.append(f"| {_version(facts, version)} ({role}) | {len(overlay.files)} | {_count(ops)} | "
                    f"{_part(report.functions)} | {_part(report.methods)} | {cases} |")
    return "\n".join(rows)


def namespaces(facts: Facts, version: str) -> str:
    _, report = facts.overlay(version)
    return "/".join(str(part.total) if part else "0" for part in report.namespaces.values())


def namespaces_all(facts: Facts) -> str:
    said = [f"{namespaces(facts, v)} ops on {_version(facts, v)}" for v, _, _ in RELEASES]
    return f"{', '.join(said[:-1])}, {said[-1]}"


def namespaces_installed(facts: Facts) -> str:
    _, report = facts.overlay("installed")
    return ", ".join(f"`{title}` {_ratio(part)}" for title, part in report.namespaces.items() if part)


def coverage_installed(facts: Facts) -> str:
    _, report = facts.overlay("installed")
    return (f"For torch {_version(facts, 'installed')}: {_ratio(report.functions)} functions and "
            f"{_ratio(report.methods)} methods")


def _labels(name: str) -> dict:
    return json.loads((LABELS / name).read_text(encoding="utf-8"))


def pairs() -> int:
    from tests.check.pairs.candle_0_1_0a1 import PAIRS

    return len(PAIRS)


#: NAME -> what the generated part says.
GENERATED: dict[str, Callable[[Facts], str]] = {
    "codes-index": lambda f: __import__("device_types._codes", fromlist=["x"]).markdown_index(),
    "codes": lambda f: __import__("device_types._codes", fromlist=["x"]).markdown_sections(),
    # rounded, so that an edit of the docs (shipped in the wheel) does not make the page stale
    "wheel-size": lambda f: f"about {round(f.wheel.stat().st_size, -5) // 1000} KB",
    # a bound, in steps of 25 MB: pip's and setuptools' versions and the bytecode compiled by a
    # run move it by several MB between machines (14 to 18 MB seen); what it says is "no torch"
    "hook-env-size": lambda f: f"under {-(-f.hook_env_bytes // 25_000_000) * 25} MB",
    "coverage-table": coverage_table,
    "coverage-namespaces": namespaces_all,
    "coverage-installed": coverage_installed,
    "coverage-installed-namespaces": namespaces_installed,
    "labels-candle": lambda f: _count(len(_labels("candle-0.1.0a1.json")["functions"])),
    "labels-mindnlp": lambda f: _count(len(_labels("mindnlp-0.5.1.json")["functions"])),
    "labels-indirect-sites": lambda f: _count(len(_labels("candle-0.1.0a1-indirect.json")["edges"])),
    "fix-pairs": lambda f: _count(pairs()),
    "candle-example": candle_example,
    "candle-host-sync-example": candle_host_sync_example,
    "candle-recall": candle_recall,
    "candle-precision": candle_precision,
    "candle-recall-precision": candle_short,
    "candle-host-sync": candle_host_sync,
    "candle-pairs": candle_pairs,
    "candle-indirect": candle_indirect,
    "mindnlp-score": mindnlp_score,
}


def _body(name: str, value: str, block: bool) -> str:
    return f"\n{value}\n" if block else value


def render(text: str, facts: Facts, only: set[str] | None = None) -> str:
    def replace(match: re.Match[str]) -> str:
        name = match["name"]
        if name not in GENERATED:
            raise KeyError(f"unknown generated part {name!r}; known: {', '.join(sorted(GENERATED))}")
        if only is not None and name not in only:
            return match.group(0)
        block = match["text"].startswith("\n")
        return f"<!-- generated: {name}{match['note']}-->{_body(name, GENERATED[name](facts), block)}<!-- /generated -->"

    return REGION.sub(replace, text)


def stale(facts: Facts) -> list[tuple[Path, str, str, str]]:
    """(page, part, what it says, what it should say) for every generated part that differs."""
    found = []
    for page in pages():
        text = page.read_text(encoding="utf-8")
        for match in REGION.finditer(text):
            now = _body(match["name"], GENERATED[match["name"]](facts), match["text"].startswith("\n"))
            if match["text"] != now:
                found.append((page, match["name"], match["text"].strip(), now.strip()))
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 if a generated part is stale")
    parser.add_argument("--only", action="append", metavar="NAME",
                        help="rewrite only this generated part (repeatable; e.g. codes after an edit of the registry)")
    args = parser.parse_args()
    facts = Facts()
    if args.check:
        found = stale(facts)
        for page, name, said, now in found:
            print(f"{page.relative_to(ROOT)}: {name}: says {said[:60]!r}, should say {now[:60]!r}")
        return 1 if found else 0
    for page in pages():
        text = page.read_text(encoding="utf-8")
        new = render(text, facts, set(args.only) if args.only else None)
        if new != text:
            page.write_text(new, encoding="utf-8")
            print(f"wrote {page.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
