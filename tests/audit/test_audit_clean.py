"""Trees that pass: every marker has its open row, every open row its marker and guard."""

from __future__ import annotations

import shutil
from pathlib import Path

from audit_tree import DOCS, FIRST_ROW, OPEN, RESOLVED, Project, guarded, row

REPO = Path(__file__).resolve().parents[2]


def test_src_layout_found_without_configuration(project: Project) -> None:
    project.write("src/candle/_backends/mps/ops.py", guarded("baddbmm"))
    project.docs(row("aten.baddbmm", workaround="`baddbmm_composite` (bmm + add + mul)"))
    project.write("src/candle/_backends/mps/composite.py", "def baddbmm_composite(x):\n    return x\n")
    outcome = project.run()
    assert outcome.lines == [
        f"audit clean: 1 marker in 2 backend files (mps) against 1 row of {DOCS}"
    ]
    assert outcome.code == 0


def test_configured_backends_in_flat_layout(project: Project) -> None:
    project.write(
        "pyproject.toml",
        '[tool.device_types]\nbackends = { "candle.kernels.ascend" = "npu" }\n'
        'known_issues = "KERNELS.md"\n',
    )
    project.write("candle/kernels/ascend/ops.py", guarded("softmax", platform="CANN 8.1"))
    # Not configured, so not a backend even though the directory name says so.
    project.write("candle/_backends/mps/ops.py", guarded("gelu"))
    project.write("KERNELS.md", "\n".join([HEADER_ONLY, row("softmax", "npu")]) + "\n")
    outcome = project.run()
    assert outcome.lines == ["audit clean: 1 marker in 1 backend file (npu) against 1 row of KERNELS.md"]
    assert outcome.code == 0


HEADER_ONLY = (
    "| Op name | Backend | Error description | Composite workaround | Platform version | Status |\n"
    "|---|---|---|---|---|---|"
)


def test_one_table_per_chip_with_loose_headers_and_extra_columns(project: Project) -> None:
    project.write("pkg/_backends/mps/ops.py", guarded("baddbmm"))
    project.write("pkg/_backends/npu/ops.py", guarded("index_put", platform="CANN 8.0") + guarded("softmax"))
    project.write(
        DOCS,
        f"""
        # Known kernel issues

        ## Apple (MPS)

        | Op | Backend | Error | Workaround | Platform | Status | Notes |
        |:---|:---:|---|---|---|---|---|
        | `baddbmm` | MPS | crash | bmm + add | macOS 15.3 | Open (workaround active) | see #12 |
        | aten.addmm | mps | crash | mm + add | macOS 15.2 | {RESOLVED} | |

        ## Ascend (NPU)

        | **Operator** | device | Error_Description | composite-workaround | Version | state |
        | --- | --- | --- | --- | --- | --- |
        | aten::index_put.default | npu | wrong results | scatter | CANN 8.0 | open |
        | torch.softmax | npu | overflow | exp / sum | CANN 8.0 | {OPEN} |
        """,
    )
    outcome = project.run()
    assert outcome.lines == [f"audit clean: 3 markers in 2 backend files (mps, npu) against 4 rows of {DOCS}"]


def test_markers_in_strings_docstrings_and_outside_backends_do_not_count(project: Project) -> None:
    project.write(
        "pkg/_backends/cuda/ops.py",
        '''
        """Docs: # TODO: re-enable native kernel when CUDA 12.5 fixes aten.sdpa"""

        HELP = "# TODO: re-enable native kernel when CUDA 12.5 fixes aten.gelu"


        def relu(x):
            return x
        ''',
    )
    project.write("pkg/ops.py", "# TODO: re-enable native kernel when CUDA 12.5 fixes aten.relu\n")
    project.write("tools/_backends/other/x.py", "# TODO: re-enable native kernel when X fixes aten.relu\n")
    project.docs()
    outcome = project.run()
    assert outcome.lines == [f"audit clean: 0 markers in 1 backend file (cuda) against 0 rows of {DOCS}"]
    assert outcome.code == 0


def test_guard_styles(project: Project) -> None:
    project.write(
        "pkg/_backends/npu/ops.py",
        """
        import functools

        USE_NATIVE_ADDMM = False  # TODO: re-enable native kernel when CANN 8.1 fixes aten.addmm


        def bmm(x):
            if USE_NATIVE:
                # TODO: re-enable native kernel when CANN 8.1 fixes aclnnBatchMatMul strides
                return native(x)
            return composite(x)


        # TODO: re-enable native kernel when CANN 8.1 fixes
        #   the aclnnGelu fp16 overflow
        @functools.cache
        def _native_gelu(x):
            return x


        def erf(x):
            try:  # TODO: re-enable native kernel when CANN 8.1 fixes erf precision
                raise NotImplementedError
            except NotImplementedError:
                return composite(x)


        def dispatch(name, x):
            # TODO: re-enable native kernel when CANN 8.1 fixes the layer_norm NaN
            if name == "layer_norm" and USE_NATIVE:
                return native(x)
        """,
    )
    project.docs(*(row(op, "npu") for op in ("addmm", "bmm", "gelu", "erf", "layer_norm")))
    outcome = project.run()
    assert outcome.lines == [f"audit clean: 5 markers in 1 backend file (npu) against 5 rows of {DOCS}"]


def test_repository_template_passes(project: Project) -> None:
    (project.root / "docs").mkdir()
    shutil.copy(REPO / DOCS, project.root / DOCS)
    project.write("src/candle/_backends/mps/ops.py", "def relu(x):\n    return x\n")
    outcome = project.run()
    assert outcome.lines == [f"audit clean: 0 markers in 1 backend file (mps) against 0 rows of {DOCS}"]
    assert outcome.code == 0


def test_no_backend_code_is_one_line_and_exit_2(project: Project) -> None:
    """A mistyped --root in CI must not pass in silence."""
    (project.root / "docs").mkdir()
    shutil.copy(REPO / DOCS, project.root / DOCS)
    outcome = project.run()
    assert (outcome.code, outcome.lines) == (2, [])
    assert outcome.stderr == (
        f"device-types audit: error: no backend code under {project.root} (without [tool.device_types] backends, "
        "a backend is a */_backends/{cuda,mps,npu,xpu} directory); pass --root DIR with the project root, or name "
        "the backends\n")


def test_first_row_constant_matches_helper(project: Project) -> None:
    path = project.docs(row("aten.x"))
    assert path.read_text().splitlines()[FIRST_ROW - 1].startswith("| aten.x |")
