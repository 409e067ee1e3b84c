"""Marker findings: each defect kind between the backend code and the table."""

from __future__ import annotations

from audit_tree import DOCS, FIRST_ROW, OPEN, RESOLVED, Project, guarded, row, summary

MPS = "src/candle/_backends/mps/ops.py"
FORM = "# TODO: re-enable native kernel when <platform> fixes <issue>"
UNGUARDED = (
    "no guard keeps the native kernel here; put the marker on or directly above the 'if'/'try' "
    "that switches to the native kernel, inside that branch, above the preserved native 'def', "
    "or on its 'USE_NATIVE_... = False' flag; run device-types explain audit-unguarded-marker [audit-unguarded-marker]"
)


def test_marker_without_row_named_by_aten_op(project: Project) -> None:
    project.write(MPS, guarded("baddbmm"))
    project.docs(row("aten.baddbmm", "cuda", status=RESOLVED))
    outcome = project.run()
    assert outcome.lines == [
        f"{MPS}:2: no row for aten.baddbmm on mps in {DOCS} (line {FIRST_ROW} lists it for cuda); "
        f"add one with Backend 'mps' and Status '{OPEN}'; run device-types explain audit-missing-row [audit-missing-row]",
        summary(1, 1, 1, 1),
    ]
    assert outcome.code == 1


def test_marker_without_row_named_by_function(project: Project) -> None:
    project.write(MPS, guarded("baddbmm", issue="the Metal crash"))
    project.docs()
    assert project.run().lines == [
        f"{MPS}:2: no mps row in {DOCS} matches this marker in baddbmm(); add a row for the op with "
        f"Backend 'mps' and Status '{OPEN}', or name the op in the marker ('fixes aten.<op> ...')"
        "; run device-types explain audit-missing-row [audit-missing-row]",
        summary(1, 1, 1, 0),
    ]


def test_open_row_without_marker(project: Project) -> None:
    project.write(MPS, "def baddbmm(x):\n    return baddbmm_composite(x)\n")
    project.docs(row("aten.baddbmm"))
    assert project.run().lines == [
        f"{DOCS}:{FIRST_ROW}: baddbmm on mps is open, but no marker in the mps backend matches it; "
        f"keep the native kernel behind a guard marked '{FORM}' (naming aten.baddbmm in the issue), "
        f"or set Status to '{RESOLVED}'; run device-types explain audit-orphan-row [audit-orphan-row]",
        summary(1, 1, 0, 1),
    ]


def test_open_row_for_backend_without_code(project: Project) -> None:
    project.write(MPS, guarded("baddbmm"))
    project.docs(row("aten.baddbmm"), row("aten.softmax", "npu"))
    assert project.run().lines == [
        f"{DOCS}:{FIRST_ROW + 1}: softmax on npu is open, but no */_backends/npu/ directory under the "
        "root; add the backend or remove the row; run device-types explain audit-orphan-row [audit-orphan-row]",
        summary(1, 1, 1, 2),
    ]


def test_resolved_row_with_marker_left(project: Project) -> None:
    project.write(MPS, guarded("baddbmm"))
    project.docs(row("aten.baddbmm", status=RESOLVED))
    assert project.run().lines == [
        f"{MPS}:2: {DOCS}:{FIRST_ROW} says baddbmm on mps is resolved, but this marker is still here; "
        f"remove the marker and its guard, or set the row back to '{OPEN}'; run device-types explain audit-stale-marker [audit-stale-marker]",
        summary(1, 1, 1, 1),
    ]


def test_resolved_row_without_marker_is_clean(project: Project) -> None:
    project.write(MPS, "def baddbmm(x):\n    return native(x)\n")
    project.docs(row("aten.baddbmm", status="resolved"))
    assert project.run().code == 0


