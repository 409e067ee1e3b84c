"""Reading cells, tables and markers as teams write them (the units under the audit)."""

from __future__ import annotations

import textwrap

import pytest

from device_types._audit._cells import camel_words, error_codes, is_empty, kernel_names, read_op_cell
from device_types._audit._markers import find_markers
from device_types._audit._table import parse_tables


@pytest.mark.parametrize(
    ("cell", "ops", "qualifier"),
    [
        ("`layer_norm` (float32)", ("layer_norm",), "float32"),
        ("`lt` / `gt` (int64 indices)", ("lt", "gt"), "int64 indices"),
        ("`synchronize` / `is_current_stream_capturing`", ("synchronize", "is_current_stream_capturing"), ""),
        ("aten.baddbmm / aten.addbmm", ("baddbmm", "addbmm"), ""),
        ("`sin`, `cos` and `tan`", ("sin", "cos", "tan"), ""),
        ("matmul and bmm (fp16)", ("matmul", "bmm"), "fp16"),
        ("aten::index_put.default", ("index_put",), ""),
        ("`aten.add_.Tensor`", ("add_",), ""),
        ("torch.softmax", ("softmax",), ""),
        ("[aten.add_](https://example.org/1)", ("add_",), ""),
        ("**`mish`**", ("mish",), ""),
        ("group\\_norm", ("group_norm",), ""),
        ("`std` \u2014 all-reduce only", ("std",), "all-reduce only"),
        ("index_put: bool masks", ("index_put",), ""),
        ("`cumsum()`", ("cumsum",), ""),
        ("`erf`<br>`erfc`", ("erf", "erfc"), ""),
        ("torch.nn.functional.gelu (tanh)", ("gelu",), "tanh"),
    ],
)
def test_op_cells(cell: str, ops: tuple[str, ...], qualifier: str) -> None:
    assert read_op_cell(cell) == (ops, qualifier)


@pytest.mark.parametrize("cell", ["baddbmm crash", "6-op composite", "`a b`", "see below"])
def test_cells_that_are_no_op(cell: str) -> None:
    assert read_op_cell(cell) is None


@pytest.mark.parametrize("cell", ["", "-", "--", "\u2014", "\u2013", "n/a", "N/A", "TBD", "`-`", "**\u2014**"])
def test_empty_cells(cell: str) -> None:
    assert is_empty(cell)


def test_kernel_names_error_codes_and_vendor_names() -> None:
    assert kernel_names("`aclnnTopk` (used internally)", True) == ("aclnnTopk",)
    assert kernel_names("aclnnVar (all-reduce)", False) == ("aclnnVar",)
    assert kernel_names("4-op composite", True) == ()
    assert kernel_names("crash on batched inputs", False) == ()
    assert kernel_names("MPSGraph matmul", True) == ("MPSGraph",)
    assert error_codes("ACLNN 561000 under pressure (161001)") == ("561000", "161001")
    assert error_codes("CANN 8.0.1, macOS 15.3, 2.13") == ()
    assert error_codes("EZ9999 then E40021 (aicore)") == ("EZ9999", "E40021")
    assert camel_words("aclnnAvgPool2d") == "avg_pool2d"
    assert camel_words("aclnnStd") == "std"


def test_tables_under_nested_and_setext_headings_with_text_between() -> None:
    text = textwrap.dedent(
        """\
        Chips
        =====

        Intro text.

        ## Inference

        ### 310P

        | Op | ACLNN kernel | Error |
        |:---|:---:|---:|
        | `a` | `aclnnA` | 1 |

        Text between the tables.
        | Op | Error |
        |---|---|
        | `b` | 2 |

        ## Training
        | Op | Notes | Error |
        | -- | ----- | ----- |
        | c | aclnnC | 3 |
        """
    )
    first, second, third = parse_tables(text)
    assert [h.text for h in first.headings] == ["Chips", "Inference", "310P"]
    assert [h.text for h in second.headings] == ["Chips", "Inference", "310P"]
    assert [h.text for h in third.headings] == ["Chips", "Training"]
    assert first.kernel_columns == (1,)
    assert third.kernel_columns == (1,)  # no "kernel" in the header, but every cell is one
    assert (first.line, first.delimiter_line, first.rows[0].raw) == (10, 11, ("`a`", "`aclnnA`", "1"))


@pytest.mark.parametrize(
    ("comment", "platform", "issue", "what", "template"),
    [
        ("# TODO: re-enable native aclnnAvgPool2d when CANN fixes 161002 on 910B", "CANN", "161002 on 910B", "aclnnAvgPool2d", False),
        ("# TODO: re-enable float32 native path when CANN fixes float32 support on 310B.", "CANN", "float32 support on 310B", "float32 path", False),
        ("# TODO: re-enable native aclnnUpsample when CANN fixes it", "CANN", "it", "aclnnUpsample", False),
        ("# TODO: re-enable native aclnnIm2col when CANN fixes 561103!", "CANN", "561103", "aclnnIm2col", False),
        ("# TODO(kim): re-enable the native kernel when CANN 8.1 fixed aten.gelu", "CANN 8.1", "aten.gelu", None, True),
        ("# TODO: re-enable native kernel when CANN fixes aclnnFrac on 910A (561000)", "CANN", "aclnnFrac on 910A (561000)", None, True),
        ("# TODO - reenable native conv path when macOS 15.4 fixes the MPSGraph crash for fp16", "macOS 15.4", "the MPSGraph crash for fp16", "conv path", False),
        ("# TODO: re-enable native aclnnErfc when CANN 8.3 resolves EZ9999", "CANN 8.3", "EZ9999", "aclnnErfc", False),
    ],
)
def test_marker_variants_are_read(comment: str, platform: str, issue: str, what: str | None, template: bool) -> None:
    (marker,) = find_markers(f"def f():\n    {comment}\n    if X:\n        pass\n")
    assert (marker.platform, marker.issue, marker.what, marker.follows_form) == (platform, issue, what, template)


@pytest.mark.parametrize(
    "comment",
    [
        "# TODO: re-enable native aclnnStd when fixes 161002",  # no platform
        "# TODO: re-enable native aclnnStd when CANN fixes",  # no issue
        "# TODO: re-enable native aclnnStd once CANN ships a fix",  # no "when ... fixes"
    ],
)
def test_markers_without_platform_or_issue_are_not_read(comment: str) -> None:
    (marker,) = find_markers(f"def f():\n    {comment}\n    if X:\n        pass\n")
    assert not marker.readable


def test_continuation_lines() -> None:
    source = textwrap.dedent(
        """\
        def f():
            # TODO: re-enable native aclnnEinsum when CANN fixes 161002 on 910B
            #       and once aclnnEinsum availability is confirmed on 310B.
            if X:
                pass


        def g():
            # TODO: re-enable native aclnnStd when CANN fixes 161002
            # for all-reduce
            # Unrelated: the composite below is exact.
            if X:
                pass


        def h():
            # TODO: re-enable native kernel when CANN 8.1 fixes
            # aten.gelu overflow
            if X:
                pass
        """
    )
    einsum, std, gelu = find_markers(source)
    assert einsum.issue == "161002 on 910B"
    assert einsum.text.endswith("and once aclnnEinsum availability is confirmed on 310B.")
    assert std.text.endswith("161002 for all-reduce")
    assert gelu.issue == "aten.gelu overflow"
