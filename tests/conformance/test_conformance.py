"""Device conformance in CI: torch's OpInfo samples on cpu, meta and fake CUDA tensors,
every result's device against the overlay's claim (suite.py says how claims are made).

The committed GPU report (benchmarks/conformance_gpu.json, made by
benchmarks/conformance_gpu.py through the device tool) is checked here too: each of its
disagreements must be documented in docs/limits.md. On a machine with a GPU the last
test runs the suite on real CUDA.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch

from device_types._semantics import OpKind
from device_types_stubs.overlay import build_overlay

from .documented import rows
from .suite import ERROR, Observation, OverlayOp, Report, _Call, _execute, claim_for, explanation, run, typed_ops

CI_DEVICES = ["cpu", "meta", "fake-cuda"]
SAMPLES = 3
COVERAGE_TARGET = 0.90
GPU_REPORT = Path(__file__).resolve().parents[2] / "benchmarks" / "conformance_gpu.json"


@pytest.fixture(scope="module")
def overlay_index() -> dict[str, OverlayOp]:
    return {op.key: op for _, ops in typed_ops(build_overlay()).values() for op in ops}


@pytest.fixture(scope="module")
def report() -> Report:
    return run(CI_DEVICES, samples_per_op=SAMPLES)


def _listing(observations: list[Observation]) -> str:
    return "\n".join(
        f"  {o.device} {o.op} [{o.opinfo}] {o.form}: claim {o.claim}, torch gave {o.actual}, parameters {o.parameters or '-'}"
        for o in observations
    )


def test_covers_the_typed_ops_that_have_opinfo_entries(report: Report) -> None:
    assert len(report.reachable) > 800, "OpInfo reaches far fewer typed ops than torch 2.13 does: is the lookup broken?"
    assert report.coverage >= COVERAGE_TARGET, f"unchecked: {sorted(set(report.reachable) - set(report.checked))}"


def test_every_device_checks_most_ops(report: Report) -> None:
    for device in CI_DEVICES:
        checked = {o.op for o in report.observations if o.device == device and o.outcome in ("agree", "disagree")}
        assert len(checked) >= 0.85 * len(report.reachable), device


def test_no_unexplained_disagreements(report: Report) -> None:
    unexplained = report.unexplained()
    assert not unexplained, "not documented in docs/limits.md (Run-time conformance):\n" + _listing(unexplained)


def test_every_documented_row_still_happens_on_the_devices_ci_runs(report: Report) -> None:
    used = {(o.reason, o.device) for o in report.disagreements()}
    stale = [(row.id, device) for row in rows() for device in sorted(row.seen_on & set(CI_DEVICES)) if (row.id, device) not in used]
    assert not stale, f"documented disagreements that no longer happen (update docs/limits.md): {stale}"


def test_each_rule_is_exercised(report: Report) -> None:
    """The derived forms run and agree somewhere: factory without device=, like with
    device=, and mixes that torch rejects as the overlay claims."""
    agreed = {(o.device, o.form.split("=")[0]) for o in report.observations if o.outcome == "agree"}
    assert {("meta", "no-device"), ("fake-cuda", "no-device"), ("meta", "device"), ("fake-cuda", "mixed")} <= agreed
    mixed = [o for o in report.observations if o.form == "mixed" and o.device == "fake-cuda"]
    assert sum(o.outcome == "agree" for o in mixed) > 200


def test_claims_come_from_the_table(overlay_index: dict[str, OverlayOp]) -> None:
    x = torch.ones(2, 2, device="meta")
    cpu = torch.ones(2, 2)
    assert OpKind.CREATE in overlay_index["torch.zeros"].kinds
    assert claim_for(overlay_index["torch.zeros"], _Call(((2,),), {})) == ("cpu", "factory without device= gives the CPU")
    assert claim_for(overlay_index["torch.zeros"], _Call(((2,),), {"device": "meta"}))[0] == "meta"
    assert claim_for(overlay_index["torch.zeros_like"], _Call((x,), {}))[0] == "meta"
    assert claim_for(overlay_index["Tensor.cpu"], _Call((x,), {}))[0] == "cpu"
    assert claim_for(overlay_index["Tensor.to"], _Call((x, "cpu"), {}))[0] == "cpu"
    assert claim_for(overlay_index["torch.add"], _Call((x, x), {}))[0] == "meta"
    assert claim_for(overlay_index["torch.add"], _Call((x, cpu), {}))[0] == ERROR
    # copy_'s source may be anywhere (ANY_DEVICE_PARAMETERS); __eq__ takes any object
    assert claim_for(overlay_index["Tensor.copy_"], _Call((x, cpu), {}))[0] == "meta"
    assert claim_for(overlay_index["Tensor.__eq__"], _Call((x, cpu), {}))[0] is None
    # what torch takes on any device (index tensors, shape templates) joins no mix
    picked = torch.tensor([0, 1])
    assert claim_for(overlay_index["torch.index_put"], _Call((x, (picked,), x), {}))[0] == "meta"
    assert claim_for(overlay_index["torch.index_put"], _Call((x, (picked,), cpu), {}))[0] == ERROR
    assert claim_for(overlay_index["Tensor.view_as"], _Call((x, cpu), {}))[0] == "meta"
    # linspace's tensor bounds are read as numbers: without device= the result is on the CPU
    assert OpKind.CREATE_LIKE not in overlay_index["torch.linspace"].kinds
    assert claim_for(overlay_index["torch.linspace"], _Call((x[0, 0], x[0, 0], 5), {}))[0] == "cpu"
    # the bare-tensor guard: a CPU tensor into torch.linalg gives Any, a meta one its device
    assert claim_for(overlay_index["torch.linalg.inv"], _Call((cpu,), {}))[0] is None
    assert claim_for(overlay_index["torch.linalg.inv"], _Call((x,), {}))[0] == "meta"


def test_a_wrong_device_is_a_disagreement(overlay_index: dict[str, OverlayOp]) -> None:
    op = overlay_index["torch.add"]
    x = torch.ones(2)
    assert _execute(torch.add, op, _Call((x, x), {}))[2] == "agree"
    assert _execute(lambda a, b: torch.add(a, b).to("meta"), op, _Call((x, x), {}))[2] == "disagree"
    # a mix torch accepts, where the overlay claims an error
    assert _execute(lambda a, b: a, op, _Call((x, x.to("meta")), {}))[2] == "disagree"


def test_the_committed_gpu_report_is_documented() -> None:
    data = json.loads(GPU_REPORT.read_text(encoding="utf-8"))
    assert "cuda" in data["devices"] and data["coverage"] >= COVERAGE_TARGET
    documented = rows()
    fields = Observation.__dataclass_fields__
    unexplained = [
        o
        for o in (Observation(**{k: v for k, v in d.items() if k in fields}) for d in data["disagreements"])
        if not explanation(o, documented)
    ]
    assert not unexplained, "the GPU run's disagreements not in docs/limits.md:\n" + _listing(unexplained)


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU (benchmarks/conformance_gpu.py is the GPU run)")
def test_on_a_real_gpu() -> None:
    gpu = run(["cuda"], samples_per_op=SAMPLES)
    assert gpu.coverage >= COVERAGE_TARGET
    assert not gpu.unexplained(), _listing(gpu.unexplained())
