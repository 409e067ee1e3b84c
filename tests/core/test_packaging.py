"""The package as a user installs it.

- Every Python package in the source tree ships (a missing subpackage only shows in a
  clean install, as ``device_types._audit`` once did).
- ``pip install device-types`` brings the check, the audit and the markers with neither
  torch nor mypy: the built wheel goes into a fresh venv that has neither, and the
  commands run there on a small project (docs/installation.md).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path

import pytest


if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[2]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
OPS = "src/fw/_backends/mps/ops.py"
FINDING = re.compile(r"^(?P<path>[^:\s]+):(?P<line>\d+): .* \[(?P<code>[a-z0-9-]+)\]$")


def _requirements(group: list[str]) -> list[str]:
    from packaging.requirements import Requirement

    return [Requirement(r).name for r in group]


def test_every_source_package_is_listed() -> None:
    setuptools = PYPROJECT["tool"]["setuptools"]
    directories = setuptools["package-dir"]
    # data packages: folders shipped for their files, not code (docs/ as device_types.docs)
    found = {name for name, directory in directories.items() if not (ROOT / directory / "__init__.py").exists()}
    for import_name, directory in directories.items():
        for init in (ROOT / directory).rglob("__init__.py"):
            relative = init.parent.relative_to(ROOT / directory).parts
            found.add(".".join((import_name, *relative)))
    assert sorted(setuptools["packages"]) == sorted(found)


def test_torch_and_mypy_are_extras_only() -> None:
    project = PYPROJECT["project"]
    assert not {"torch", "mypy"} & set(_requirements(project["dependencies"]))
    extras = project["optional-dependencies"]
    assert _requirements(extras["mypy"]) == ["mypy"]
    assert _requirements(extras["overlay"]) == ["torch"]


def test_overlay_torch_requirement_is_the_tested_range_open_above() -> None:
    from packaging.requirements import Requirement

    from device_types_stubs.versions import NEWEST_TESTED, OLDEST

    from ..torch_versions import OTHER_VERSIONS

    torch = Requirement(PYPROJECT["project"]["optional-dependencies"]["overlay"][0])
    assert str(torch.specifier) == f">={OLDEST[0]}.{OLDEST[1]}"
    newer = f"{NEWEST_TESTED[0]}.{NEWEST_TESTED[1] + 1}.0"
    assert all(torch.specifier.contains(v) for v in (*OTHER_VERSIONS, "2.13.0", newer))


def test_local_pre_commit_hooks_are_the_published_ones() -> None:
    """The ``repo: local`` snippet of docs/ci-and-ide.md repeats .pre-commit-hooks.yaml's
    hooks field for field (its dependency line and comments aside)."""
    page = (ROOT / "docs" / "ci-and-ide.md").read_text()
    (snippet,) = [b for b in re.findall(r"```yaml\n(.*?)```", page, re.DOTALL)
                  if "repo: local" in b and "id: device-types-check" in b]
    documented = {k: v for k, v in _hooks(snippet).items() if k.startswith("device-types-")}
    published = _hooks((ROOT / ".pre-commit-hooks.yaml").read_text())
    for hook in published.values():
        del hook["description"]
    for hook in documented.values():
        assert hook.pop("additional_dependencies") == f'["device-types @ file:///path/to/{_wheel_name()}"]'
    assert documented == published


def test_docs_name_no_rev_this_repository_lacks() -> None:
    tags = subprocess.run(["git", "-C", str(ROOT), "tag", "--list"], capture_output=True, text=True, check=True)
    for page in (ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))):
        for rev in re.findall(r"^\s*rev:\s*(\S+)", page.read_text(), re.MULTILINE):
            assert rev in tags.stdout.split(), f"{page.name} names rev {rev}, which is no tag of this repository"


def _hooks(yaml: str) -> dict[str, dict[str, str]]:
    """``id`` -> its ``key: value`` fields, for the flat hook lists of pre-commit files."""
    hooks: dict[str, dict[str, str]] = {}
    current: dict[str, str] = {}
    for line in yaml.splitlines():
        field = re.match(r"^\s*(- )?(\w+): (.+)$", line.split(" #")[0].rstrip())
        if field is None or field[2] in {"repos", "repo", "rev", "hooks"}:
            continue
        if field[2] == "id":
            current = hooks.setdefault(field[3], {})
        else:
            current[field[2]] = field[3]
    return hooks


def _wheel_name() -> str:
    return f"device_types-{PYPROJECT['project']['version']}-py3-none-any.whl"


@pytest.fixture(scope="module")
def venv(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh venv from the base interpreter holding the wheel and its declared
    dependencies for this Python (none on 3.11+), and nothing else: no torch, no mypy."""
    from packaging.requirements import Requirement

    root = tmp_path_factory.mktemp("venv") / "env"
    _run(sys.executable, "-m", "venv", "--without-pip", str(root))
    python = root / "bin" / "python"
    install = [sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet", "--no-deps"]
    _run(*install, "--no-index", str(wheel))
    needed = [r for r in PYPROJECT["project"]["dependencies"] if Requirement(r).marker is None
              or Requirement(r).marker.evaluate()]
    if needed:  # Python 3.10: tomli, from the registry or pip's cache
        _run(*install, *needed)
    return root


def test_wheel_installs_without_torch_or_mypy(venv: Path, wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    assert "device_types/_check/__init__.py" in names and "device_types_mypy/py.typed" in names
    probe = (
        "import importlib.util, device_types\n"
        "print(device_types.__file__)\n"
        "print(importlib.util.find_spec('torch'), importlib.util.find_spec('mypy'))"
    )
    where, missing = _venv_run(venv, "python", "-c", probe, cwd=venv).stdout.splitlines()
    assert Path(where).is_relative_to(venv / "lib")  # the wheel's copy, not the checkout
    assert missing == "None None"
    no_torch = _venv_run(venv, "python", "-c", "import torch", cwd=venv, expect=1)
    assert no_torch.stderr.splitlines()[-1] == "ModuleNotFoundError: No module named 'torch'"


def test_markers_degrade_without_torch(venv: Path) -> None:
    probe = textwrap.dedent(
        """\
        import typing
        from device_types import MPS, Tensor, is_device

        def kernel(x: Tensor[MPS]) -> Tensor[MPS]:
            return x

        print(typing.get_type_hints(kernel, include_extras=True)["x"] is Tensor[MPS], Tensor[MPS].__metadata__ == (MPS,))
        print(isinstance(object(), Tensor), issubclass(int, Tensor), isinstance(object(), Tensor[MPS]))
        try:
            Tensor([1.0])
        except ModuleNotFoundError as exc:
            print(exc)
        """
    )
    lines = _venv_run(venv, "python", "-c", probe, cwd=venv).stdout.splitlines()
    assert lines == [
        "True True",
        "False False False",
        "device_types.Tensor(...) builds a torch.Tensor, and torch is not installed in this environment (pip install torch)",
    ]


def test_check_runs_without_torch(venv: Path, tmp_path: Path) -> None:
    project = _project(tmp_path)
    run = _venv_run(venv, "device-types", "check", "src", cwd=project, expect=1)
    assert _findings(run.stdout) == [(OPS, 9, "device-readback")]
    assert run.stdout.splitlines()[-1].startswith("check failed: 1 finding")
    (project / OPS).write_text((project / OPS).read_text().replace("np.cumsum(to_numpy(a))", "a.cumsum_native()"))
    clean = _venv_run(venv, "device-types", "check", "src", cwd=project, expect=0)
    assert _findings(clean.stdout) == [] and clean.stdout.splitlines()[-1].startswith("check clean")


def test_audit_runs_without_torch(venv: Path, tmp_path: Path) -> None:
    project = _project(tmp_path)
    run = _venv_run(venv, "device-types", "audit", cwd=project, expect=1)
    assert _findings(run.stdout) == [(OPS, 14, "audit-missing-row")]
    table = project / "docs/known-kernel-issues.md"
    table.write_text(table.read_text() + "| aten.softplus | mps | crash | softplus_composite | macOS 15.3 | open (workaround active) |\n")
    clean = _venv_run(venv, "device-types", "audit", cwd=project, expect=0)
    assert _findings(clean.stdout) == [] and clean.stdout.splitlines()[-1].startswith("audit clean: 1 marker")


def test_overlay_without_torch_is_one_line(venv: Path) -> None:
    run = _venv_run(venv, "device-types", "stubs", "install", cwd=venv, expect=2)
    assert run.stdout == ""
    assert run.stderr == ("device-types: torch is not installed in this environment; install it first "
                          "(pip install 'device-types[overlay]')\n")
    coverage = _venv_run(venv, "device-types", "coverage", cwd=venv, expect=2)
    assert coverage.stderr == ("device-types: torch is not installed in this environment; install it first "
                               "(pip install 'device-types[overlay]'); or measure an unpacked torch package with "
                               "--torch-dir DIR\n")


def test_stubs_path_and_uninstall_need_no_torch(venv: Path) -> None:
    """Where the overlay would live (next to torch, once the extra brings it) and removing one
    left behind by an uninstalled torch: neither needs torch."""
    site = Path(_venv_run(venv, "python", "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])",
                          cwd=venv).stdout.strip())
    path = _venv_run(venv, "device-types", "stubs", "path", cwd=venv)
    assert path.stdout == f"{site / 'torch-stubs'}\n"
    assert _venv_run(venv, "device-types", "stubs", "uninstall", cwd=venv).stdout == "no device-types overlay installed\n"
    left = site / "torch-stubs"
    left.mkdir()
    (left / "DEVICE_TYPES_OVERLAY.json").write_text("{}")
    assert _venv_run(venv, "device-types", "stubs", "uninstall", cwd=venv).stdout == "removed the device-types overlay\n"
    assert not left.exists()


def test_the_wheel_ships_the_docs_its_links_point_at(venv: Path, wheel: Path) -> None:
    """``device-types explain`` (and SARIF, the language server) link to the installed copy of
    docs/, which exists offline and matches this version."""
    from tests.links import follow

    names = zipfile.ZipFile(wheel).namelist()
    assert {f"device_types/docs/{p.name}" for p in (ROOT / "docs").glob("*.md")} <= set(names)
    env = {k: v for k, v in os.environ.items() if k != "DEVICE_TYPES_DOCS_URL"}
    shown = subprocess.run([str(venv / "bin" / "device-types"), "explain", "audit-orphan-row"], cwd=venv, env=env,
                           capture_output=True, text=True, check=True).stdout.splitlines()[-1]
    page = follow(shown.removeprefix("docs: "))
    assert page.is_relative_to(venv) and page.name == "errors.md"
    assert page.read_text() == (ROOT / "docs" / "errors.md").read_text()


def _project(root: Path) -> Path:
    """A backend with one readback (line 9) and one marked, guarded workaround (line 14)."""
    files = {
        "pyproject.toml": '[tool.device_types]\nbackends = { "fw._backends.mps" = "mps" }\n',
        "src/fw/__init__.py": "",
        "src/fw/_backends/__init__.py": "",
        "src/fw/_backends/mps/__init__.py": "",
        OPS: textwrap.dedent(
            """\
            import numpy as np


            def to_numpy(t):
                return t._numpy_view()


            def cumsum(a):
                return np.cumsum(to_numpy(a))


            def softplus(x):
                if USE_NATIVE:
                    # TODO: re-enable native kernel when macOS 15.4 fixes aten.softplus crash on batched inputs
                    return _native_softplus(x)
                return x.softplus_composite()
            """
        ),
        "docs/known-kernel-issues.md": (
            "# Known kernel issues\n\n"
            "| Op name | Backend | Error description | Composite workaround | Platform version | Status |\n"
            "|---|---|---|---|---|---|\n"
        ),
    }
    for relative, text in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def _findings(stdout: str) -> list[tuple[str, int, str]]:
    return [(m["path"], int(m["line"]), m["code"]) for m in map(FINDING.match, stdout.splitlines()) if m]


def _venv_run(venv: Path, command: str, *args: str, cwd: Path, expect: int = 0) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in {"PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV"}}
    run = subprocess.run([str(venv / "bin" / command), *args], cwd=cwd, env=env, capture_output=True, text=True)
    assert run.returncode == expect, run.stdout + run.stderr
    return run


def _run(*command: str) -> None:
    run = subprocess.run(command, capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr
