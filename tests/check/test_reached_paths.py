"""Indirect fallbacks on paths the caller really takes (issue 14), one reached/unreached pair
per pattern, in ``cases/reached``: every finding line carries ``# E: <code>``; a caller whose
call cannot reach the callee's host path has no mark and must get no finding.

The conditions and chains the findings state are asserted word for word where they matter:
backend teams fix fallbacks per dtype, per chip and per argument."""

from __future__ import annotations

import pytest

from tests.check.conftest import CASES, run_cli
from tests.check.test_check_cases import marked

REACHED = CASES / "reached"


@pytest.fixture(scope="module")
def every_finding() -> list[dict]:
    run = run_cli("--format", "json", "--no-cache", "rk", cwd=REACHED)
    assert run.returncode == 1, run.stderr
    return list(run.json()["findings"])


@pytest.fixture(scope="module")
def findings(every_finding: list[dict]) -> dict[str, dict]:
    """By function; the tests below use functions with one finding each."""
    return {f["function"]: f for f in every_finding}


def test_findings_are_exactly_the_marked_lines(every_finding: list[dict]) -> None:
    found = [(f["path"], f["line"], f["code"]) for f in every_finding]
    assert len(found) == len(set(found))
    assert set(found) == marked(REACHED)


@pytest.mark.parametrize("unreached", [
    "mean_",             # 1: a literal op picks the device branch
    "sum_all",           # 1: the default dim=None takes the whole-tensor device path
    "sum_dim",           # 1: the default flag exact=False stays on the device
    "exp_guarded",       # 2: calls only inside the opposite guard on the same value
    "exp_after_return",  # 2: calls only after returning for the other case
    "half_checked",      # 2: an assert on the dtype rules out the cast's host branch
    "_to_index_tensor",  # 3: after `if key.device.type == "npu": return key` the key is user data
    "getitem",           # 3: so its caller does not fall back either
    "_broadcast_shape",  # 4: shape arithmetic and a comprehension over shapes are metadata
    "where_same_shape",  # 4: device tensors collected in a loop, a shape list: no host data
    "fill_scalar_",      # 5: one user scalar staged with np.full((1,), value)
    "take_checked",      # 6: one readback for a count is a host sync, not a fallback
    "one_hot",           # 8: a read-back count sizes a device factory: no host view to write into
    "negated_peak",      # 8: `m *= -1.0` on a read-back float rebinds a value
    "weighted_by_half",  # 9: passes the weight that `if weight is None: weight = ...` fills in
    "pad_constant",      # 10: "constant" through `if mode == "edge": mode = "replicate"` stays on the device
    "pad_edge",          # 10: "edge" becomes "replicate": on the device too
    "staged_as_float",   # 11: `.to(torch.float32)` of a host tensor is a dtype change, no upload
    "staged_like",       # 11: `.to(x.dtype)` likewise
    "roots_fast",        # 12: `... if exact else coeffs` with exact=False takes the device side
    "stack",             # 13: the same dtype-agreement guard on the list its views are made from
    "hstack",            # 13: its early return when any dtype differs from the first one's
    "repeat_twice",      # 13: a list of one tensor and its copy agrees on dtype, under that tensor's guard
])
def test_unreached_paths_are_not_findings(findings: dict[str, dict], unreached: str) -> None:
    assert unreached not in findings


@pytest.mark.parametrize(("function", "condition", "chain"), [
    ("argmax", None, ["argmax", "_reduce"]),
    ("reduce_any", 'op in ("argmax", "argmin")', ["reduce_any", "_reduce"]),
    ("sum_exact", "dim is not None", ["sum_exact", "_sum"]),
    ("exp_any", "not can_use_gpu(a)", ["exp_any", "_exp"]),
    ("half_any", 'a.dtype != "float16"', ["half_any", "_cast_half"]),
    ("where", None, ["where", "_broadcast_to"]),
    ("gather", 'use_soc_fallback("gather")', ["gather", "_gather_soc"]),
    ("index_select", 'use_soc_fallback("gather")', ["index_select", "gather", "_gather_soc"]),
    ("weighted_by_magnitude", None, ["weighted_by_magnitude", "weighted"]),
    ("pad", 'mode not in ("constant", "edge", "replicate")', ["pad", "_pad_symmetric"]),
    ("pad_symmetric", None, ["pad_symmetric", "pad", "_pad_symmetric"]),
    ("solve_batch", None, ["solve_batch", "solve", "_solve_on_host"]),  # not the mps branch's root
    ("stack_unchecked", "all(can_use_gpu(t) for t in tensors) and not all(t.dtype == tensors[0].dtype for t in tensors)",
     ["stack_unchecked", "cat"]),
    ("repeat_any", "not can_use_gpu(a)", ["repeat_any", "cat"]),
])
def test_reached_paths_say_when_and_through_what(findings: dict[str, dict], function: str, condition: str | None,
                                                 chain: list[str]) -> None:
    finding = findings[function]
    assert finding["code"] == "device-indirect-fallback"
    assert finding["condition"] == condition
    assert [c.rpartition(".")[2] for c in finding["chain"]] == chain
    if condition is not None:
        assert f"which falls back to the host when {condition} (" in finding["message"]
    else:
        assert "which falls back to the host (" in finding["message"]


