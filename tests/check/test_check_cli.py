"""The command's contract: formats, exit codes, baseline, inventory, cache, bad input."""

from __future__ import annotations

import json
from pathlib import Path

from tests.check.conftest import run_cli as run_check
from tests.check.test_check_cases import marked

MPS_OPS = "fw/_backends/mps/ops.py"


def _without_broken(project: Path) -> Path:
    (project / "fw/_backends/mps/broken.py").unlink()
    return project


def test_exit_codes(project: Path, tmp_path: Path) -> None:
    assert run_check("--no-cache", "fw", cwd=project).returncode == 2  # a file could not be parsed
    _without_broken(project)
    assert run_check("--no-cache", "fw", cwd=project).returncode == 1
    assert run_check("--no-cache", "fw/_backends/mps/kernels.py", cwd=project).returncode == 0
    usage = run_check("--format", "yaml", cwd=project)
    assert usage.returncode == 2 and "invalid choice" in usage.stderr


def test_sarif_is_code_scanning_shaped(project: Path) -> None:
    run = run_check("--no-cache", "--format", "sarif", "fw/_backends/npu", cwd=project)
    sarif = json.loads(run.stdout)
    assert sarif["version"] == "2.1.0"
    driver = sarif["runs"][0]["tool"]["driver"]
    rules = [r["id"] for r in driver["rules"]]
    results = sarif["runs"][0]["results"]
    assert sorted({r["ruleId"] for r in results}) == rules == ["device-cpu-target", "device-numpy", "device-readback"]
    first = results[0]
    assert first["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "fw/_backends/npu/ops.py"
    assert first["locations"][0]["physicalLocation"]["region"]["startLine"] == 14
    assert all(rules[r["ruleIndex"]] == r["ruleId"] for r in results)


def test_json_names_function_backend_and_chain(project: Path) -> None:
    data = run_check("--no-cache", "--format", "json", "fw/_backends/mps/ops.py", cwd=project).json()
    topk = next(f for f in data["findings"] if f["function"] == "topk")
    assert topk == {
        "path": MPS_OPS, "line": 54, "column": 14, "code": "device-indirect-fallback",
        "message": topk["message"], "function": "topk", "backend": "mps", "chain": ["topk", "sort"],
        "anchor": "fw._backends.mps.ops.sort()" if topk["anchor"].startswith("fw.") else topk["anchor"],
        "condition": None,
        "hops": [{"path": MPS_OPS, "line": 54, "column": 14, "function": "topk", "what": 'calls "sort()"'},
                 {"path": MPS_OPS, "line": 49, "column": topk["hops"][1]["column"], "function": "sort",
                  "what": '".to("cpu")"'}],
    }
    assert data["summary"]["functions_with_findings"] == len({f["function"] for f in data["findings"]})


def test_baseline_reports_only_new_fallbacks_and_lists_fixed_ones(project: Path) -> None:
    _without_broken(project)
    baseline = project / "device-types-baseline.json"
    written = run_check("--no-cache", "--write-baseline", str(baseline), "fw", cwd=project)
    assert written.returncode == 0 and written.stdout.startswith(f"wrote {len(marked(project))} findings")
    clean = run_check("--no-cache", "--baseline", str(baseline), "fw", cwd=project)
    assert clean.returncode == 0, clean.stdout
    assert clean.stdout.strip().endswith("check clean: no new fallback in 329 functions in 41 files")

    ops = project / MPS_OPS
    text = ops.read_text()
    # lines shift above every baselined finding, one new fallback arrives, one old one is fixed
    text = '"""Moved down by an unrelated edit."""\n\n\n' + text
    text = text.replace("    return from_numpy(np.arange(n), None, device)  # E: device-numpy",
                        "    return kernels.launch(\"arange\", n, device)")
    text += "\n\ndef exp(a):\n    return from_numpy(np.exp(to_numpy(a)), a.dtype, a.device)\n"
    ops.write_text(text)
    run = run_check("--no-cache", "--baseline", str(baseline), "fw", cwd=project)
    lines = run.stdout.splitlines()
    new = [line for line in lines if line.startswith("fw/")]
    assert len(new) == 1 and new[0].startswith(f"{MPS_OPS}:{len(text.splitlines())}: \"exp\" reads tensor data")
    assert [line for line in lines if line.startswith("fixed")] == [
        f'fixed (remove from the baseline): {MPS_OPS}: arange: numpy "arange()" [device-numpy]']
    assert run.returncode == 1


def test_malformed_baseline_is_one_line(project: Path) -> None:
    bad = project / "bl.json"
    bad.write_text("{not json")
    run = run_check("--no-cache", "--baseline", str(bad), "fw", cwd=project)
    assert run.returncode == 2
    assert run.stderr.strip().startswith("device-types check: error: baseline")
    assert "Traceback" not in run.stderr


def test_inventory_against_the_known_issues_table(project: Path) -> None:
    _without_broken(project)
    (project / "docs").mkdir()
    (project / "docs/known-kernel-issues.md").write_text(
        "| Op name | Backend | Error description | Composite workaround | Platform version | Status |\n"
        "|---|---|---|---|---|---|\n"
        "| `aten.relu` | mps | wrong sign of -0.0 | none yet (host) | macOS 15.3 | open |\n"
        "| `matmul` / `mm` | mps | crash on strided input | host BLAS | macOS 15.3 | open |\n"
    )
    markdown = run_check("--no-cache", "--inventory", "markdown", "fw/_backends/mps", cwd=project)
    assert markdown.returncode == 1
    assert "| `relu` | `relu` | 1 | fw/_backends/mps/ops.py:21 | line 3 |" in markdown.stdout
    assert "| `mm` | `mm` | 1 | fw/_backends/mps/ops.py:33 | line 4 |" in markdown.stdout
    assert "| `cumsum` | `cumsum` | 1 | fw/_backends/mps/ops.py:76 | **missing** (Rule 4) |" in markdown.stdout
    data = json.loads(run_check("--no-cache", "--inventory", "json", "fw/_backends/mps", cwd=project).stdout)
    assert data["backends"]["mps"]["matmul"]["row"] == 4
    assert data["ops_without_row"] == data["ops"] - 3


def test_cached_recheck_equals_cold_run(project: Path) -> None:
    _without_broken(project)
    cold = run_check("--no-cache", "fw", cwd=project).stdout
    first = run_check("fw", cwd=project).stdout
    assert (project / ".device_types_cache/index.json").is_file()
    ops = project / MPS_OPS
    ops.write_text(ops.read_text().replace("def softplus(x):\n    return kernels.log1p(kernels.exp(x))",
                                           "def softplus(x):\n    return from_numpy(np.log1p(np.exp(to_numpy(x))), x.dtype, x.device)"))
    after_edit = run_check("fw", cwd=project).stdout
    assert first == cold
    assert after_edit == run_check("--no-cache", "fw", cwd=project).stdout
    assert '"softplus" reads tensor data' in after_edit
    # an edit above every function moves them all: cached facts move with them
    ops.write_text('"""Two lines more."""\n\n' + ops.read_text())
    moved = run_check("fw", cwd=project).stdout
    assert moved == run_check("--no-cache", "fw", cwd=project).stdout
    assert f"{MPS_OPS}:23: \"relu\"" in moved


def test_corrupt_cache_is_a_cold_run(project: Path) -> None:
    _without_broken(project)
    cold = run_check("--no-cache", "fw", cwd=project).stdout
    (project / ".device_types_cache").mkdir()
    (project / ".device_types_cache/index.json").write_bytes(b"\x80\x05garbage")
    assert run_check("fw", cwd=project).stdout == cold
    # a module's file unreadable behind a good index: that module is read again
    blob = next(p for p in (project / ".device_types_cache").glob("fw._backends.mps.ops.*.json"))
    blob.write_bytes(b"\x80\x05garbage")
    (project / MPS_OPS).write_text((project / MPS_OPS).read_text() + "\n")
    assert run_check("fw", cwd=project).stdout == cold


def test_bad_input_gets_a_line_not_a_traceback(project: Path) -> None:
    (project / "fw/_backends/mps/binary.py").write_bytes(b"\x00\x01\x02")
    (project / "fw/_backends/mps/latin.py").write_bytes(b"x = '\xe9'\n")
    deep = "x = " + "(" * 300 + "1" + ")" * 300 + "\n"
    (project / "fw/_backends/mps/deep.py").write_text(deep)
    huge = project / "fw/_backends/mps/huge.py"
    huge.write_text("X = 1\n" * 800_000)
    run = run_check("--no-cache", "fw", cwd=project)
    assert run.returncode == 2
    assert "Traceback" not in run.stderr + run.stdout
    out = run.stdout
    assert ("fw/_backends/mps/binary.py:0: skipped: not a text file (it holds NUL bytes); "
            "run device-types explain device-unanalysed [device-unanalysed]") in out
    assert "fw/_backends/mps/huge.py:0: skipped:" in out
    assert "fw/_backends/mps/broken.py:1: syntax error" in out
    # the summary agrees with the exit status: files were left out
    assert out.splitlines()[-1].startswith("check incomplete: 5 files not analysed; ")
    # a cached re-check of the same files reports the same (the files were not opened again)
    assert run_check("fw", cwd=project).stdout == out
    again = run_check("fw", cwd=project)
    assert (again.returncode, again.stdout) == (2, out)


def test_a_path_that_does_not_exist_is_one_line_and_exit_2(project: Path) -> None:
    run = run_check("--no-cache", "fw", "no/such/dir", cwd=project)
    assert (run.returncode, run.stdout) == (2, "")
    assert run.stderr == ("device-types check: error: 'no/such/dir' does not exist; pass the files or "
                          "directories of the backend code\n")


def test_no_backend_module_is_one_line_and_exit_2(project: Path, tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    for where in (str(tmp_path / "empty"), "fw/__init__.py"):
        run = run_check("--no-cache", where, cwd=project)
        assert (run.returncode, run.stdout) == (2, ""), where
        assert run.stderr.startswith("device-types check: error: no backend module among the "), run.stderr
        assert run.stderr.count("\n") == 1


def test_sarif_validates_against_the_schema_with_code_flows(project: Path) -> None:
    from tests.sarif import sarif_errors

    _without_broken(project)
    sarif = json.loads(run_check("--no-cache", "--format", "sarif", "fw", cwd=project).stdout)
    assert sarif_errors(sarif) == []
    rules = {r["id"]: r for r in sarif["runs"][0]["tool"]["driver"]["rules"]}
    assert rules["device-indirect-fallback"]["shortDescription"]["text"] == (
        "Call of another backend function that falls back to the host")
    assert rules["device-indirect-fallback"]["help"]["text"].startswith("device-indirect-fallback: ")


def test_hops_become_json_and_sarif_code_flows() -> None:
    """The engine fills hops for indirect findings; the reporter writes them (schema-valid)."""
    from device_types._finding import Finding, Hop
    from device_types._report import Report, render
    from tests.sarif import sarif_errors

    hops = (Hop("fw/ops.py", 54, 14, "fw.ops.topk", 'calls "sort()"'),
            Hop("fw/ops.py", 40, 8, "fw.ops.sort", '.to("cpu")'))
    finding = Finding("fw/ops.py", 54, 14, "device-indirect-fallback", "m; run device-types explain x",
                      "fw.ops.topk", "mps", ("fw.ops.topk", "fw.ops.sort"), "fw.ops.sort()", hops,
                      "dtype == float64")
    report = Report("check", [finding], "check failed: 1 finding", {"findings": 1}, 1)
    data = json.loads(render(report, "json"))
    assert data["findings"][0]["hops"] == [
        {"path": "fw/ops.py", "line": 54, "column": 15, "function": "fw.ops.topk", "what": 'calls "sort()"'},
        {"path": "fw/ops.py", "line": 40, "column": 9, "function": "fw.ops.sort", "what": '.to("cpu")'}]
    assert data["findings"][0]["condition"] == "dtype == float64"
    sarif = json.loads(render(report, "sarif"))
    assert sarif_errors(sarif) == []
    result = sarif["runs"][0]["results"][0]
    flow = result["codeFlows"][0]["threadFlows"][0]["locations"]
    assert [step["location"]["physicalLocation"]["region"] for step in flow] == [
        {"startLine": 54, "startColumn": 15}, {"startLine": 40, "startColumn": 9}]
    assert [r["id"] for r in result["relatedLocations"]] == [0, 1]
    assert result["relatedLocations"][1]["message"]["text"] == 'sort: .to("cpu")'


def test_github_annotations_and_output_file(project: Path) -> None:
    _without_broken(project)
    out = project / "report.txt"
    run = run_check("--no-cache", "--format", "github", "--output", str(out), "fw/_backends/npu", cwd=project)
    assert run.returncode == 1
    lines = out.read_text().splitlines()
    assert lines[0].startswith("::error file=fw/_backends/npu/ops.py,line=14,col=")
    assert ",title=device-" in lines[0] and "; run device-types explain device-" in lines[0]
    assert lines[-1] == run.stdout.strip()  # the summary line is in the file and on stdout
    assert run.stdout.startswith("check failed: ")


def test_malformed_check_config(project: Path) -> None:
    (project / "pyproject.toml").write_text(
        '[tool.device_types]\nbackends = { "fw._backends.mps" = "mps" }\n\n'
        '[tool.device_types.check]\nreadbacks = "not.a list ok"\n'
    )
    run = run_check("fw", cwd=project)
    assert run.returncode == 2
    assert run.stderr.strip() == (
        "device-types check: error: pyproject.toml: [tool.device_types.check] readbacks: 'not.a list ok' "
        "is not a dotted name such as 'pkg.helpers.to_host'")
    (project / "pyproject.toml").write_text('[tool.device_types]\nbackends = { "fw._backends.mps" = "mps" }\n')
    unknown = run_check("--enable", "device-nonsense", "fw", cwd=project)
    assert unknown.returncode == 2 and "unknown error code 'device-nonsense'" in unknown.stderr


def test_output_does_not_depend_on_hash_seeds(project: Path) -> None:
    """Sets of origins are iterated in a fixed order: two processes print the same."""
    _without_broken(project)
    import os

    runs = set()
    for seed in ("1", "2", "3"):
        os.environ["PYTHONHASHSEED"] = seed
        try:
            runs.add(run_check("--no-cache", "fw", cwd=project).stdout)
        finally:
            del os.environ["PYTHONHASHSEED"]
    assert len(runs) == 1


def test_a_closed_pipe_is_not_a_traceback(project: Path) -> None:
    import subprocess
    import sys

    proc = subprocess.run(f"{sys.executable} -m device_types check --no-cache fw | head -c 0", shell=True,
                          cwd=project, capture_output=True, text=True,
                          env={**__import__("os").environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])})
    assert "Traceback" not in proc.stderr, proc.stderr


def test_a_backend_directory_without_init_inside_a_package_is_checked(tmp_path: Path) -> None:
    """PEP 420: ``pkg/_backends/mps/`` with no ``__init__.py`` still imports as
    ``pkg._backends.mps``; its files are named so, and the configured backend finds them."""
    (tmp_path / "pyproject.toml").write_text('[tool.device_types]\nbackends = { "pkg._backends.mps" = "mps" }\n')
    backend = tmp_path / "pkg/_backends/mps"
    backend.mkdir(parents=True)
    (tmp_path / "pkg/__init__.py").write_text("")
    (tmp_path / "pkg/_backends/__init__.py").write_text("")
    (backend / "ops.py").write_text("def add(a, b):\n    return from_numpy(a.cpu().numpy() + b.cpu().numpy())\n")
    run = run_check("--no-cache", "pkg", cwd=tmp_path)
    assert run.returncode == 1, run.stderr
    assert run.stdout.startswith('pkg/_backends/mps/ops.py:2: "add" reads tensor data to the host with ".cpu()" '
                                 "and computes its result there inside the mps backend (pkg._backends.mps);")
