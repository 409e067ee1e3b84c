"""Every link the product emits resolves, offline, to an existing page and anchor: the
``docs:`` line of ``device-types explain``, SARIF's ``helpUri`` and ``informationUri`` (the
language server's ``codeDescription``: tests/lsp/test_server.py). By default they point at the
installed package's copy of docs/; ``docs_url`` / ``DEVICE_TYPES_DOCS_URL`` point them elsewhere."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

from device_types import _codes, _links
from tests.links import follow

ROOT = Path(__file__).resolve().parents[2]


def _cli(*args: str, cwd: Path = ROOT, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    environ = {k: v for k, v in os.environ.items() if k != _links.ENV}
    return subprocess.run([sys.executable, "-m", "device_types", *args], cwd=cwd, capture_output=True, text=True,
                          env={**environ, "PYTHONPATH": str(ROOT), **(env or {})})


def test_every_explain_link_resolves() -> None:
    for code in _codes.ALL:
        last = _codes.explain(code).splitlines()[-1]
        assert last.startswith("docs: file://"), last
        assert follow(last.removeprefix("docs: ")) == ROOT / "docs" / "errors.md"
    shown = _cli("explain", "device-readback")
    assert shown.stdout.splitlines()[-1] == f"docs: {(ROOT / 'docs' / 'errors.md').as_uri()}#device-readback"


def _project(root: Path, extra: str = "") -> Path:
    files = {
        "pyproject.toml": f'[tool.device_types]\nbackends = {{ "fw._backends.mps" = "mps" }}\n{extra}',
        "fw/__init__.py": "", "fw/_backends/__init__.py": "", "fw/_backends/mps/__init__.py": "",
        "fw/_backends/mps/ops.py": textwrap.dedent("""\
            import numpy as np


            def to_numpy(a):
                return a._numpy_view()


            def cumsum(a):
                return a.device.upload(np.cumsum(to_numpy(a)))


            def logcumsumexp(a):
                return cumsum(a.exp()).log()
            """),
        "fw/_backends/mps/broken.py": "def broken(:\n",
        "docs/known-kernel-issues.md": "# Known kernel issues\n\n| Op name | Backend | Error description | "
                                       "Composite workaround | Platform version | Status |\n|---|---|---|---|---|---|\n"
                                       "| aten.sort | mps | crash | bmm | macOS 15 | open (workaround active) |\n",
    }
    for relative, text in files.items():
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_text(text)
    return root


def _sarif_links(run: subprocess.CompletedProcess[str]) -> list[str]:
    driver = json.loads(run.stdout)["runs"][0]["tool"]["driver"]
    return [driver["informationUri"], *(rule["helpUri"] for rule in driver["rules"])]


def test_every_sarif_link_resolves(tmp_path: Path) -> None:
    project = _project(tmp_path)
    check = _cli("check", "--no-cache", "--format", "sarif", ".", cwd=project)
    audit = _cli("audit", "--format", "sarif", cwd=project)
    links = _sarif_links(check) + _sarif_links(audit)
    rules = {link.rpartition("#")[2] for link in links if "#" in link}
    # a readback, an indirect fallback, a file that does not parse, an orphan row
    assert rules == {"device-readback", "device-indirect-fallback", "device-unanalysed", "audit-orphan-row"}
    for link in links:
        follow(link)


def test_a_configured_base_url_or_the_environment_moves_every_link(tmp_path: Path) -> None:
    project = _project(tmp_path, 'docs_url = "https://example.org/device-types/docs/"\n')
    links = _sarif_links(_cli("check", "--no-cache", "--format", "sarif", ".", cwd=project))
    assert "https://example.org/device-types/docs/errors.md#device-readback" in links
    assert all(link.startswith("https://example.org/device-types/docs/") for link in links)
    elsewhere = _cli("check", "--no-cache", "--format", "sarif", ".", cwd=project,
                     env={_links.ENV: "file:///srv/docs"})
    assert "file:///srv/docs/errors.md#device-readback" in _sarif_links(elsewhere)
    explained = _cli("explain", "device-readback", env={_links.ENV: "https://example.org/d"})
    assert explained.stdout.splitlines()[-1] == "docs: https://example.org/d/errors.md#device-readback"
    in_project = _cli("explain", "device-readback", cwd=project)
    assert in_project.stdout.splitlines()[-1] == "docs: https://example.org/device-types/docs/errors.md#device-readback"
    rule = json.loads(_cli("check", "--no-cache", "--format", "sarif", ".", cwd=project).stdout)["runs"][0]["tool"][
        "driver"]["rules"][0]
    assert rule["help"]["text"].endswith(f"\ndocs: {rule['helpUri']}")
