"""``benchmarks/indirect_eval.py`` judges indirect findings against the edge labels as documented
(chain reached at the finding's call site, root the real host step), from the CLI's JSON fields
alone, with or without ``hops``. No engine and no wheel: the findings are written here."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from tests.check.candle_corpus import load_labels
from tests.check.labels import indirect

REPO = Path(__file__).resolve().parents[3]
MPS = "candle/_backends/mps/ops.py"
NPU = "candle/_backends/npu/ops.py"


@pytest.fixture(scope="module")
def evaluation():
    spec = importlib.util.spec_from_file_location("indirect_eval", REPO / "benchmarks" / "indirect_eval.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def _indirect(path, line, chain, root_text, **extra):
    message = (f'"{chain[0]}" calls "{chain[1]}()", which falls back to the host '
               f'({" -> ".join(chain)}: {root_text}) inside the backend; see docs/errors.md')
    return {"path": path, "line": line, "code": "device-indirect-fallback", "function": chain[0],
            "chain": chain, "message": message, **extra}


def _direct(path, line, function, root_text):
    return {"path": path, "line": line, "code": "device-readback", "function": function, "chain": [function],
            "message": f'"{function}" reads tensor data to the host with {root_text} and computes its result there'}


ROOT = _direct(MPS, 233, "_gpu_reduce_single_dim", '"from_address()" (raw memory read)')
SCALAR = _direct(NPU, 9713, "_build_dft_matrices", 'numpy "full()"')  # a line that is not the root


@pytest.mark.parametrize(("finding", "verdict"), [
    (_indirect(MPS, 490, ["argmax", "_gpu_reduce_single_dim"], '"from_address()" (raw memory read)'), "right"),
    (_indirect(MPS, 452, ["mean_", "_gpu_reduce_single_dim"], '"from_address()" (raw memory read)'), "not reached"),
    (_indirect(NPU, 9747, ["_apply_dft_1d", "_build_dft_matrices"], 'numpy "full()"'), "wrong root"),
    (_indirect(NPU, 9747, ["_apply_dft_1d", "_build_dft_matrices"], 'numpy "full()"',
               hops=[{"path": NPU, "line": 9747}, {"path": NPU, "line": 9702}]), "right"),
    (_indirect(NPU, 9747, ["_apply_dft_1d", "_build_dft_matrices"], "x", root=f"{NPU}:9713"), "wrong root"),
    (_indirect(NPU, 8627, ["nanquantile_op", "quantile_op"], 'numpy "zeros()"'), "not reached"),
    (_indirect(NPU, 4000, ["getitem", "_npu_basic_getitem_view"], "x"), "not reached"),  # callee labelled clean
    (_indirect(MPS, 1, ["no_such_caller", "no_such_callee"], "x"), "unjudged"),
], ids=["argmax", "mean_", "scalar-root", "hops", "root-field", "guard", "clean-callee", "unknown"])
def test_indirect_findings_are_judged_by_the_edge_labels(evaluation, finding, verdict) -> None:
    findings = [finding, ROOT, SCALAR]
    got, detail = evaluation.judge_indirect(finding, findings, indirect.edges(), load_labels())
    assert got == verdict, detail
