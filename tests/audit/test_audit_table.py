"""Table findings: what a loose or broken known-issues document is told to fix."""

from __future__ import annotations

from audit_tree import DOCS, FIRST_ROW, HEADER, OPEN, RESOLVED, Project, guarded, row, summary

MPS = "pkg/_backends/mps/ops.py"


def test_missing_document(project: Project) -> None:
    project.write(MPS, guarded("baddbmm"))
    outcome = project.run()
    assert outcome.lines == [
        f"{DOCS}:1: {DOCS} does not exist; create it with a markdown table whose columns are 'Op name', "
        "'Backend', 'Error description', 'Composite workaround', 'Platform version' and 'Status' "
        "(one row per known kernel issue); run device-types explain audit-docs-missing [audit-docs-missing]",
        f"{MPS}:2: no row for aten.baddbmm on mps in {DOCS}; add one with Backend 'mps' and Status "
        f"'{OPEN}'; run device-types explain audit-missing-row [audit-missing-row]",
        summary(2, 2, 1, 0),
    ]
    assert outcome.code == 1


def test_document_without_a_table(project: Project) -> None:
    project.write(MPS, "def relu(x):\n    return x\n")
    project.write(DOCS, "# Known kernel issues\n\nNone yet.\n")
    assert project.run().lines == [
        f"{DOCS}:1: no known-issues table; add a markdown table with the columns 'Op name', 'Backend', "
        "'Error description', 'Composite workaround', 'Platform version' and 'Status'; run device-types explain audit-table-missing [audit-table-missing]",
        summary(1, 1, 0, 0),
    ]


def test_only_other_tables_are_named(project: Project) -> None:
    project.write(MPS, "def relu(x):\n    return x\n")
    project.write(
        DOCS,
        """
        # Known kernel issues

        | Field | Meaning |
        |---|---|
        | Op name | e.g. aten.baddbmm |

        ```
        | Op name | Backend | Error description | Composite workaround | Platform version | Status |
        |---|---|---|---|---|---|
        ```
        """,
    )
    assert project.run().lines == [
        f"{DOCS}:4: no known-issues table; add a markdown table with the columns 'Op name', 'Backend', "
        "'Error description', 'Composite workaround', 'Platform version' and 'Status' (the table at line 4 "
        "has the columns 'Field', 'Meaning'; rename them); run device-types explain audit-table-missing [audit-table-missing]",
        summary(1, 1, 0, 0),
    ]


def test_unrecognised_column_is_named_with_its_rename(project: Project) -> None:
    project.write(MPS, guarded("baddbmm"))
    project.write(
        DOCS,
        f"""
        # Known kernel issues

        | Op | Backend | Error | Fix | Platform | Status |
        |---|---|---|---|---|---|
        | aten.baddbmm | mps | crash | bmm + add | macOS 15.3 | {OPEN} |
        """,
    )
    assert project.run().lines == [
        f"{DOCS}:4: table has no 'Composite workaround' column; add it (which smaller on-device ops replace "
        "it); run device-types explain audit-table-missing-column [audit-table-missing-column]",
        f"{DOCS}:4: column 'Fix' not recognised; rename it to 'Composite workaround'; run device-types explain audit-table-unknown-column [audit-table-unknown-column]",
        summary(2, 1, 1, 1),
    ]


def test_several_missing_columns_and_a_duplicate(project: Project) -> None:
    project.write(MPS, guarded("baddbmm"))
    project.write(
        DOCS,
        """
        # Known kernel issues

        | Operator | Device | Backend | Ticket | Notes |
        |---|---|---|---|---|
        | aten.baddbmm | mps | mps | #12 | crash |
        """,
    )
    assert project.run().lines == [
        f"{DOCS}:4: columns 'Device' and 'Backend' both read as 'Backend'; rename or remove one"
        "; run device-types explain audit-table-duplicate-column [audit-table-duplicate-column]",
        f"{DOCS}:4: table has no 'Composite workaround' column; add it (which smaller on-device ops replace "
        "it); run device-types explain audit-table-missing-column [audit-table-missing-column]",
        f"{DOCS}:4: table has no 'Error description' column; add it (what happens when the native kernel "
        "runs); run device-types explain audit-table-missing-column [audit-table-missing-column]",
        f"{DOCS}:4: table has no 'Platform version' column; add it (the platform version, e.g. macOS 15.3 / "
        "Metal 3 or CANN 8.0); run device-types explain audit-table-missing-column [audit-table-missing-column]",
        f"{DOCS}:4: table has no 'Status' column; add it ('{OPEN}' or '{RESOLVED}'); run device-types explain audit-table-missing-column [audit-table-missing-column]",
        f"{DOCS}:4: column 'Notes' not recognised; rename it to whichever of 'Error description', "
        "'Composite workaround', 'Platform version' or 'Status' it holds; run device-types explain audit-table-unknown-column [audit-table-unknown-column]",
        f"{DOCS}:4: column 'Ticket' not recognised; rename it to whichever of 'Error description', "
        "'Composite workaround', 'Platform version' or 'Status' it holds; run device-types explain audit-table-unknown-column [audit-table-unknown-column]",
        summary(7, 1, 1, 1),
    ]


def test_table_without_op_column_suppresses_matching_findings(project: Project) -> None:
    # Its rows cannot be matched, so "marker has no row" would be noise until the column is fixed.
    project.write(MPS, guarded("baddbmm"))
    project.write(
        DOCS,
        f"""
        # Known kernel issues

        | Kernel | Backend | Error description | Composite workaround | Platform version | Status |
        |---|---|---|---|---|---|
        | aten.baddbmm | mps | crash | bmm + add | macOS 15.3 | {OPEN} |
        """,
    )
    assert project.run().lines == [
        f"{DOCS}:4: table has no 'Op name' column; add it (the op, e.g. aten.baddbmm); run device-types explain audit-table-missing-column [audit-table-missing-column]",
        f"{DOCS}:4: column 'Kernel' not recognised; rename it to 'Op name'; run device-types explain audit-table-unknown-column [audit-table-unknown-column]",
        summary(2, 1, 1, 0),
    ]


