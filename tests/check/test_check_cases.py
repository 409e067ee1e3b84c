"""``device-types check`` on a case project written like real untyped backends.

Every finding line of ``cases/proj`` carries ``# E: <code>``; the test asserts the exact set
of (file, line, code) and the exact text output (``cases/expected.txt``), so a finding that
appears, moves or disappears fails it."""

from __future__ import annotations

import re
from pathlib import Path

from tests.check.conftest import CASES, run_cli as run_check

PROJ = CASES / "proj"
MARK = re.compile(r"#\s*E:\s*(?P<code>device-[\w-]+)\s*$")


def marked(root: Path = PROJ) -> set[tuple[str, int, str]]:
    """(file, line, code) of every ``# E: <code>`` mark under ``root``."""
    expected = set()
    for path in sorted(root.rglob("*.py")):
        for number, line in enumerate(path.read_text().splitlines(), 1):
            match = MARK.search(line)
            if match:
                expected.add((path.relative_to(root).as_posix(), number, match["code"]))
    return expected


def test_findings_are_exactly_the_marked_lines() -> None:
    run = run_check("--format", "json", "--no-cache", "fw", cwd=PROJ)
    found = {(f["path"], f["line"], f["code"]) for f in run.json()["findings"]}
    assert found == marked()


def test_text_output_is_the_recorded_one() -> None:
    run = run_check("--no-cache", "fw", cwd=PROJ)
    assert run.returncode == 2  # broken.py cannot be parsed: the run says so and fails
    assert run.stdout == (CASES / "expected.txt").read_text()
    assert run.stderr == ""


def test_host_syncs_are_opt_in() -> None:
    default = run_check("--format", "json", "--no-cache", "fw", cwd=PROJ).json()
    assert "device-host-sync" not in {f["code"] for f in default["findings"]}
    enabled = run_check("--format", "json", "--no-cache", "--enable", "device-host-sync", "fw", cwd=PROJ).json()
    syncs = {(f["path"], f["function"], f["line"]) for f in enabled["findings"] if f["code"] == "device-host-sync"}
    assert syncs == {
        ("fw/_backends/mps/ops.py", "host_sync_only", 129),
        ("fw/_backends/mps/ops.py", "running_max_on_device", 156),  # a loop's bound, read back
        ("fw/_backends/mps/ops.py", "record_shapes", 189),  # a shape, kept in a list
        ("fw/_backends/mps/storage.py", "group_sums", 50),  # split sizes for torch.split
        ("fw/_backends/mps/storage.py", "group_sums_host", 55),  # the same, beside a fallback
        ("fw/_backends/mps/roundtrips.py", "check_index", 131),  # a private copy, edited only to validate
        ("fw/_backends/npu/ops.py", "validate", 38),
        ("fw/_backends/mps/spellings.py", "pick_one_row", 59),  # one element chosen by a scalar read back
        ("fw/_backends/mps/scalars.py", "count_sizes_output", 17),  # a count read back sizes the output
        ("fw/_backends/mps/scalars.py", "max_as_fill_value", 23),  # one scalar staged as a fill value
        ("fw/_backends/mps/scalars.py", "check_range", 34),  # validated; the helper returns a literal
        ("fw/_backends/mps/scalars.py", "taps_as_scalars", 42),  # elements of a readback as kernel scalars
        ("fw/_backends/mps/scalars.py", "per_class_values", 52),  # the API's Python floats
        ("fw/_backends/mps/primitives.py", "scale_by_item", 19),  # a primitive's scalar staged
        ("fw/_backends/mps/primitives.py", "scale_by_raw_read", 29),  # the same, read raw
        ("fw/_backends/npu/staging.py", "nonzero_sized", 26),  # a count read through a D2H wrapper
        ("fw/_backends/mps/objects.py", "count_of_sizes", 54),  # sizes read back, converted, their max a size
        ("fw/_backends/mps/selection.py", "steps_in_drawn_order", 12),  # picks which callable runs
        ("fw/_backends/mps/sizes.py", "resize_to_read_size", 24),  # a size, through a helper that sizes with it
        ("fw/_backends/mps/host_loops.py", "slots_by_readback", 43),  # device tensors put in a list's slots
        ("fw/_backends/mps/spellings.py", "sizes_read_back", 97),  # sizes collected by a comprehension
        ("fw/_backends/mps/sizes.py", "buffer_of_read_size", 29),  # a count, through a helper's torch.empty
        ("fw/_backends/mps/sizes.py", "pyramid_to_read_depth", 46),  # a count for a helper's range()
        ("fw/_backends/mps/selection.py", "factor_in_drawn_order", 19),  # picks an operand
    }


def test_a_helper_in_a_file_not_named_still_counts(project: Path) -> None:
    """pre-commit passes single files: the readback helper lives in common/convert.py."""
    run = run_check("--format", "json", "--no-cache", "fw/_backends/mps/ops.py", cwd=project)
    data = run.json()
    assert {f["path"] for f in data["findings"]} == {"fw/_backends/mps/ops.py"}
    assert ("relu", "device-readback") in {(f["function"], f["code"]) for f in data["findings"]}
    assert run.returncode == 1


def test_at_most_two_lines_per_function() -> None:
    findings = run_check("--format", "json", "--no-cache", "fw", cwd=PROJ).json()["findings"]
    per_function: dict[tuple[str, str], int] = {}
    for f in findings:
        key = (f["path"], f["function"])
        per_function[key] = per_function.get(key, 0) + 1
    assert max(per_function.values()) <= 2


def test_declared_readback_for_what_cannot_be_inferred(tmp_path: Path) -> None:
    """A compiled helper (no Python body) is declared in [tool.device_types.check]."""
    pkg = tmp_path / "lib" / "_backends" / "cuda"
    pkg.mkdir(parents=True)
    for d in (tmp_path / "lib", tmp_path / "lib" / "_backends", pkg):
        (d / "__init__.py").write_text("")
    (pkg / "ops.py").write_text(
        "from lib._C import host_copy, upload\n\n\n"
        "def exp(a):\n"
        "    return upload(host_copy(a) ** 2, a.device)\n"
    )
    (tmp_path / "pyproject.toml").write_text(
        '[tool.device_types]\nbackends = { "lib._backends.cuda" = "cuda" }\n\n'
        '[tool.device_types.check]\nreadbacks = ["lib._C.host_copy"]\n'
    )
    without = run_check("--format", "json", "--no-cache", "--config", str(tmp_path / "missing.toml"), "lib", cwd=tmp_path)
    assert without.returncode == 2 and "no such file" in without.stderr
    run = run_check("--format", "json", "--no-cache", "lib", cwd=tmp_path)
    assert [(f["line"], f["code"]) for f in run.json()["findings"]] == [(5, "device-readback")]
