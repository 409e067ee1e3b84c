"""The mypy plugin (``device_types_mypy``) against case files with expected output.

Case files under ``cases/`` state every expected mypy message in a trailing comment,
``# E: <message>  [<code>]`` for errors and ``# N: <message>`` for notes (several per
line allowed). The whole case package is checked in ONE mypy run with
``cases/pyproject.toml``, which maps ``pkg._backends.mps`` and ``pkg._backends.cuda`` to
backends; the output must match the comments exactly (file, line, message, code).
Configuration errors, the INI form, cache invalidation and the daemon run on tiny
projects that import numpy only, except the daemon test, which needs torch.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from device_types_mypy import errorcodes

HERE = Path(__file__).resolve().parent
CASES = HERE / "cases"
REPO = HERE.parents[1]
BIN = Path(sys.executable).parent
#: Shared across sessions: torch's own modules stay warm between runs.
CACHE = REPO / ".mypy_cache" / "device-types-plugin-tests"

MARKER = re.compile(r"  # ([EN]): ")
OUTPUT = re.compile(r"^(?P<file>[^:]+):(?P<line>\d+): (?P<severity>error|note): (?P<message>.*?)(?:  \[(?P<code>[a-z-]+)\])?$")


needs_overlay = pytest.mark.usefixtures("fresh_overlay")


#: The plugin's own exceptions propagate in tests (in use, a bug degrades to "unknown device").
ENV = {**os.environ, "MYPY_FORCE_COLOR": "0", "NO_COLOR": "1", "DEVICE_TYPES_MYPY_STRICT": "1"}


def run_mypy(cwd: Path, *args: str, cache: str = "main") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--no-pretty", "--no-error-summary", "--cache-dir", str(CACHE / cache), *args],
        cwd=cwd, capture_output=True, text=True, env=ENV,
    )


def expected_messages(root: Path) -> list[tuple[str, int, str, str, str | None]]:
    expected = []
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        for lineno, text in enumerate(path.read_text().splitlines(), 1):
            pieces = MARKER.split(text)
            for kind, body in zip(pieces[1::2], pieces[2::2]):
                match = re.fullmatch(r"(.*?)(?:  \[([a-z-]+)\])?", body.rstrip())
                assert match is not None
                severity = "error" if kind == "E" else "note"
                expected.append((rel, lineno, severity, match[1], match[2]))
    return sorted(expected)


def parse_output(stdout: str) -> list[tuple[str, int, str, str, str | None]]:
    found = []
    for line in stdout.splitlines():
        match = OUTPUT.match(line)
        assert match is not None, f"unexpected mypy output line: {line!r}"
        found.append((match["file"], int(match["line"]), match["severity"], match["message"], match["code"]))
    return sorted(found)


@pytest.fixture(scope="session")
def case_run(tmp_path_factory: pytest.TempPathFactory, fresh_overlay: None) -> tuple[Path, subprocess.CompletedProcess[str]]:
    root = tmp_path_factory.mktemp("cases")
    shutil.copytree(CASES, root, dirs_exist_ok=True)
    return root, run_mypy(root, "-p", "pkg")


def write_project(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    return root


# --- the case package ------------------------------------------------------------------------


def test_case_output_matches_comments(case_run: tuple[Path, subprocess.CompletedProcess[str]]) -> None:
    root, proc = case_run
    assert "Traceback" not in proc.stderr + proc.stdout
    assert proc.returncode == 1, proc.stderr
    assert parse_output(proc.stdout) == expected_messages(root)


@pytest.fixture(scope="session")
def per_call_run(tmp_path_factory: pytest.TempPathFactory, fresh_overlay: None) -> subprocess.CompletedProcess[str]:
    """The case package under the plugin's per-call dispatch (what dmypy runs)."""
    root = tmp_path_factory.mktemp("cases-per-call")
    shutil.copytree(CASES, root, dirs_exist_ok=True)
    config = root / "pyproject.toml"
    shipped = 'plugins = ["device_types_mypy"]'
    assert shipped in config.read_text()
    config.write_text(config.read_text().replace(shipped, f"plugins = [{str(HERE / 'percall.py')!r}]"))
    return run_mypy(root, "-p", "pkg", cache="per-call")


CONDITION_SYNC = "a tensor condition waits for the device"


def _devices_in_order_of_mention(message: str) -> str:
    # mypy tries an operator's reflected method first in some cases; a per-call hook then
    # sees the right operand first, the module pass always sees source order
    return re.sub(r"mixes tensors on (.+?) inside", lambda m: f"mixes tensors on {sorted(m[1].split(' and '))} inside", message)


