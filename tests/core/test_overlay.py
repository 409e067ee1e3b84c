"""The overlay generator, its freshness check, the CLI and the coverage report."""

from __future__ import annotations

import json
import subprocess
import sys
from functools import cache
from pathlib import Path

import pytest

from device_types._semantics import OpKind, classify
from device_types_stubs import overlay as overlay_module
from device_types_stubs.coverage import coverage
from device_types_stubs.overlay import STAMP, Overlay, OverlayError, build_overlay, installed_state, torch_dir

CLI = [sys.executable, "-m", "device_types._cli"]
ROOT = Path(__file__).resolve().parents[2]


@cache
def overlay() -> Overlay:
    return build_overlay()


def test_overlay_carries_every_torch_stub_and_is_partial() -> None:
    torch_stubs = {p.relative_to(torch_dir()).as_posix() for p in torch_dir().rglob("*.pyi")}
    files = set(overlay().files)
    assert torch_stubs <= files
    assert files - torch_stubs == {"_tensor.pyi", "_device_layer.pyi", "py.typed"}
    assert overlay().files["py.typed"] == "partial\n"


def test_patched_classes_are_device_generic() -> None:
    c_module = overlay().files["_C/__init__.pyi"]
    assert "class TensorBase(_dt_Generic[_DeviceT], metaclass=_TensorMeta):" in c_module
    assert "class device(_dt_Generic[_DeviceT]):" in c_module
    assert "class Tensor(torch._C.TensorBase[_DeviceT]):" in overlay().files["_tensor.pyi"]
    assert 'default=Any' in overlay().files["_device_layer.pyi"]


def test_repository_commits_no_torch_stub() -> None:
    tracked = subprocess.run(["git", "ls-files", "*.pyi"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    assert tracked.split() == []


@pytest.mark.parametrize(
    ("name", "params", "takes", "kind"),
    [
        ("bmm", ["input", "mat2"], True, OpKind.PRESERVE),
        ("zeros", ["size", "out", "device"], False, OpKind.CREATE),
        ("zeros_like", ["input", "device"], True, OpKind.CREATE_LIKE),
        ("new_zeros", ["size", "device"], True, OpKind.CREATE_LIKE),
        ("cpu", [], True, OpKind.TRANSFER),
        ("to", ["device", "dtype"], True, OpKind.TRANSFER),
        ("numpy", ["force"], True, OpKind.READBACK),
        ("from_numpy", ["ndarray"], False, OpKind.CREATE),
        ("get_default_dtype", [], False, OpKind.UNTOUCHED),
    ],
)
def test_classify(name: str, params: list[str], takes: bool, kind: OpKind) -> None:
    assert classify(name, params, takes_tensor=takes, mentions_tensor=takes) is kind


def test_coverage_meets_target() -> None:
    report = coverage()
    for part in (report.functions, report.methods):
        assert part.ratio >= 0.95, part.uncovered
        assert part.total > 400  # the denominators are real, not empty


def test_missing_and_stale_overlay_explain_in_one_line(tmp_path: Path) -> None:
    fresh, line = installed_state(tmp_path / "torch-stubs")
    assert not fresh and "\n" not in line
    assert line.startswith("no device-types overlay for torch") and line.endswith("run `device-types stubs install`")
    (tmp_path / "torch-stubs").mkdir()
    (tmp_path / "torch-stubs" / STAMP).write_text(json.dumps({"torch": "2.0.0", "generator": "x"}))
    fresh, line = installed_state(tmp_path / "torch-stubs")
    assert not fresh
    assert line.startswith("the overlay was generated for torch 2.0.0, but torch 2.13")


def test_no_torch_is_a_clean_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(overlay_module.importlib.util, "find_spec", lambda name: None)
    with pytest.raises(OverlayError, match="torch is not installed"):
        build_overlay()


def test_cli_install_to_target_and_check(tmp_path: Path) -> None:
    target = tmp_path / "torch-stubs"
    out = subprocess.run([*CLI, "stubs", "install", "--target", str(target)], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert (target / "_C" / "_VariableFunctions.pyi").is_file()
    assert json.loads((target / STAMP).read_text())["torch"].startswith("2.13")
    check = subprocess.run([*CLI, "stubs", "check"], capture_output=True, text=True)
    assert check.returncode == 0 and check.stdout.startswith("device-types overlay is up to date")


def test_cli_usage_errors() -> None:
    out = subprocess.run([*CLI, "frobnicate"], capture_output=True, text=True)
    assert out.returncode == 2
    assert "unknown command 'frobnicate'" in out.stderr
    assert "Traceback" not in out.stderr


def test_cli_install_into_missing_directory_is_one_line(tmp_path: Path) -> None:
    out = subprocess.run([*CLI, "stubs", "install", "--target", str(tmp_path / "no" / "such" / "torch-stubs")],
                         capture_output=True, text=True)
    assert out.returncode == 2
    assert out.stderr.startswith("device-types: cannot write the overlay to") and "Traceback" not in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1
