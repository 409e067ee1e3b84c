"""The editor snippets of docs/ci-and-ide.md run in the editors they name.

Neovim: the page's ``lua`` block is the ``init.lua`` of a headless Neovim of the version the
page names (Debian's package, 0.7; ``make test`` installs it), which opens a backend file of a
small project; the test reads the diagnostics back from the editor (``vim.diagnostic.get``)
and compares them with what ``device-types check`` prints. A missing or other editor fails,
never skips. Helix has no package on this machine image: its block is only parsed.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.lsp.conftest import OPS

ROOT = Path(__file__).resolve().parents[2]
PAGE = (ROOT / "docs" / "ci-and-ide.md").read_text(encoding="utf-8")
OPS_PY = "fw/_backends/mps/ops.py"
#: Reads the diagnostics of the opened buffer once the server published them, then quits.
DRIVER = r"""
local ok = vim.wait(60000, function() return #vim.diagnostic.get(0) > 0 end, 100)
local out = {}
for _, d in ipairs(vim.diagnostic.get(0)) do
  table.insert(out, { line = d.lnum + 1, code = d.code, message = d.message, source = d.source })
end
local clients = {}
for _, c in pairs(vim.lsp.get_active_clients()) do
  table.insert(clients, { name = c.name, root = c.config.root_dir })
end
local f = io.open(vim.env.DT_OUT, "w")
f:write(vim.fn.json_encode({ waited = ok, diagnostics = out, clients = clients }))
f:close()
vim.cmd("qa!")
"""


def _section(title: str) -> str:
    start = PAGE.index(f"### {title}\n")
    end = PAGE.find("\n### ", start + 1)
    return PAGE[start:end if end > 0 else None]


def _block(title: str, lang: str) -> str:
    (block,) = re.findall(rf"```{lang}\n(.*?)```", _section(title), re.DOTALL)
    return block


def _named_version(title: str) -> str:
    match = re.search(r"Neovim (\d+\.\d+) or later", _section(title))
    assert match, "the Neovim section names no version"
    return match[1]


def test_the_neovim_snippet_gives_the_checks_diagnostics(project: Path, tmp_path: Path) -> None:
    nvim = shutil.which("nvim")
    assert nvim, "Neovim is not installed: make test installs Debian's package (apt-get install neovim)"
    version = subprocess.run([nvim, "--version"], capture_output=True, text=True, check=True).stdout.splitlines()[0]
    named = _named_version("Neovim")
    assert version.startswith(f"NVIM v{named}."), f"the docs name Neovim {named}, this is {version}"
    init = tmp_path / "init.lua"
    init.write_text(_block("Neovim", "lua"), encoding="utf-8")
    driver = tmp_path / "driver.lua"
    driver.write_text(DRIVER, encoding="utf-8")
    out = tmp_path / "out.json"
    # the snippet starts `device-types lsp` from PATH, as an editor would: this environment's
    bin_dir = str(Path(sys.executable).parent)
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}", "DT_OUT": str(out),
           "XDG_CONFIG_HOME": str(tmp_path / "config"), "XDG_DATA_HOME": str(tmp_path / "data"),
           "XDG_STATE_HOME": str(tmp_path / "state"), "XDG_CACHE_HOME": str(tmp_path / "cache")}
    run = subprocess.run([nvim, "--headless", "-n", "-i", "NONE", "-u", str(init), "-c", f"luafile {driver}",
                          OPS_PY], cwd=project, env=env, capture_output=True, text=True, timeout=180)
    assert out.is_file(), f"Neovim wrote no result (exit {run.returncode}):\n{run.stdout}\n{run.stderr}"
    result = json.loads(out.read_text())
    assert result["clients"] == [{"name": "device-types", "root": str(project)}]
    shown = [(d["line"], d["code"], d["message"]) for d in result["diagnostics"]]
    cli = subprocess.run([sys.executable, "-m", "device_types", "check", "--no-cache", "--format", "json"], cwd=project,
                         capture_output=True, text=True, timeout=180)
    expected = [(f["line"], f["code"], f["message"]) for f in json.loads(cli.stdout)["findings"] if f["path"] == OPS_PY]
    assert shown == expected and [line for line, _, _ in shown] == [8]  # relu's readback
    assert {d["source"] for d in result["diagnostics"]} == {"device-types"}
    assert "def relu(a):" in OPS.splitlines()[6]


def test_the_helix_block_starts_the_server_for_python() -> None:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib

    config = tomllib.loads(_block("Helix", "toml"))
    assert config["language-server"]["device-types"] == {"command": "device-types", "args": ["lsp"]}
    (python,) = config["language"]
    assert python["name"] == "python" and "device-types" in python["language-servers"]


def test_the_vs_code_settings_start_the_server() -> None:
    settings = json.loads(_block("VS Code", "json"))
    assert settings["glspc.server.command"] == "device-types" and settings["glspc.server.commandArguments"] == ["lsp"]