def test_per_call_and_per_module_dispatch_report_the_same(
    case_run: tuple[Path, subprocess.CompletedProcess[str]], per_call_run: subprocess.CompletedProcess[str],
) -> None:
    _, per_module = case_run
    assert "Traceback" not in per_call_run.stderr + per_call_run.stdout
    found = {
        name: [(f, line, sev, _devices_in_order_of_mention(msg), code) for f, line, sev, msg, code in parse_output(proc.stdout)]
        for name, proc in (("per call", per_call_run), ("per module", per_module))
    }
    # Only the module pass sees (docs/plugin.md) a tensor used as a condition (``if t:``
    # reaches no mypy hook) and an operator with an ``Any`` operand (mypy resolves the
    # overloaded operator to Any without calling its hook): dmypy does not report them.
    # Every other finding is shared.
    pass_only = [f for f in found["per module"]
                 if f[3].startswith(CONDITION_SYNC) or (f[4] == "device-unknown-operand" and "(Any)" in f[3])]
    assert [(f[0], f[1]) for f in pass_only] == [("pkg/_backends/mps/syncs.py", line) for line in (14, 16, 18, 19, 20)] + [
        ("pkg/_backends/mps/unknown_operand.py", 17), ("pkg/_backends/mps/unknown_operand.py", 22)]
    assert found["per call"] == [f for f in found["per module"] if f not in pass_only]
    assert len(found["per module"]) == len(expected_messages(CASES))


def test_dmypy_uses_the_per_call_dispatch() -> None:
    from mypy.options import Options

    from device_types_mypy.main import DeviceTypesPlugin

    options = Options()
    options.config_file = str(CASES / "pyproject.toml")
    assert DeviceTypesPlugin(options).per_call is False
    options.fine_grained_incremental = True
    assert DeviceTypesPlugin(options).per_call is True


CONTEXT_MODULE = """\
import torch


class Kernel:
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + torch.arange(3)


def helper(x: torch.Tensor) -> torch.Tensor:
    return x * torch.ones(2)
"""


def test_pass_findings_are_filed_under_their_function(tmp_path: Path) -> None:
    # The module pass reports after mypy has left the module; it files each finding under
    # its function and class as a per-call hook would (what --show-error-context prints,
    # and the target dmypy and mypy's error sorting use). The case configuration keeps
    # torch's cached modules valid.
    shutil.copy(CASES / "pyproject.toml", tmp_path / "pyproject.toml")
    write_project(tmp_path, {
        "pkg/__init__.py": "", "pkg/_backends/__init__.py": "", "pkg/_backends/mps/__init__.py": "",
        "pkg/_backends/mps/k.py": CONTEXT_MODULE,
    })
    proc = run_mypy(tmp_path, "--show-error-context", "-p", "pkg")
    where = "inside the mps backend (pkg._backends.mps); create it on mps (device=x.device); run device-types explain device-cpu-operand  [device-cpu-operand]"
    assert proc.stdout.splitlines() == [
        'pkg/_backends/mps/k.py: note: In member "forward" of class "Kernel":',
        f'pkg/_backends/mps/k.py:6: error: "+" consumes a CPU tensor (created by "arange()" without device=) {where}',
        'pkg/_backends/mps/k.py: note: In function "helper":',
        f'pkg/_backends/mps/k.py:10: error: "*" consumes a CPU tensor (created by "ones()" without device=) {where}',
    ]


def test_every_policy_code_is_exercised_by_a_case() -> None:
    codes = {code for *_, code in expected_messages(CASES) if code}
    plugin_codes = {code.code for code in errorcodes.ALL_CODES}
    # device-config is exercised by the configuration tests below.
    assert plugin_codes - {"device-config"} <= codes


def test_no_policy_error_outside_backends_or_in_composites(
    case_run: tuple[Path, subprocess.CompletedProcess[str]],
) -> None:
    _, proc = case_run
    for file, _, _, _, code in parse_output(proc.stdout):
        if file in {"pkg/outside.py", "pkg/_backends/mps/clean.py"}:
            # mypy's own errors may stand there (a refined type against a declared one)
            assert not (code or "").startswith("device-") or code == "device-unknown-device", (file, code)


def test_type_ignore_silences_each_code(case_run: tuple[Path, subprocess.CompletedProcess[str]]) -> None:
    # cases/pyproject.toml sets warn_unused_ignores: an ignore the plugin did not need
    # would show up as an error, a code it did not silence as the policy error itself.
    # bare.py's come from per-call hooks, sites.py's from the module pass (which runs
    # before mypy looks for unused ignores).
    root, proc = case_run
    reported = {(file, line) for file, line, *_ in parse_output(proc.stdout)}
    for case, count in (("pkg/_backends/mps/kernels/bare.py", 2), ("pkg/_backends/mps/sites.py", 1)):
        source = (root / case).read_text().splitlines()
        silenced = [i for i, text in enumerate(source, 1) if "# type: ignore[device-" in text]
        assert len(silenced) == count, case
        assert not {(case, line) for line in silenced} & reported


