"""The size of the environment pre-commit builds for the device-types hooks (docs/ci-and-ide.md).

Builds the wheel from this checkout, writes a throwaway git project with one backend file,
and runs pre-commit there twice, each time with a fresh ``PRE_COMMIT_HOME``:

1. ``repo: local``: the snippet of docs/ci-and-ide.md, taken from the page, with its
   ``/path/to/`` pointing at the built wheel;
2. ``repo:`` naming this checkout at its HEAD commit (this repository's
   ``.pre-commit-hooks.yaml``; uncommitted changes are not in it).

Each run must report the planted finding (the hooks really ran); then ``du`` measures each
hook environment. pre-commit comes from ``--pre-commit`` or is installed into a temporary
venv from the package registry.

    .venv/bin/python benchmarks/hook_env_size.py [--pre-commit PATH]
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.wheel import build_wheel  # noqa: E402
from benchmarks.machine import describe  # noqa: E402

BACKEND = "src/fw/_backends/mps/ops.py"
FINDING = f"{BACKEND}:5: "  # the readback below
PROJECT = {
    "pyproject.toml": '[tool.device_types]\nbackends = { "fw._backends.mps" = "mps" }\n',
    "src/fw/__init__.py": "",
    "src/fw/_backends/__init__.py": "",
    "src/fw/_backends/mps/__init__.py": "",
    BACKEND: "import numpy as np\n\n\ndef cumsum(a):\n    return np.cumsum(a._numpy_view())\n",
    "docs/known-kernel-issues.md": "# Known kernel issues\n",
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pre-commit", help="a pre-commit executable (default: install one into a temporary venv)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="hook-env-") as tmp:
        work = Path(tmp)
        pre_commit = args.pre_commit or _install_pre_commit(work / "pre-commit-venv")
        version = _run([pre_commit, "--version"]).stdout.strip()
        wheel = build_wheel(work)
        print(describe())
        print(f"{version}, Python {sys.version.split()[0]}")
        print(f"wheel: {wheel.name}, {wheel.stat().st_size:,} bytes")
        configs = {
            "repo: local, the snippet of docs/ci-and-ide.md": _documented_snippet(wheel),
            "repo: the checkout at its HEAD": _checkout_config(),
        }
        for n, (label, config) in enumerate(configs.items()):
            cpu, wall = _children_cpu(), time.perf_counter()
            sizes = hook_env_sizes(pre_commit, config, work / f"run{n}")
            cpu, wall = _children_cpu() - cpu, time.perf_counter() - wall
            for size in sizes:
                print(f"hook environment ({label}): {size / 1e6:.1f} MB ({size:,} bytes, du)")
            print(f"  first run, building it and running both hooks: {cpu:.1f} s CPU, {wall:.1f} s wall")
    return 0


def hook_env_sizes(pre_commit: str, config: str, work: Path) -> list[int]:
    """Run pre-commit with ``config`` in a throwaway project (a fresh ``PRE_COMMIT_HOME``) and
    ``du`` each hook environment it built; the hooks must report the planted finding.
    (``tools/generate_docs.py`` takes the docs' hook environment size from here.)"""
    home = work / "home"
    project = _project(work / "project", config)
    run = _run([pre_commit, "run", "--all-files"], cwd=project, env={**os.environ, "PRE_COMMIT_HOME": str(home)},
               check=False)
    if FINDING not in run.stdout:
        raise SystemExit(f"the hooks did not report the planted finding:\n{run.stdout}{run.stderr}")
    return [_du(env) for env in sorted(home.glob("repo*/py_env-*"))]


def install_pre_commit(venv: Path) -> str:
    return _install_pre_commit(venv)


def documented_snippet(wheel: Path) -> str:
    return _documented_snippet(wheel)


def _install_pre_commit(venv: Path) -> str:
    _run([sys.executable, "-m", "venv", str(venv)])
    _run([str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", "pre-commit"])
    return str(venv / "bin" / "pre-commit")


def _documented_snippet(wheel: Path) -> str:
    """The ``repo: local`` block of docs/ci-and-ide.md, pointing at ``wheel``."""
    page = (ROOT / "docs" / "ci-and-ide.md").read_text()
    blocks = re.findall(r"```yaml\n(.*?)```", page, re.DOTALL)
    (snippet,) = [b for b in blocks if "repo: local" in b and "id: device-types-check" in b]
    if wheel.name not in snippet:
        raise SystemExit(f"docs/ci-and-ide.md names another wheel than {wheel.name}: update the snippet")
    return snippet.replace("file:///path/to/", f"{wheel.parent.as_uri()}/")


def _checkout_config() -> str:
    head = _run(["git", "-C", str(ROOT), "rev-parse", "HEAD"]).stdout.strip()
    return (f"repos:\n  - repo: {ROOT}\n    rev: {head}\n    hooks:\n"
            "      - id: device-types-check\n      - id: device-types-audit\n")


def _project(root: Path, config: str) -> Path:
    for relative, text in {**PROJECT, ".pre-commit-config.yaml": config}.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    git = ["git", "-c", "user.name=bench", "-c", "user.email=bench@localhost"]
    _run([*git, "init", "--quiet"], cwd=root)
    _run([*git, "add", "--all"], cwd=root)
    _run([*git, "commit", "--quiet", "--message", "project"], cwd=root)
    return root


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _du(path: Path) -> int:
    """Disk usage in bytes, as ``du --block-size=1 -s`` counts it."""
    return int(_run(["du", "--block-size=1", "-s", str(path)]).stdout.split()[0])


def _run(command: list[str], cwd: Path | None = None, env: dict[str, str] | None = None,
         check: bool = True) -> subprocess.CompletedProcess[str]:
    run = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True)
    if check and run.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed ({run.returncode}):\n{run.stdout}{run.stderr}")
    return run


if __name__ == "__main__":
    sys.exit(main())