def test_ragged_rows(project: Project) -> None:
    project.write(MPS, guarded("baddbmm") + guarded("addmm"))
    project.docs(
        "| aten.baddbmm | mps | crash | bmm + add | macOS 15.3 |",
        f"| aten.addmm | mps | crash | mm | add | macOS 15.3 | {OPEN} |",
    )
    assert project.run().lines == [
        f"{DOCS}:{FIRST_ROW}: row has 5 cells but the header has 6; add the missing cells (write a '|' "
        "inside a cell as '\\|'); run device-types explain audit-table-ragged-row [audit-table-ragged-row]",
        f"{DOCS}:{FIRST_ROW + 1}: 'Status' is 'macOS 15.3'; use '{OPEN}' or '{RESOLVED}'; run device-types explain audit-table-bad-status [audit-table-bad-status]",
        f"{DOCS}:{FIRST_ROW + 1}: row has 7 cells but the header has 6; remove the extra cells (write a '|' "
        "inside a cell as '\\|'); run device-types explain audit-table-ragged-row [audit-table-ragged-row]",
        summary(3, 1, 2, 2),
    ]


def test_escaped_pipe_and_backslash_in_cells(project: Project) -> None:
    project.write(MPS, guarded("baddbmm"))
    project.docs(row("aten.baddbmm", workaround="bmm \\| add (a \\| b)"))
    assert project.run().code == 0


def test_cell_values(project: Project) -> None:
    # Only rows with a valid op and backend are counted (and matched): baddbmm and gelu.
    project.write(MPS, guarded("baddbmm"))
    project.docs(
        row("aten.baddbmm", error="", platform="-"),
        row("aten.addmm", "Metal", status=RESOLVED),
        row("aten.bmm", "mps, cuda", status=RESOLVED),
        row("aten.mm", "tpu", status=RESOLVED),
        row("aten.gelu", status="fixed"),
        row("baddbmm crash", status=RESOLVED),
        row("`baddbmm`", status="Open"),
    )
    assert project.run().lines == [
        f"{DOCS}:{FIRST_ROW}: row for baddbmm has an empty 'Error description' cell; fill in what happens "
        "when the native kernel runs; run device-types explain audit-table-empty-cell [audit-table-empty-cell]",
        f"{DOCS}:{FIRST_ROW}: row for baddbmm has an empty 'Platform version' cell; fill in the platform "
        "version, e.g. macOS 15.3 / Metal 3 or CANN 8.0; run device-types explain audit-table-empty-cell [audit-table-empty-cell]",
        f"{DOCS}:{FIRST_ROW + 1}: 'Backend' is 'Metal', not one of cuda, mps, npu or xpu; write 'mps'"
        "; run device-types explain audit-table-bad-backend [audit-table-bad-backend]",
        f"{DOCS}:{FIRST_ROW + 2}: 'Backend' is 'mps, cuda', not one of cuda, mps, npu or xpu; one backend per row: "
        "split it into one row per backend; run device-types explain audit-table-bad-backend [audit-table-bad-backend]",
        f"{DOCS}:{FIRST_ROW + 3}: 'Backend' is 'tpu', not one of cuda, mps, npu or xpu; run device-types explain audit-table-bad-backend [audit-table-bad-backend]",
        f"{DOCS}:{FIRST_ROW + 4}: 'Status' is 'fixed'; use '{OPEN}' or '{RESOLVED}'; run device-types explain audit-table-bad-status [audit-table-bad-status]",
        f"{DOCS}:{FIRST_ROW + 5}: 'Op name' is 'baddbmm crash', not one op name; write it as aten.baddbmm, "
        "baddbmm or `baddbmm` (one row per op); run device-types explain audit-table-bad-op [audit-table-bad-op]",
        f"{DOCS}:{FIRST_ROW + 6}: baddbmm on mps is already listed at line {FIRST_ROW}; keep one row per op "
        "and backend; run device-types explain audit-table-duplicate-row [audit-table-duplicate-row]",
        summary(8, 1, 1, 2),
    ]


def test_duplicate_rows_across_tables(project: Project) -> None:
    project.write(MPS, guarded("baddbmm"))
    project.write(
        DOCS,
        "\n".join(["# Issues", "", "## M3", "", HEADER, row("baddbmm"), "", "## M4", "", HEADER, row("aten.baddbmm")])
        + "\n",
    )
    assert project.run().lines == [
        f"{DOCS}:13: baddbmm on mps is already listed at line 7; keep one row per op and backend"
        "; run device-types explain audit-table-duplicate-row [audit-table-duplicate-row]",
        summary(1, 1, 1, 1),
    ]


def test_rows_in_html_comments_and_code_fences_are_not_rows(project: Project) -> None:
    project.write(MPS, "def relu(x):\n    return x\n")
    project.write(
        DOCS,
        "\n".join(["# Issues", "", HEADER, "<!-- example:", row("aten.baddbmm"), "-->", "", "```", HEADER, row("x"), "```"])
        + "\n",
    )
    outcome = project.run()
    assert outcome.lines == [f"audit clean: 0 markers in 1 backend file (mps) against 0 rows of {DOCS}"]


def test_heading_underline_is_not_a_table(project: Project) -> None:
    project.write(MPS, "def relu(x):\n    return x\n")
    project.write(DOCS, "Op name | Backend\n---\n\n" + HEADER + "\n")
    assert project.run().code == 0