def test_malformed_markers(project: Project) -> None:
    project.write(
        MPS,
        """
        def baddbmm(x):
            # TODO: re-enable native kernel when fixes aten.baddbmm crash
            if USE_NATIVE:
                return native(x)


        def addmm(x):
            # TODO: re-enable native kernel when macOS 15.4 fixes
            if USE_NATIVE:
                return native(x)


        def addbmm(x):
            # todo - reenable the native kernel once Apple ships a fix
            if USE_NATIVE:
                return native(x)


        def gelu(x):
            # TODO: re-enable native kernel when <platform> fixes <issue>
            if USE_NATIVE:
                return native(x)
        """,
    )
    project.docs(*(row(op) for op in ("baddbmm", "addmm", "addbmm", "gelu")))
    assert project.run().lines == [
        f"{MPS}:3: marker names no platform; write the platform whose fix re-enables the kernel after "
        "'when', e.g. 'when macOS 15.4 fixes ...' or 'when CANN 8.1 fixes ...'; run device-types explain audit-marker-malformed [audit-marker-malformed]",
        f"{MPS}:9: marker names no issue; say after 'fixes' what must be fixed, e.g. 'fixes aten.baddbmm "
        "crash on batched inputs'; run device-types explain audit-marker-malformed [audit-marker-malformed]",
        f"{MPS}:15: marker does not read '{FORM}'; rewrite it in that form, e.g. '# TODO: re-enable "
        "native kernel when macOS 15.4 fixes aten.baddbmm crash'; run device-types explain audit-marker-malformed [audit-marker-malformed]",
        f"{MPS}:21: marker names no platform; write the platform whose fix re-enables the kernel after "
        "'when', e.g. 'when macOS 15.4 fixes ...' or 'when CANN 8.1 fixes ...'; run device-types explain audit-marker-malformed [audit-marker-malformed]",
        summary(4, 1, 4, 4),
    ]


def test_unguarded_marker_means_the_native_kernel_may_be_gone(project: Project) -> None:
    project.write(
        MPS,
        """
        def baddbmm(x):
            # TODO: re-enable native kernel when macOS 15.4 fixes aten.baddbmm crash
            return baddbmm_composite(x)


        def addmm(x):
            return addmm_composite(x)  # TODO: re-enable native kernel when macOS 15.4 fixes aten.addmm
        """,
    )
    project.docs(row("baddbmm"), row("addmm"))
    assert project.run().lines == [f"{MPS}:3: {UNGUARDED}", f"{MPS}:8: {UNGUARDED}", summary(2, 1, 2, 2)]


def test_marker_at_end_of_block_guards_nothing_below(project: Project) -> None:
    project.write(
        MPS,
        """
        def baddbmm(x):
            y = x
            # TODO: re-enable native kernel when macOS 15.4 fixes aten.baddbmm crash
        if True:
            pass
        """,
    )
    project.docs(row("baddbmm"))
    assert project.run().lines == [f"{MPS}:4: {UNGUARDED}", summary(1, 1, 1, 1)]


def test_marker_with_no_op_to_match(project: Project) -> None:
    project.write(
        MPS,
        """
        # TODO: re-enable native kernel when macOS 15.4 fixes the Metal crash
        USE_NATIVE = False
        """,
    )
    project.docs(row("baddbmm"))
    assert project.run().lines == [
        f"{MPS}:2: cannot tell which op this marker is for; name it in the issue (e.g. 'fixes "
        "aten.baddbmm crash') or put the marker inside or directly above the op's function"
        "; run device-types explain audit-marker-no-op [audit-marker-no-op]",
        f"{DOCS}:{FIRST_ROW}: baddbmm on mps is open, but no marker in the mps backend matches it; "
        f"keep the native kernel behind a guard marked '{FORM}' (naming aten.baddbmm in the issue), "
        f"or set Status to '{RESOLVED}'; run device-types explain audit-orphan-row [audit-orphan-row]",
    ][::-1] + [summary(2, 2, 1, 1)]