def test_docs_list_every_code() -> None:
    text = (REPO / "docs" / "errors.md").read_text()
    for code in errorcodes.ALL_CODES:
        assert f"## {code.code}" in text, code.code


# --- configuration -----------------------------------------------------------------------------

NUMPY_MODULE = """\
import numpy as np


def f() -> None:
    np.zeros(3)
"""
NUMPY_ERROR = (
    'numpy "zeros" computes on host (numpy) data inside the mps backend (pkg.b); use the torch op on mps '
    "tensors instead; run device-types explain device-numpy  [device-numpy]"
)


@pytest.mark.parametrize(
    ("backends", "fragment"),
    [
        ('{ "pkg.b" = "gpu" }', "backends.'pkg.b': unknown backend device 'gpu'; use one of cuda, mps, npu, xpu"),
        ('{ "pkg.b" = 3 }', "backends.'pkg.b': the device must be a string, one of cuda, mps, npu, xpu"),
        ('{ "pkg" = "mps", "pkg.b" = "cuda" }', "backends.'pkg.b' (cuda) lies inside backends.'pkg' (mps)"),
        ('{ "pkg.b" = "cpu" }', "unknown backend device 'cpu' (the host is never a backend)"),
        ('"pkg.b"', "backends must be a table of module prefix -> device"),
    ],
)
def test_malformed_toml_config_is_one_clean_error(tmp_path: Path, backends: str, fragment: str) -> None:
    write_project(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/b.py": NUMPY_MODULE,
        "pyproject.toml": f'[tool.mypy]\nplugins = ["device_types_mypy"]\n\n[tool.device_types]\nbackends = {backends}\n',
    })
    proc = run_mypy(tmp_path, "-p", "pkg", cache="config")
    lines = (proc.stdout + proc.stderr).strip().splitlines()
    assert proc.returncode == 2
    assert len(lines) == 1, lines
    assert lines[0].startswith("pyproject.toml: error: [tool.device_types] ")
    assert lines[0].endswith("  [device-config]")
    assert fragment in lines[0]


def test_malformed_ini_config_is_one_clean_error(tmp_path: Path) -> None:
    write_project(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/b.py": NUMPY_MODULE,
        "mypy.ini": "[mypy]\nplugins = device_types_mypy\n\n[device_types]\nbackends = pkg.b = tpu\n",
    })
    proc = run_mypy(tmp_path, "-p", "pkg", cache="config")
    assert proc.returncode == 2
    assert (proc.stdout + proc.stderr).strip().splitlines() == [
        "mypy.ini: error: [device_types] backends.'pkg.b': unknown backend device 'tpu'; "
        "use one of cuda, mps, npu, xpu; run device-types explain device-config  [device-config]"
    ]


def test_ini_config_maps_backends(tmp_path: Path) -> None:
    write_project(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/b.py": NUMPY_MODULE,
        "pkg/c.py": NUMPY_MODULE,
        "mypy.ini": "[mypy]\nplugins = device_types_mypy\n\n[device_types]\nbackends =\n    pkg.b = mps\n",
    })
    proc = run_mypy(tmp_path, "-p", "pkg", cache="config")
    assert proc.stdout.splitlines() == [f"pkg/b.py:5: error: {NUMPY_ERROR}"]


def test_config_change_invalidates_cached_results(tmp_path: Path) -> None:
    files = {"pkg/__init__.py": "", "pkg/b.py": NUMPY_MODULE, "pkg/c.py": NUMPY_MODULE}
    config = '[tool.mypy]\nplugins = ["device_types_mypy"]\n\n[tool.device_types]\nbackends = {{ {} }}\n'
    write_project(tmp_path, {**files, "pyproject.toml": config.format('"pkg.b" = "mps"')})
    cache = str(tmp_path / "cache")
    first = run_mypy(tmp_path, "-p", "pkg", "--cache-dir", cache)
    assert first.stdout.splitlines() == [f"pkg/b.py:5: error: {NUMPY_ERROR}"]
    (tmp_path / "pyproject.toml").write_text(config.format('"pkg.c" = "mps"'))
    second = run_mypy(tmp_path, "-p", "pkg", "--cache-dir", cache)
    assert second.stdout.splitlines() == [f"pkg/c.py:5: error: {NUMPY_ERROR.replace('(pkg.b)', '(pkg.c)')}"]


