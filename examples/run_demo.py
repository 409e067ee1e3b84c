"""The main job: type-check the example backend package and show what device-types catches.

Run with ``make demo`` (or ``.venv/bin/python examples/run_demo.py``). It prints, in order:
the overlay's state and coverage, mypy with the plugin on ``examples/candle`` (clean
composites, one error per policy code in ``fallbacks.py``), ``device-types check`` on the
untyped ``npu/legacy_ops.py`` (what mypy cannot see), a malformed configuration,
and ``device-types audit`` on the example, clean and after a broken native kernel loses
its marker. Exit status 0 when every step printed what ``examples/expected/`` says
(``--update-expected`` rewrites those files from this run: review the diff).
"""

from __future__ import annotations

import difflib
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

HERE = Path(__file__).resolve().parent
PROJECT = HERE / "candle"
EXPECTED = HERE / "expected"
BIN = Path(sys.executable).parent


def run(args: list[str], cwd: Path) -> tuple[int, str]:
    proc = subprocess.run(args, cwd=cwd, capture_output=True, text=True)
    return proc.returncode, (proc.stdout + proc.stderr).rstrip("\n")


def section(title: str) -> None:
    print(f"\n=== {title} ===")


UPDATE = "--update-expected" in sys.argv


def check(name: str, output: str) -> bool:
    """Compare a step's output with examples/expected/<name>.txt; print the diff if any."""
    if UPDATE:
        (EXPECTED / f"{name}.txt").write_text(output + "\n")
    expected = (EXPECTED / f"{name}.txt").read_text().rstrip("\n")
    if output == expected:
        return True
    diff = difflib.unified_diff(expected.splitlines(), output.splitlines(), "expected", "actual", lineterm="")
    print(f"\n!!! {name}: output differs from examples/expected/{name}.txt:\n" + "\n".join(diff))
    return False


@contextmanager
def project_copy() -> Iterator[Path]:
    """A scratch copy of the example project, to break on purpose."""
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / "candle"
        shutil.copytree(PROJECT, copy, ignore=shutil.ignore_patterns(".mypy_cache"))
        yield copy


def edit(path: Path, change: Callable[[str], str]) -> None:
    path.write_text(change(path.read_text()))


def main() -> int:
    ok = True
    section("overlay")
    code, out = run([str(BIN / "device-types"), "stubs", "check"], HERE)
    print(out)
    if code != 0:
        print("the overlay is missing or stale: run `.venv/bin/device-types stubs install` (make demo does)")
        return 1
    print(run([str(BIN / "device-types"), "coverage"], HERE)[1])

    section("mypy + plugin on examples/candle (composites.py: clean; fallbacks.py: one error per code)")
    code, out = run([sys.executable, "-m", "mypy", "--no-pretty", "--no-error-summary"], PROJECT)
    print(out or "(no errors)")
    ok &= check("mypy", out)

    section("device-types check: backend code as it is (npu/legacy_ops.py untyped; a typed helper too), no mypy needed")
    code, out = run([str(BIN / "device-types"), "check", "--no-cache", "src/candle/_backends"], PROJECT)
    print(out)
    ok &= check("check", out)

    section("a malformed configuration: one line, no traceback")
    with project_copy() as broken:
        edit(broken / "pyproject.toml", lambda text: text.replace('"candle._backends.npu" = "npu"', '"candle._backends.npu" = "gpu"'))
        code, out = run([sys.executable, "-m", "mypy", "--no-pretty", "--no-error-summary"], broken)
        print(out)
        ok &= check("config", out)

    section("device-types audit: markers against docs/known-kernel-issues.md")
    code, out = run([str(BIN / "device-types"), "audit", "--root", str(PROJECT)], HERE)
    print(out)
    ok &= check("audit-clean", out)

    section("device-types audit after the MPS baddbmm marker was deleted")
    with project_copy() as broken:
        edit(
            broken / "src/candle/_backends/mps/composites.py",
            lambda text: "".join(line for line in text.splitlines(True) if "TODO: re-enable" not in line),
        )
        code, out = run([str(BIN / "device-types"), "audit", "--root", str(broken)], HERE)
        print(out)
        ok &= check("audit-broken", out)

    print("\n" + ("demo: every step printed what examples/expected/ describes" if ok else "demo: MISMATCH (see above)"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