def test_the_root_is_the_host_step_actually_reached(findings: dict[str, dict]) -> None:
    """``where``'s root is the broadcast helper's readback, not the shape list before it."""
    where = findings["where"]
    assert where["hops"] == [
        {"path": "rk/_backends/npu/index.py", "line": 34, "column": 21, "function": "where",
         "what": 'calls "_broadcast_to()"'},
        {"path": "rk/_backends/npu/index.py", "line": 26, "column": 12, "function": "_broadcast_to",
         "what": '"to_numpy(x)"'},
    ]
    assert '(where -> _broadcast_to: "to_numpy(x)" at rk/_backends/npu/index.py:26)' in where["message"]


@pytest.mark.parametrize(("function", "root"), [
    ("stage_schedule", '"to_numpy(rates.reshape_kernel(total, 1))" at rk/_backends/npu/rates.py:10'),  # stagewise=True
    ("block_schedule", '"to_numpy(rates)" at rk/_backends/npu/rates.py:9'),  # the default stagewise=False
])
def test_a_returned_root_is_the_one_the_call_takes(findings: dict[str, dict], function: str, root: str) -> None:
    """A helper that reads back on each branch: the caller's root is the branch its arguments pick."""
    finding = findings[function]
    assert finding["code"] == "device-readback"
    assert f"(through _stage_rates: {root})" in finding["message"]
    assert finding["condition"] is None  # the call takes that branch whenever it runs


def test_a_tensor_made_on_the_host_is_host_built_data(findings: dict[str, dict]) -> None:
    ramp = findings["ramp"]
    assert (ramp["line"], ramp["code"]) == (22, "device-numpy")  # at its root
    assert '"torch.linspace()" on the host' in ramp["message"]
    assert "reads tensor data" not in ramp["message"]


def test_hops_name_every_helper_that_hands_the_data_back(findings: dict[str, dict]) -> None:
    finding = findings["perspective"]
    assert [c.rpartition(".")[2] for c in finding["chain"]] == ["perspective", "_coefficients", "_coeffs"]
    assert [(h["function"].rpartition(".")[2], h["line"], h["what"]) for h in finding["hops"]] == [
        ("perspective", 17, '"_coefficients(points)"'),
        ("_coefficients", 13, '"_coeffs(points)"'),
        ("_coeffs", 7, '"to_numpy(points.device.lstsq_kernel(points))"'),
    ]


def test_a_chip_path_that_addresses_device_copies_from_host_data_is_a_fallback(findings: dict[str, dict]) -> None:
    soc = findings["_gather_soc"]
    assert (soc["line"], soc["code"]) == (8, "device-readback")
    assert '"to_numpy(index)" and drives "memcpy_d2d()" element by element from it' in soc["message"]
    assert [(h["function"].rpartition(".")[2], h["line"]) for h in findings["index_select"]["hops"]] == [
        ("index_select", 22), ("gather", 17), ("_gather_soc", 8)]


def test_direct_findings_state_their_condition(findings: dict[str, dict]) -> None:
    assert findings["cat"]["condition"] == ("not all(can_use_gpu(t) for t in tensors); "
                                            "or not all(t.dtype == tensors[0].dtype for t in tensors)")
    assert findings["_reduce"]["condition"] == 'op in ("argmax", "argmin")'
    assert findings["_sum"]["condition"] == "dim is not None and exact"
    assert findings["full_like"]["condition"] is None
    assert findings["weighted"]["condition"] == "weight is None"  # tested before it is filled in
    assert findings["roots_of"]["condition"] == "exact"  # one side of a conditional expression


def test_sarif_walks_the_chain() -> None:
    run = run_cli("--format", "sarif", "--no-cache", "rk", cwd=REACHED)
    import json

    results = {r["locations"][0]["physicalLocation"]["region"]["startLine"]: r
               for r in json.loads(run.stdout)["runs"][0]["results"]
               if r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "rk/_backends/npu/gather.py"}
    flow = results[22]["codeFlows"][0]["threadFlows"][0]["locations"]
    assert [step["location"]["physicalLocation"]["region"]["startLine"] for step in flow] == [22, 17, 8]
    assert [loc["id"] for loc in results[22]["relatedLocations"]] == [0, 1, 2]
    assert "codeFlows" not in results[8]  # a direct finding in one place has no flow to walk
