"""``device-types lsp`` driven over stdio by a JSON-RPC client, as an editor drives it."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.links import follow
from tests.lsp.client import LspClient, uri
from tests.lsp.conftest import SORTING

OPS = "fw/_backends/mps/ops.py"
SORTING_PY = "fw/_backends/mps/sorting.py"
READBACK = "device-readback"
INDIRECT = "device-indirect-fallback"
UNANALYSED = "device-unanalysed"
#: sort() now sorts on the host: a fallback of sort, and of topk (another file) through it
HOST_SORTING = SORTING.replace("return a.sort()", "return from_numpy(np.sort(to_numpy(a)), a.dtype, a.device)")


@pytest.fixture
def server(project: Path) -> Iterator[LspClient]:
    client = LspClient(project)
    client.initialize(project)
    client.wait_runs(1)
    yield client
    if client.alive():
        client.close()


def cli_findings(root: Path) -> set[tuple[str, int, str, str]]:
    proc = subprocess.run([sys.executable, "-m", "device_types", "check", "--no-cache", "--format", "json"],
                          cwd=root, capture_output=True, text=True, timeout=600)
    assert proc.returncode in (0, 1), proc.stderr
    return {(f["path"], f["line"], f["code"], f["message"]) for f in json.loads(proc.stdout)["findings"]}


def server_findings(client: LspClient, root: Path) -> set[tuple[str, int, str, str]]:
    out = set()
    for file_uri, diagnostics in client.diagnostics.items():
        path = Path(file_uri.removeprefix("file://")).relative_to(root.resolve()).as_posix()
        out |= {(path, d["range"]["start"]["line"] + 1, d["code"], d["message"]) for d in diagnostics
                if d["data"]["kind"] == "check"}
    return out


def codes(diagnostics: list[dict]) -> list[tuple[int, str]]:
    return [(d["range"]["start"]["line"] + 1, d["code"]) for d in diagnostics]


def test_initialize_announces_what_the_server_does(project: Path) -> None:
    client = LspClient(project)
    try:
        capabilities = client.initialize(project)["capabilities"]
        assert capabilities["hoverProvider"] is True
        assert capabilities["textDocumentSync"]["change"] == 2  # incremental
        assert set(capabilities["executeCommandProvider"]["commands"]) == {
            "device-types.addToBaseline", "device-types.openLocation"}
    finally:
        assert client.close() == 0


def test_open_publishes_the_checks_finding_with_code_link_and_chain(server: LspClient, project: Path) -> None:
    server.open(project / OPS)
    server.wait_runs(2)
    [relu] = server.diagnostics_of(project / OPS)
    assert codes([relu]) == [(8, READBACK)]
    assert relu["range"]["start"] == {"line": 7, "character": 33}
    assert relu["message"].startswith('"relu" reads tensor data to the host with "to_numpy(a)"')
    # the link resolves, offline: the installed package's copy of the docs, at the code's section
    assert relu["codeDescription"]["href"].endswith("/errors.md#device-readback")
    follow(relu["codeDescription"]["href"])
    assert relu["source"] == "device-types" and relu["severity"] == 1
    assert [r["message"] for r in relu["relatedInformation"]] == ['1. relu: "to_numpy(a)"']
    assert server_findings(server, project) == cli_findings(project)


def test_an_edit_of_a_helper_republishes_its_callers_in_another_file(server: LspClient, project: Path) -> None:
    server.open(project / SORTING_PY)
    server.wait_runs(2)
    assert server.diagnostics_of(project / SORTING_PY) == []
    server.change(project / SORTING_PY, HOST_SORTING)
    server.wait_runs(3)
    assert codes(server.diagnostics_of(project / SORTING_PY)) == [(7, READBACK)]
    [readback, indirect] = server.diagnostics_of(project / OPS)  # not open: re-published all the same
    assert codes([readback, indirect]) == [(8, READBACK), (16, INDIRECT)]
    hops = [(r["location"]["uri"], r["location"]["range"]["start"]["line"] + 1, r["message"])
            for r in indirect["relatedInformation"]]
    assert hops == [
        (uri(project / OPS), 16, '1. topk: calls "sort()"'),
        (uri(project / SORTING_PY), 7, '2. sort: "to_numpy(a)" (the root)'),
    ]
    # the same engine: the CLI on the edited tree says the same
    (project / SORTING_PY).write_text(HOST_SORTING, encoding="utf-8")
    assert server_findings(server, project) == cli_findings(project)
    # hover on the call in topk now shows sort's fallback
    hover = server.request("textDocument/hover", {"textDocument": {"uri": uri(project / OPS)},
                                                  "position": {"line": 15, "character": 22}})
    assert "reads back to the host" in hover["contents"]["value"]
    assert "(line 7: \"to_numpy(a)\")" in hover["contents"]["value"]


def test_hover_shows_the_callees_summary(server: LspClient, project: Path) -> None:
    server.open(project / OPS)
    server.wait_runs(2)

    def hover(line: int, character: int) -> str | None:
        result = server.request("textDocument/hover", {"textDocument": {"uri": uri(project / OPS)},
                                                       "position": {"line": line, "character": character}})
        return None if result is None else result["contents"]["value"]

    assert hover(15, 22) == ("**device-types:** `sort` (`fw/_backends/mps/sorting.py:6`)\n\nstays on the device")
    assert hover(7, 40) == ("**device-types:** `to_numpy` (`fw/_backends/common/helpers.py:4`)\n\n"
                            "returns its first argument `a` read back to the host")
    assert hover(11, 10) is None  # `a + b`: no call


def test_code_actions_silence_baseline_and_open_the_root(project: Path) -> None:
    pyproject = project / "pyproject.toml"
    pyproject.write_text(pyproject.read_text() + '\n[tool.device_types.check]\nbaseline = "baseline.json"\n')
    (project / SORTING_PY).write_text(HOST_SORTING, encoding="utf-8")
    client = LspClient(project)
    try:
        client.initialize(project)
        client.wait_runs(1)
        # the baseline file does not exist yet: one diagnostic on pyproject.toml says so
        [missing] = client.diagnostics_of(pyproject)
        assert "baseline" in missing["message"] and "does not exist" in missing["message"]
        (project / "baseline.json").write_text('{"format": "device-types-baseline", "version": 1, "entries": []}\n')
        client.open(project / OPS)
        client.wait_runs(2)
        assert client.diagnostics_of(pyproject) == []
        readback, indirect = client.diagnostics_of(project / OPS)
        actions = client.request("textDocument/codeAction", {
            "textDocument": {"uri": uri(project / OPS)}, "range": indirect["range"],
            "context": {"diagnostics": [indirect]}})
        titles = [a["title"] for a in actions]
        assert titles == [
            f"Silence {INDIRECT} on this line (# device-types: ignore[{INDIRECT}])",
            "Add this finding to the baseline (baseline.json)",
            "Open the chain's root (fw/_backends/mps/sorting.py:7)",
        ]
        silence, baseline, root = actions
        [edit] = silence["edit"]["changes"][uri(project / OPS)]
        assert edit["newText"] == f"  # device-types: ignore[{INDIRECT}]"
        assert edit["range"]["start"] == {"line": 15, "character": len("    values = sorting.sort(a)")}
        # open the root: the server asks the editor to show sort's def
        client.request("workspace/executeCommand", {"command": root["command"]["command"],
                                                    "arguments": root["command"]["arguments"]})
        assert client.show_document[-1]["uri"] == uri(project / SORTING_PY)
        assert client.show_document[-1]["selection"]["start"]["line"] == 6
        # the baseline: the entry is written and the finding is gone
        client.request("workspace/executeCommand", {"command": baseline["command"]["command"],
                                                    "arguments": baseline["command"]["arguments"]})
        entries = json.loads((project / "baseline.json").read_text())["entries"]
        assert [(e["path"], e["function"], e["code"]) for e in entries] == [(OPS, "topk", INDIRECT)]
        client.wait(lambda: codes(client.diagnostics_of(project / OPS)) == [(8, READBACK)], 30, "the baselined finding gone")
        # silence: the editor applies the edit; the finding on that line goes away
        lines = (project / OPS).read_text().splitlines()
        [edit] = client.request("textDocument/codeAction", {
            "textDocument": {"uri": uri(project / OPS)}, "range": readback["range"],
            "context": {"diagnostics": [readback]}})[0]["edit"]["changes"][uri(project / OPS)]
        row = edit["range"]["start"]["line"]
        lines[row] = lines[row][:edit["range"]["start"]["character"]] + edit["newText"]
        client.change(project / OPS, "\n".join(lines) + "\n")
        client.wait(lambda: client.diagnostics_of(project / OPS) == [], 30, "the silenced finding gone")
    finally:
        assert client.close() == 0


def test_a_broken_config_is_one_diagnostic_and_a_fix_clears_it(project: Path) -> None:
    pyproject = project / "pyproject.toml"
    good = pyproject.read_text()
    pyproject.write_text(good.replace('"mps" }', '"gpu" }'))
    client = LspClient(project)
    try:
        client.initialize(project)
        client.wait_runs(1)
        [broken] = client.diagnostics_of(pyproject)
        assert broken["code"] == "device-config" and broken["range"]["start"]["line"] == 3
        assert "gpu" in broken["message"]
        assert any("configuration error" in line for line in client.logs)
        pyproject.write_text(good.replace('"mps" }', '"mps" }\nstrict = "maybe"'))
        client.notify("workspace/didChangeWatchedFiles", {"changes": [{"uri": uri(pyproject), "type": 2}]})
        client.wait_runs(2)
        [broken] = client.diagnostics_of(pyproject)
        assert "strict" in broken["message"]
        pyproject.write_text(good)
        client.notify("textDocument/didSave", {"textDocument": {"uri": uri(pyproject)}})
        client.wait_runs(3)
        assert client.diagnostics_of(pyproject) == []
        assert codes(client.diagnostics_of(project / OPS)) == [(8, READBACK)]
    finally:
        assert client.close() == 0


def test_a_syntax_error_mid_edit_is_one_diagnostic_and_the_server_goes_on(server: LspClient, project: Path) -> None:
    text = (project / OPS).read_text()
    server.open(project / OPS)
    server.wait_runs(2)
    server.change(project / OPS, text.replace("def add(a, b):", "def add(a, b:"))
    server.wait_runs(3)
    [error] = server.diagnostics_of(project / OPS)
    assert error["code"] == UNANALYSED and error["range"]["start"]["line"] == 10
    assert error["message"].startswith("syntax error, file not analysed")
    server.change(project / OPS, text, version=3)
    server.wait_runs(4)
    assert codes(server.diagnostics_of(project / OPS)) == [(8, READBACK)]


def test_a_non_utf8_file_is_one_diagnostic(project: Path) -> None:
    latin = project / "fw/_backends/mps/latin.py"
    latin.write_bytes(b"# caf\xe9\ndef f(a):\n    return a\n")
    client = LspClient(project)
    try:
        client.initialize(project)
        client.wait_runs(1)
        [bad] = client.diagnostics_of(latin)
        assert bad["code"] == UNANALYSED and bad["message"] == "not valid utf-8 (byte 0xe9 on line 1), file not analysed"
        assert codes(client.diagnostics_of(project / OPS)) == [(8, READBACK)]
    finally:
        assert client.close() == 0


def test_a_malformed_message_leaves_the_server_running(server: LspClient, project: Path) -> None:
    server.send_raw(b"{this is not json")
    server.send_raw(json.dumps({"jsonrpc": "2.0", "id": 99, "method": "textDocument/hover",
                                "params": {"textDocument": 5}}).encode())
    server.wait(lambda: sum("ignored a malformed message" in line for line in server.logs) == 2, 30,
                "a log line per malformed message")
    assert b"Traceback" not in server.stderr
    server.open(project / OPS)
    server.wait_runs(2)
    assert server.alive()
    assert codes(server.diagnostics_of(project / OPS)) == [(8, READBACK)]


def test_audit_findings_on_markers_and_the_known_issues_document(project: Path) -> None:
    docs = project / "docs/known-kernel-issues.md"
    docs.parent.mkdir()
    docs.write_text("# Known kernel issues\n\n| Op name | Backend | Error description | Composite workaround | "
                    "Platform version | Status |\n|---|---|---|---|---|---|\n")
    ops = project / OPS
    ops.write_text(ops.read_text().replace(
        "def add(a, b):\n", "def add(a, b):\n    # TODO: re-enable native kernel when macOS 15 fixes FB1234\n"))
    client = LspClient(project)
    try:
        client.initialize(project)
        client.wait_runs(1)
        audit = [d for d in client.diagnostics_of(ops) if d["data"]["kind"] == "audit"]
        assert [(d["range"]["start"]["line"] + 1, d["code"]) for d in audit] == [
            (12, "audit-missing-row"), (12, "audit-unguarded-marker")]
        proc = subprocess.run([sys.executable, "-m", "device_types", "audit", "--format", "json"], cwd=project,
                              capture_output=True, text=True, timeout=120)
        cli = {(f["path"], f["line"], f["code"], f["message"]) for f in json.loads(proc.stdout)["findings"]}
        served = {(Path(u.removeprefix("file://")).relative_to(project.resolve()).as_posix(),
                   d["range"]["start"]["line"] + 1, d["code"], d["message"])
                  for u, ds in client.diagnostics.items() for d in ds if d["data"]["kind"] == "audit"}
        assert served == cli and len(cli) == 2
        for diagnostic in audit:  # every link the server emits resolves, audit codes too
            follow(diagnostic["codeDescription"]["href"])
    finally:
        assert client.close() == 0


def test_shutdown_writes_the_cache_the_cli_then_uses(server: LspClient, project: Path) -> None:
    assert server.close() == 0
    assert (project / ".device_types_cache/index.json").is_file()
    proc = subprocess.run([sys.executable, "-m", "device_types", "check"], cwd=project, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 1 and "1 finding" in proc.stdout


def test_a_new_file_opened_is_checked(server: LspClient, project: Path) -> None:
    new = project / "fw/_backends/mps/extra.py"
    new.write_text("from ..common.helpers import from_numpy, to_numpy\n\n\n"
                   "def neg(a):\n    return from_numpy(-to_numpy(a), a.dtype, a.device)\n", encoding="utf-8")
    server.open(new)
    server.wait_runs(2)
    assert codes(server.diagnostics_of(new)) == [(5, READBACK)]


def test_hover_says_when_a_helper_falls_back(project: Path) -> None:
    (project / SORTING_PY).write_text(SORTING.replace("def sort(a):\n    return a.sort()", (
        'def sort(a, op):\n    if op == "host":\n'
        "        return from_numpy(np.sort(to_numpy(a)), a.dtype, a.device)\n    return a.sort()")), encoding="utf-8")
    client = LspClient(project)
    try:
        client.initialize(project)
        client.wait_runs(1)
        hover = client.request("textDocument/hover", {"textDocument": {"uri": uri(project / OPS)},
                                                      "position": {"line": 15, "character": 22}})
        assert hover["contents"]["value"] == (
            "**device-types:** `sort` (`fw/_backends/mps/sorting.py:6`)\n\n"
            'reads back to the host (line 8: "to_numpy(a)") when op == "host" [`device-readback`]')
        # (what ``from_numpy(..., a.device)`` returns is made on the device: not "returns `a` read back")
    finally:
        assert client.close() == 0
