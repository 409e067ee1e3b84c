"""The language server answers every request (a result or an LSP error), reads a crafted
cache without running it, and gives a new, unsaved file its diagnostics."""

from __future__ import annotations

import json
import os
import pickle
import time
from pathlib import Path
from typing import Any

import pytest

from tests.lsp.client import LspClient, uri
from tests.reliability import pathological as gen
from tests.reliability.conftest import ENGINE

OPS = "fw/_backends/mps/ops.py"


@pytest.fixture
def server(project: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.setenv("PYTHONPATH", str(ENGINE))
    client = LspClient(project)
    client.initialize(project)
    client.wait_runs(1)
    yield client
    client.close()


def _raw_request(client: LspClient, ident: int, method: str, params: Any, timeout: float = 20) -> dict[str, Any] | None:
    client._send({"id": ident, "method": method, "params": params})
    with client._cond:
        if not client._cond.wait_for(lambda: ident in client._responses, timeout):
            return None
        return client._responses.pop(ident)


@pytest.mark.parametrize(("method", "params"), [
    ("textDocument/hover", 5),
    ("textDocument/codeAction", 5),
    ("textDocument/hover", {"textDocument": {"uri": "OPS"}, "position": {"line": -1, "character": 0}}),
    ("textDocument/hover", {"textDocument": {"uri": "OPS"}, "position": {"line": 3, "character": -5}}),
])
def test_a_request_with_bad_params_gets_an_error_answer(server: LspClient, project: Path, method: str,
                                                        params: Any) -> None:
    if isinstance(params, dict):
        params = json.loads(json.dumps(params).replace('"OPS"', json.dumps(uri(project / OPS))))
    answer = _raw_request(server, 7001, method, params)
    assert answer is not None, "never answered"
    assert answer["error"]["code"] == -32602
    assert answer["error"]["message"].startswith(f"invalid params for {method}: ")
    assert server.alive()


def test_a_new_unsaved_file_gets_diagnostics(server: LspClient, project: Path) -> None:
    new = project / "fw/_backends/mps/not_saved_yet.py"
    text = gen.with_line_breaks("\n").decode()
    server.open(new, text)
    server.wait(lambda: server.diagnostics.get(uri(new)), 60, "diagnostics of the unsaved file")
    [diagnostic] = server.diagnostics_of(new)
    assert (diagnostic["range"]["start"]["line"], diagnostic["code"]) == (6, "device-readback")
    assert not new.exists()


class _Payload:
    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[object, ...]:
        return (os.system, (f"touch {self.marker}",))


def test_the_server_runs_nothing_from_a_crafted_cache(project: Path, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTHONPATH", str(ENGINE))
    marker = tmp_path / "ran"
    cache = project / ".device_types_cache"
    cache.mkdir()
    for name in ("index.pickle", "index.json"):
        (cache / name).write_bytes(pickle.dumps(_Payload(marker)))
    client = LspClient(project)
    try:
        client.initialize(project)
        client.wait_runs(1)
        time.sleep(0.5)
        assert not marker.exists(), "the language server ran the cache's code"
        assert [d["code"] for d in client.diagnostics_of(project / OPS)]
    finally:
        client.close()


def test_memory_stays_bounded_under_edits(tmp_path: Path) -> None:
    """Each run's reference cycles are freed (they were frozen, for good: about 16 MB an edit
    on this 3,000-function buffer). ``benchmarks/lsp_memory.py`` measures it at 10,000."""
    import subprocess
    import sys

    bench = Path(__file__).resolve().parents[2] / "benchmarks" / "lsp_memory.py"
    proc = subprocess.run([sys.executable, str(bench), "--functions", "3000", "--edits", "8"], capture_output=True,
                          text=True, env={**os.environ, "BENCH_ENGINE": str(ENGINE)}, timeout=300)
    assert proc.returncode in (0, 1), proc.stderr
    rss = [float(line.rsplit("RSS ", 1)[1].split()[0]) for line in proc.stdout.splitlines() if "  edit " in line]
    assert len(rss) == 8
    assert rss[-1] - rss[0] < 30, proc.stdout  # MB: the first edit's level, give or take the allocator