def test_op_found_by_function_words_issue_words_and_explicit_name(project: Project) -> None:
    project.write(
        MPS,
        """
        # TODO: re-enable native kernel when macOS 15.4 fixes the index_put race
        USE_NATIVE_SCATTER = False


        def _softmax_backward_native(x):  # TODO: re-enable native kernel when macOS 15.4 fixes NaNs
            return x


        def _dispatch(x):
            # TODO: re-enable native kernel when macOS 15.4 fixes `torch.gelu` (the bmm path)
            if USE_NATIVE:
                return x
        """,
    )
    # softmax_backward beats softmax (longest op in the function's words); the explicit
    # `torch.gelu` beats the word "bmm" in the issue.
    project.docs(*(row(op) for op in ("index_put", "softmax", "softmax_backward", "gelu", "bmm")))
    assert project.run().lines == [
        f"{DOCS}:{FIRST_ROW + 1}: softmax on mps is open, but no marker in the mps backend matches it; "
        f"keep the native kernel behind a guard marked '{FORM}' (naming aten.softmax in the issue), "
        f"or set Status to '{RESOLVED}'; run device-types explain audit-orphan-row [audit-orphan-row]",
        f"{DOCS}:{FIRST_ROW + 4}: bmm on mps is open, but no marker in the mps backend matches it; "
        f"keep the native kernel behind a guard marked '{FORM}' (naming aten.bmm in the issue), "
        f"or set Status to '{RESOLVED}'; run device-types explain audit-orphan-row [audit-orphan-row]",
        summary(2, 1, 3, 5),
    ]


def test_composite_named_in_row_must_exist(project: Project) -> None:
    project.write(MPS, guarded("baddbmm") + "\n\ndef baddbmm_composite(x):\n    return x\n")
    project.docs(
        row("baddbmm", workaround="`baddbmm_composite` then `torch.add` and `mul`"),
        row("addmm", status=RESOLVED, workaround="`addmm_composite` (deleted since)"),
    )
    assert project.run().code == 0
    project.docs(row("baddbmm", workaround="`baddbmm_via_bmm` and `scale()`; see `torch.bmm`"))
    assert project.run().lines == [
        f"{DOCS}:{FIRST_ROW}: 'Composite workaround' names `baddbmm_via_bmm`, but no function "
        "baddbmm_via_bmm is defined in the mps backend (src/candle/_backends/mps); fix the name or add "
        "the composite; run device-types explain audit-missing-workaround [audit-missing-workaround]",
        f"{DOCS}:{FIRST_ROW}: 'Composite workaround' names `scale`, but no function scale is defined in "
        "the mps backend (src/candle/_backends/mps); fix the name or add the composite"
        "; run device-types explain audit-missing-workaround [audit-missing-workaround]",
        summary(2, 1, 1, 1),
    ]


def test_unreadable_backend_file_is_a_finding(project: Project) -> None:
    project.write(MPS, guarded("baddbmm"))
    bad = project.root / "src/candle/_backends/mps/latin.py"
    bad.write_bytes(b"# TODO: re-enable native kernel when macOS fixes caf\xe9\n")
    broken = project.write("src/candle/_backends/mps/broken.py", "# TODO: re-enable native kernel\ndef (:\n")
    assert broken.exists()
    project.docs(row("baddbmm"))
    outcome = project.run()
    assert outcome.lines == [
        "src/candle/_backends/mps/broken.py:2: not valid Python (invalid syntax); markers in this file "
        "were not checked; run device-types explain audit-unreadable-source [audit-unreadable-source]",
        "src/candle/_backends/mps/latin.py:1: not valid UTF-8 (byte 0xe9); markers in this file were "
        "not checked; run device-types explain audit-unreadable-source [audit-unreadable-source]",
        f"audit failed: 2 findings in 2 files; checked 1 marker in 3 backend files (mps) against 1 row of {DOCS}",
    ]
    assert outcome.code == 1


def test_platform_symbol_in_backticks_falls_back_to_the_function(project: Project) -> None:
    project.write(MPS, guarded("add_", issue="`MPSGraphAdd` in-place aliasing"))
    project.docs(row("[aten.add_](https://github.com/pytorch/pytorch/issues/1)"))
    outcome = project.run()
    assert outcome.lines == [f"audit clean: 1 marker in 1 backend file (mps) against 1 row of {DOCS}"]


def test_phrase_without_todo_is_still_checked(project: Project) -> None:
    project.write(
        MPS,
        """
        def baddbmm(x):
            # FIXME re-enable native kernel when macOS 15.4 fixes aten.baddbmm
            if USE_NATIVE:
                return native(x)
        """,
    )
    project.docs(row("baddbmm"))
    assert project.run().lines == [
        f"{MPS}:3: marker does not read '{FORM}'; rewrite it in that form, e.g. '# TODO: re-enable "
        "native kernel when macOS 15.4 fixes aten.baddbmm crash'; run device-types explain audit-marker-malformed [audit-marker-malformed]",
        summary(1, 1, 1, 1),
    ]