def test_report_config_data_is_per_module() -> None:
    from mypy.options import Options

    from device_types_mypy.config import PluginConfig

    options = Options()
    options.config_file = str(CASES / "pyproject.toml")
    config = PluginConfig(options)
    assert config.report_data("pkg._backends.mps.kernels.bare") == ["pkg._backends.mps", "mps"]
    assert config.report_data("pkg._backends.cuda") == ["pkg._backends.cuda", "cuda"]
    assert config.report_data("pkg._backends") is None
    assert config.report_data("pkg._backends.mpsx") is None


# --- command line and daemon ---------------------------------------------------------------------

DAEMON_MODULE = """\
import torch

from pkg.h import make


def f(x: torch.Tensor) -> None:
    x.cpu()
    x.numpy()
    x + make()
"""
DAEMON_HELPER = """\
from __future__ import annotations

import torch

from device_types import CPU, Tensor


def make() -> torch.Tensor:
    return torch.ones(3)
"""
CPU_OPERAND = (
    '"+" consumes a CPU tensor (a Tensor[CPU]) inside the mps backend (pkg.k); create it on mps (device=x.device); '
    "run device-types explain device-cpu-operand  [device-cpu-operand]"
)
READBACK = (
    '"{m}()" copies tensor data to the host inside the mps backend (pkg.k); keep it on mps and use an '
    "on-device composite of working ops; run device-types explain device-readback  [device-readback]"
)


@needs_overlay
def test_dmypy_recheck_after_edit_with_disabled_code(tmp_path: Path) -> None:
    write_project(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/k.py": DAEMON_MODULE,
        "pkg/h.py": DAEMON_HELPER,
        "pyproject.toml": '[tool.mypy]\nplugins = ["device_types_mypy"]\n\n'
        '[tool.device_types]\nbackends = { "pkg.k" = "mps" }\n',
    })
    dmypy = [sys.executable, "-m", "mypy.dmypy", "--status-file", str(tmp_path / ".dmypy.json")]
    flags = ["--disable-error-code", "device-cpu-call", "--no-error-summary", "--cache-dir", str(CACHE / "dmypy")]

    def check() -> list[str]:
        proc = subprocess.run([*dmypy, "check", "pkg"], cwd=tmp_path, capture_output=True, text=True, timeout=300, env=ENV)
        assert "Traceback" not in proc.stdout + proc.stderr
        return proc.stdout.splitlines()

    start = subprocess.run([*dmypy, "start", "--", *flags], cwd=tmp_path, capture_output=True, text=True, timeout=120, env=ENV)
    assert start.returncode == 0, start.stderr
    try:
        assert check() == [f"pkg/k.py:8: error: {READBACK.format(m='.numpy')}"]
        (tmp_path / "pkg/k.py").write_text(DAEMON_MODULE.replace("x.numpy()", "x.tolist()\n    x.cpu()"))
        assert check() == [f"pkg/k.py:8: error: {READBACK.format(m='.tolist')}"]
        (tmp_path / "pkg/k.py").write_text(DAEMON_MODULE.replace("    x.numpy()\n", ""))
        assert check() == []
        # only the helper changes: dmypy rechecks f alone (no module pass), from its hooks
        (tmp_path / "pkg/h.py").write_text(DAEMON_HELPER.replace("-> torch.Tensor", "-> Tensor[CPU]"))
        assert check() == [f"pkg/k.py:8: error: {CPU_OPERAND}"]
    finally:
        subprocess.run([*dmypy, "stop"], cwd=tmp_path, capture_output=True, timeout=60)


def test_a_bug_in_a_callback_degrades_to_mypys_type(monkeypatch: pytest.MonkeyPatch) -> None:
    from types import SimpleNamespace

    from device_types_mypy.main import STRICT_ENV, _guarded

    def broken(ctx: object) -> object:
        raise KeyError("plugin bug")

    ctx = SimpleNamespace(default_return_type="mypy's type")
    monkeypatch.delenv(STRICT_ENV, raising=False)
    assert _guarded(broken)(ctx) == "mypy's type"  # type: ignore[arg-type]
    monkeypatch.setenv(STRICT_ENV, "1")
    with pytest.raises(KeyError):
        _guarded(broken)(ctx)  # type: ignore[arg-type]


def test_the_per_module_pass_only_on_the_mypy_releases_it_was_verified_on() -> None:
    """The pass relies on when mypy 2.4 calls ``get_additional_indirect_deps``; another
    release gets the per-call hooks (slower, never fewer findings)."""
    import mypy.version
    from mypy.options import Options

    from device_types_mypy.main import plugin

    options = Options()
    options.config_file = str(CASES / "pyproject.toml")
    assert plugin(mypy.version.__version__)(options).per_call is False  # the mypy these tests run on
    assert plugin("2.5.0")(options).per_call is True
    assert plugin("3.0.0+dev")(options).per_call is True
