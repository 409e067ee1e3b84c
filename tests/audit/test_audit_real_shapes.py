"""The audit on a document and markers written the way real teams write them.

``real_shapes/`` is a project of our own whose known-issues document has the shapes of a
real NPU backend's (one table per chip under nested headings, columns ``Op | ACLNN kernel |
Error | Workaround | Verified on`` with no Backend or Status, qualified and multi-op cells,
markdown escapes, dashes for empty cells, an extra Notes column, alignment rows, text
between tables) and whose markers have the shapes of its markers (the kernel name in place
of "kernel", "float32 native path", trailing punctuation, chip qualifiers, continuation
lines, a flag, a pronoun for the issue). It has six real problems and nothing else.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from audit_tree import OPEN, RESOLVED, Project


HERE = Path(__file__).resolve().parent
SHAPES = HERE / "real_shapes"
EXPECTED = HERE / "expected"
DOCS = "docs/known-kernel-issues.md"
MATH = "src/acme/_backends/npu/ops/math.py"
POOL = "src/acme/_backends/npu/ops/pool.py"
FORM = "# TODO: re-enable native kernel when <platform> fixes <issue>"
UNGUARDED = (
    "no guard keeps the native kernel here; put the marker on or directly above the 'if'/'try' that "
    "switches to the native kernel, inside that branch, above the preserved native 'def', or on its "
    "'USE_NATIVE_... = False' flag; run device-types explain audit-unguarded-marker [audit-unguarded-marker]"
)


def human_findings(error: str = "Error", platform: str = "Verified on") -> list[str]:
    """The six problems only a person can fix, in either column naming."""
    return [
        f"{DOCS}:17: le / ge on npu is open, but no marker in the npu backend matches it; keep the native "
        f"kernel behind a guard marked '{FORM}' (naming aten.le or aclnnLeTensor in the issue), or set "
        f"Status to '{RESOLVED}'; run device-types explain audit-orphan-row [audit-orphan-row]",
        f"{DOCS}:22: row for renorm has an empty '{platform}' cell; fill in the platform version, e.g. "
        "macOS 15.3 / Metal 3 or CANN 8.0; run device-types explain audit-table-empty-cell [audit-table-empty-cell]",
        f"{DOCS}:23: row for group_norm has an empty '{error}' cell; fill in what happens when the native "
        "kernel runs; run device-types explain audit-table-empty-cell [audit-table-empty-cell]",
        f"{MATH}:38: no npu row in {DOCS} matches this marker's kernel aclnnErfinv (by kernel name or its "
        f"op erfinv); add a row for it with Backend 'npu' and Status '{OPEN}'; run device-types explain audit-missing-row [audit-missing-row]",
        f"{POOL}:14: {UNGUARDED}",
        f"{POOL}:28: no npu row in {DOCS} matches this marker's kernel aclnnIndexPut (by kernel name or its "
        f"op index_put); add a row for it with Backend 'npu' and Status '{OPEN}'; run device-types explain audit-missing-row [audit-missing-row]",
    ]


SUMMARY = (
    "audit failed: 6 findings in 3 files; checked 15 markers in 2 backend files (npu) against 16 rows "
    f"of {DOCS}"
)


@pytest.fixture
def shapes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Project:
    root = tmp_path / "acme"
    shutil.copytree(SHAPES, root)
    return Project(root, capsys)


def test_default_mode_reports_only_what_is_substantively_missing(shapes: Project) -> None:
    # No schema finding: the tables carry the policy's information under other names, the
    # backend comes from the chip headings (platforms in pyproject.toml), no Status is open.
    # Every marker is read and matched: by kernel name (aclnnMaxPool2d covers the 310P and
    # 910C rows), by the op its kernel spells (aclnnNanmean -> nanmean), by function (the
    # float32 paths, query_event of "record_event / query_event"), by aten op.
    outcome = shapes.run()
    assert outcome.lines == [*human_findings(), SUMMARY]
    assert outcome.code == 1


def test_without_platforms_one_finding_says_how_to_name_the_backend(shapes: Project) -> None:
    (shapes.root / "pyproject.toml").unlink()
    assert shapes.run().lines == [
        f"{DOCS}:12: 3 tables ('## 310P', '### 910C', '### 910A') have no 'Backend' column and neither a "
        "heading nor the document's path names a backend; map the headings in [tool.device_types] platforms "
        '(e.g. platforms = { "310P" = "npu", "910C" = "npu", "910A" = "npu" }), set default_backend, or add '
        "a 'Backend' column; run device-types explain audit-table-no-backend [audit-table-no-backend]",
        human_findings()[1],
        human_findings()[2],
        f"{POOL}:14: {UNGUARDED}",
        "audit failed: 4 findings in 2 files; checked 15 markers in 2 backend files (npu) against 0 rows "
        f"of {DOCS}",
    ]


def test_strict_demands_the_policy_schema_and_wording(shapes: Project) -> None:
    lines = shapes.run("--strict").lines
    renames = (
        "columns 'Op', 'Error', 'Workaround' and 'Verified on' are 'Op name', 'Error description', "
        "'Composite workaround' and 'Platform version' in the policy's schema; rename them "
        "(device-types audit --fix does); run device-types explain audit-table-header-name [audit-table-header-name]"
    )
    assert [f"{DOCS}:{n}: {renames}" for n in (12, 31, 41)] == [line for line in lines if "header-name" in line]
    assert f"{DOCS}:31: table has no 'Backend' column; add it (mps, cuda or npu); the heading '### 910C' (line 29) says npu (device-types audit --fix adds it); run device-types explain audit-table-missing-column [audit-table-missing-column]" in lines
    assert f"{DOCS}:41: table has no 'Status' column; add it ('{OPEN}' or '{RESOLVED}'); a table without it is read as '{OPEN}' (device-types audit --fix adds it); run device-types explain audit-table-missing-column [audit-table-missing-column]" in lines
    wording = [line.split(": ", 1)[0] for line in lines if line.endswith("; run device-types explain audit-marker-wording [audit-marker-wording]")]
    assert wording == [f"{MATH}:{n}" for n in (7, 14, 22, 29, 44, 58)] + [f"{POOL}:{n}" for n in (3, 7, 14, 21)]
    assert set(human_findings()) < set(lines)
    assert len(lines) == 6 + 3 + 6 + 10 + 1


def test_strict_from_configuration(shapes: Project) -> None:
    config = shapes.root / "pyproject.toml"
    config.write_text(config.read_text() + "strict = true\n")
    assert shapes.run().lines == shapes.run("--strict").lines
    assert len(shapes.run().lines) == 26


def test_fix_prints_a_diff_and_writes_it(shapes: Project) -> None:
    before = {p: p.read_bytes() for p in shapes.root.rglob("*") if p.is_file()}
    outcome = shapes.run("--fix")
    assert "\n".join(outcome.lines) + "\n" == (EXPECTED / "real_shapes_fix.diff").read_text()
    assert outcome.code == 1
    assert {p: p.read_bytes() for p in shapes.root.rglob("*") if p.is_file()} == before  # nothing written

    outcome = shapes.run("--fix", "--write")
    assert outcome.lines == [
        f"fixed {DOCS}",
        f"fixed {MATH}",
        f"fixed {POOL}",
        "3 files fixed; run 'device-types audit --strict' for what needs a human",
    ]
    assert outcome.code == 0
    assert (shapes.root / DOCS).read_text() == (EXPECTED / "real_shapes_fixed_known-kernel-issues.md").read_text()
    math = (shapes.root / MATH).read_text().splitlines()
    assert math[21:23] == [
        "        # TODO: re-enable native kernel when CANN fixes aclnnLogAddExp 561103 on 310P",
        "        #       and once aclnnLogAddExp availability is confirmed on 910C.",
    ]
    assert math[6] == "    # TODO: re-enable native kernel when CANN fixes float32 support on 310P"
    pool = (shapes.root / POOL).read_text().splitlines()
    assert pool[2] == "USE_NATIVE_CUMSUM = False  # TODO: re-enable native kernel when CANN fixes aclnnCumsum 161001"
    assert pool[13] == "    # TODO: re-enable native kernel when CANN fixes aclnnPixelShuffle"

    # After the fix, strict mode reports exactly what needs a human (under the new names),
    # and there is nothing left to fix.
    outcome = shapes.run("--strict")
    assert outcome.lines == [*human_findings("Error description", "Platform version"), SUMMARY]
    outcome = shapes.run("--fix")
    assert (outcome.lines, outcome.code) == ([], 0)
    assert "nothing to fix" in outcome.stderr


def test_fix_usage_errors(shapes: Project) -> None:
    outcome = shapes.run("--write")
    assert outcome.code == 2
    assert outcome.stderr == "device-types audit: error: --write applies what --fix shows; pass --fix --write\n"
    outcome = shapes.run("--fix", "--format", "json")
    assert outcome.code == 2
    assert outcome.stderr == "device-types audit: error: --fix prints a unified diff; leave out --format json\n"


def test_fix_never_invents_content(project: Project) -> None:
    # Statuses in other words than open/resolved, empty cells and unreadable markers stay.
    project.write(
        "pkg/_backends/mps/ops.py",
        """
        def baddbmm(x):
            # TODO: re-enable native kernel when fixes aten.baddbmm crash
            if USE_NATIVE:
                return native(x)
        """,
    )
    project.docs(
        "| aten.baddbmm | Metal | — | bmm + add | macOS 15.3 | open since 15.2 |",
        "| aten.addmm | MPS | crash | mm + add | macOS 15.3 | Resolved |",
        header="| Op | Backend | Error | Workaround | Platform | Status |\n|---|---|---|---|---|---|",
    )
    outcome = project.run("--fix")
    assert outcome.lines == [
        f"--- a/{DOCS}",
        f"+++ b/{DOCS}",
        "@@ -1,6 +1,6 @@",
        " # Known kernel issues",
        " ",
        "-| Op | Backend | Error | Workaround | Platform | Status |",
        "+| Op name | Backend | Error description | Composite workaround | Platform version | Status |",
        " |---|---|---|---|---|---|",
        "-| aten.baddbmm | Metal | — | bmm + add | macOS 15.3 | open since 15.2 |",
        "-| aten.addmm | MPS | crash | mm + add | macOS 15.3 | Resolved |",
        "+| aten.baddbmm | mps | — | bmm + add | macOS 15.3 | open since 15.2 |",
        f"+| aten.addmm | mps | crash | mm + add | macOS 15.3 | {RESOLVED} |",
    ]


def test_one_shared_kernel_is_narrowed_by_function_and_chip(project: Project) -> None:
    # Three ops share one kernel; the marker's function says which. One kernel listed under
    # two chips is one preserved native kernel: its marker covers both rows.
    project.write("pyproject.toml", '[tool.device_types]\nplatforms = { "A1" = "npu", "B2" = "npu" }\n')
    project.write(
        "pkg/_backends/npu/ops.py",
        """
        def kthvalue(x):
            # TODO: re-enable native aclnnSelectK when CANN fixes 561103 on B2
            if NATIVE:
                return native(x)


        def msort(x):
            # TODO: re-enable native aclnnSelectK when CANN fixes 561103
            if NATIVE:
                return native(x)
        """,
    )
    project.write(
        DOCS,
        """
        ## A1

        | Op | Kernel | Error | Workaround | Verified on |
        | --- | --- | --- | --- | --- |
        | `kthvalue` | `aclnnSelectK` | 561103 | sort + index | CANN 8 |
        | `msort` | `aclnnSelectK` | 561103 | sort | CANN 8 |
        | `median` | `aclnnSelectK` (used internally) | 561103 | sort + middle | CANN 8 |

        ## B2

        | Op | Kernel | Error | Workaround | Verified on |
        | --- | --- | --- | --- | --- |
        | `kthvalue` | `aclnnSelectK` | 561103 | sort + index | CANN 8 |
        """,
    )
    assert project.run().lines == [
        f"{DOCS}:8: median on npu is open, but no marker in the npu backend matches it; keep the native "
        f"kernel behind a guard marked '{FORM}' (naming aten.median or aclnnSelectK in the issue), or set "
        f"Status to '{RESOLVED}'; run device-types explain audit-orphan-row [audit-orphan-row]",
        f"audit failed: 1 finding in 1 file; checked 2 markers in 1 backend file (npu) against 4 rows of {DOCS}",
    ]


def test_marker_matched_by_error_code_alone(project: Project) -> None:
    project.write("pyproject.toml", '[tool.device_types]\ndefault_backend = "npu"\n')
    project.write(
        "pkg/_backends/npu/ops.py",
        """
        # TODO: re-enable native kernel when CANN 8.2 fixes 507015
        USE_NATIVE_FUSED = False
        # TODO: re-enable native kernel when CANN 8.2 fixes 161002
        USE_NATIVE_OTHER = False
        """,
    )
    project.write(
        DOCS,
        """
        | Op | Error | Workaround | Version |
        |---|---|---|---|
        | fused_adam | aicore 507015 | foreach ops | CANN 8.1 |
        | nll_loss | 161002 | gather + mean | CANN 8.1 |
        | nll_loss2d | 161002 | gather + mean | CANN 8.1 |
        """,
    )
    # 507015 names one row; 161002 names two ops, so that marker stays unmatched.
    assert project.run().lines[:-1] == [
        f"{DOCS}:5: nll_loss on npu is open, but no marker in the npu backend matches it; keep the native "
        f"kernel behind a guard marked '{FORM}' (naming aten.nll_loss in the issue), or set Status to "
        f"'{RESOLVED}'; run device-types explain audit-orphan-row [audit-orphan-row]",
        f"{DOCS}:6: nll_loss2d on npu is open, but no marker in the npu backend matches it; keep the native "
        f"kernel behind a guard marked '{FORM}' (naming aten.nll_loss2d in the issue), or set Status to "
        f"'{RESOLVED}'; run device-types explain audit-orphan-row [audit-orphan-row]",
        "pkg/_backends/npu/ops.py:4: cannot tell which op this marker is for; name it in the issue (e.g. "
        "'fixes aten.baddbmm crash') or put the marker inside or directly above the op's function"
        "; run device-types explain audit-marker-no-op [audit-marker-no-op]",
    ]


def test_backend_from_heading_words_path_and_default(project: Project) -> None:
    project.write("pkg/_backends/mps/ops.py", "def relu(x):\n    return x\n")
    project.write("pkg/_backends/npu/ops.py", "def relu(x):\n    return x\n")
    table = "| Op | Error | Workaround | Platform |\n|---|---|---|---|\n| `{op}` | crash | composite | {v} |\n"
    project.write(
        DOCS,
        "# Issues\n\nApple GPUs\n==========\n\n" + table.format(op="baddbmm", v="macOS 15")
        + "\n## Ascend (NPU)\n\n" + table.format(op="gelu", v="CANN 8"),
    )
    lines = project.run().lines
    assert lines[:2] == [
        f"{DOCS}:8: baddbmm on mps is open, but no marker in the mps backend matches it; keep the native "
        f"kernel behind a guard marked '{FORM}' (naming aten.baddbmm in the issue), or set Status to "
        f"'{RESOLVED}'; run device-types explain audit-orphan-row [audit-orphan-row]",
        f"{DOCS}:14: gelu on npu is open, but no marker in the npu backend matches it; keep the native "
        f"kernel behind a guard marked '{FORM}' (naming aten.gelu in the issue), or set Status to "
        f"'{RESOLVED}'; run device-types explain audit-orphan-row [audit-orphan-row]",
    ]
    project.write("docs/npu/known-kernel-issues.md", "| Op | Error | Workaround | Platform |\n|---|---|---|---|\n| `gelu` | crash | tanh | CANN 8 |\n")
    project.write("pyproject.toml", '[tool.device_types]\nknown_issues = "docs/npu/known-kernel-issues.md"\n')
    assert "gelu on npu is open" in project.run().lines[0]
    project.write("pyproject.toml", '[tool.device_types]\nknown_issues = "docs/npu/known-kernel-issues.md"\ndefault_backend = "mps"\n')
    assert "gelu on npu is open" in project.run().lines[0]  # the path wins over the default


def test_bad_documents_are_one_line_errors(project: Project, tmp_path: Path) -> None:
    project.write("pkg/_backends/mps/ops.py", "def relu(x):\n    return x\n")
    docs = project.write(DOCS, "x")
    docs.write_bytes(b"# Issues\n\x89PNG\r\n\x1a\n\x00\x00")
    outcome = project.run()
    assert outcome.code == 2
    assert outcome.stderr == (
        f"device-types audit: error: {DOCS} is a binary file (a NUL byte on line 4), not markdown; set "
        "known_issues in [tool.device_types] to the markdown document\n"
    )
    with docs.open("wb") as f:
        f.truncate(8 * 1024 * 1024 + 1)
    outcome = project.run()
    assert (outcome.code, outcome.stderr) == (2, (
        f"device-types audit: error: {DOCS} is larger than 8 MiB; the known-issues document must be a "
        "hand-written markdown file (set known_issues in [tool.device_types] to it)\n"
    ))


def test_broken_tables_are_findings_not_crashes(project: Project) -> None:
    project.write("pkg/_backends/npu/ops.py", "def relu(x):\n    return x\n")
    project.write("pyproject.toml", '[tool.device_types]\ndefault_backend = "npu"\n')
    project.write(
        DOCS,
        "| Op | Error | Workaround | Platform |\n|---|---|---|---|\n| `a` \n|||||||\n| `b` | \\| | x | y | z |\n"
        "\n| Op | Error |\n|---|\n\n|---|---|\n| x | y |\n",
    )
    outcome = project.run()
    assert outcome.code == 1
    assert [(line.split(":")[1], line.rsplit("[", 1)[1]) for line in outcome.lines[:-1]] == [
        ("3", "audit-orphan-row]"),
        ("3", "audit-table-ragged-row]"),
        ("4", "audit-table-empty-cell]"),
        ("4", "audit-table-empty-cell]"),
        ("4", "audit-table-empty-cell]"),
        ("4", "audit-table-empty-cell]"),
        ("4", "audit-table-ragged-row]"),
        ("5", "audit-orphan-row]"),
        ("5", "audit-table-ragged-row]"),
        # The second table (a one-cell delimiter row) lacks three fields; the third
        # (a delimiter row with no header) is no table.
        ("7", "audit-table-missing-column]"),
        ("7", "audit-table-missing-column]"),
        ("7", "audit-table-missing-column]"),
    ]


def test_nul_bytes_in_backend_code_are_unreadable_source(project: Project) -> None:
    project.docs()
    project.write("pkg/_backends/mps/ops.py", "x")
    (project.root / "pkg/_backends/mps/ops.py").write_bytes(b"# TODO: re-enable native kernel\x00\n")
    outcome = project.run()
    assert outcome.lines[0] == (
        "pkg/_backends/mps/ops.py:1: not valid Python (source code string cannot contain null bytes); markers "
        "in this file were not checked; run device-types explain audit-unreadable-source [audit-unreadable-source]"
    )


def test_fix_keeps_line_endings_owner_and_untouched_bytes(project: Project) -> None:
    project.write("pyproject.toml", '[tool.device_types]\nplatforms = { "910B" = "npu" }\n')
    code = project.root / "pkg/_backends/npu/ops.py"
    code.parent.mkdir(parents=True)
    code.write_bytes(
        b"def gelu(x):\r\n"
        b"    # TODO(kim): re-enable native aclnnGelu when CANN 8.2 fixes 561103\r\n"
        b"    if NATIVE:\r\n"
        b"        return native(x)\r\n"
    )
    docs = project.root / DOCS
    docs.parent.mkdir(parents=True)
    docs.write_bytes(
        b"## 910B\r\n\r\n| Op | Kernel | Error | Workaround | Verified on |\r\n|---|---|---|---|---|\r\n"
        b"| `gelu` | `aclnnGelu` | 561103 | tanh form | CANN 8.1 |\r\n\r\ntrailing  text\r\n"
    )
    assert project.run("--fix", "--write").code == 0
    assert code.read_bytes() == (
        b"def gelu(x):\r\n"
        b"    # TODO(kim): re-enable native kernel when CANN 8.2 fixes aclnnGelu 561103\r\n"
        b"    if NATIVE:\r\n"
        b"        return native(x)\r\n"
    )
    assert docs.read_bytes() == (
        b"## 910B\r\n\r\n"
        b"| Op name | Backend | Kernel | Error description | Composite workaround | Platform version | Status |\r\n"
        b"| --- | --- | --- | --- | --- | --- | --- |\r\n"
        b"| `gelu` | npu | `aclnnGelu` | 561103 | tanh form | CANN 8.1 | open (workaround active) |\r\n"
        b"\r\ntrailing  text\r\n"
    )
    assert project.run("--strict").code == 0


def test_odd_cells_and_columns_teams_write(project: Project) -> None:
    # Status marks, a backend with a qualifier, two error columns, <br> between ops, and a
    # "native <op> path" marker: all read, no schema finding; the Error and Error code
    # columns only add to each other (strict mode asks for one).
    project.write(
        "pkg/_backends/mps/ops.py",
        """
        def matmul(a, b):
            # TODO: re-enable native matmul path when macOS 15.5 resolves the stride bug.
            if NATIVE:
                return native(a, b)


        def _erf_native(x):  # TODO: re-enable native kernel when macOS 15.5 fixes aten.erfc
            return x
        """,
    )
    project.docs(
        "| `matmul` | mps (M1 only) | strides | wrong result | bmm | macOS 15.4 | \U0001F534 Open |",
        "| `erf`<br>`erfc` | MPS | - | NaN | series | macOS 15.4 | \u2705 resolved |",
        "| `addmm` | mps | E1234 | crash | mm + add | macOS 15.4 | open (workaround active) |",
        header=(
            "| Op | Backend | Error code | Error | Workaround | Platform | Status |\n"
            "|---|---|---|---|---|---|---|"
        ),
    )
    outcome = project.run()
    assert outcome.lines == [
        f"{DOCS}:7: addmm on mps is open, but no marker in the mps backend matches it; keep the native kernel "
        f"behind a guard marked '{FORM}' (naming aten.addmm in the issue), or set Status to '{RESOLVED}'"
        "; run device-types explain audit-orphan-row [audit-orphan-row]",
        f"pkg/_backends/mps/ops.py:8: {DOCS}:6 says erf / erfc on mps is resolved, but this marker is still "
        f"here; remove the marker and its guard, or set the row back to '{OPEN}'; run device-types explain audit-stale-marker [audit-stale-marker]",
        "audit failed: 2 findings in 2 files; checked 2 markers in 1 backend file (mps) against 3 rows of "
        f"{DOCS}",
    ]
    strict = project.run("--strict").lines
    assert f"{DOCS}:3: columns 'Error code' and 'Error' both read as 'Error description'; rename or remove one; run device-types explain audit-table-duplicate-column [audit-table-duplicate-column]" in strict


def test_no_backend_suggests_the_device_its_kernels_belong_to(project: Project) -> None:
    project.write("pkg/_backends/mps/ops.py", "def relu(x):\n    return x\n")
    project.write(
        DOCS,
        "## M3\n\n| Op | Metal kernel | Error | Workaround | Tested on |\n|---|---|---|---|---|\n"
        "| `cumsum` | `MPSGraphCumulativeSum` | wrong sums | scan | macOS 15.2 |\n",
    )
    assert project.run().lines[0] == (
        f"{DOCS}:3: the table under '## M3' has no 'Backend' column and neither a heading nor the document's "
        "path names a backend; map the headings in [tool.device_types] platforms (e.g. platforms = "
        '{ "M3" = "mps" }), set default_backend, or add a \'Backend\' column; run device-types explain audit-table-no-backend [audit-table-no-backend]'
    )


def test_fix_pads_a_short_delimiter_row_with_delimiters(project: Project) -> None:
    # An empty cell in the delimiter row would end the table, so a second --fix would see
    # another document; the fix converges in one step.
    project.write("pkg/_backends/npu/ops.py", "def relu(x):\n    return x\n")
    project.write("pyproject.toml", '[tool.device_types]\ndefault_backend = "npu"\n')
    project.write(DOCS, "| Op | Error | Workaround | Platform |\n|---|---|---|\n| `gelu` | NaN | tanh | CANN 8 |\n")
    assert project.run("--fix", "--write").code == 0
    assert (project.root / DOCS).read_text() == (
        "| Op name | Backend | Error description | Composite workaround | Platform version | Status |\n"
        "| --- | --- | --- | --- | --- | --- |\n"
        f"| `gelu` | npu | NaN | tanh | CANN 8 | {OPEN} |\n"
    )
    assert project.run("--fix").code == 0
