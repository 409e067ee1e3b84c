"""Generality of ``device-types check`` (issue 24, item 6): variants of labelled seeds keep their
verdict.

``variants/generate.py`` rewrites each seed (a fallback, clean or host-sync function) in ways
that must not change what it is: helpers renamed, inlined or moved to another module; a loop for
a comprehension; every spelling of the CPU target; the framework's op, numpy or an unknown
helper in the middle of the round trip; inside a nested def, a method, an ``except`` handler or
a dtype branch. The project ``variants/proj`` holds the output, one block per variant with its
seed, transformation and label in a one-line header, and ``# E: <family>`` where a finding must
sit. The check runs once on it (``--enable device-host-sync``); each variant is one test:
every function of the block gets exactly its marked findings (the code family at the root line),
and a function without marks gets none.

Variants the engine gets wrong today are ``xfail(strict=True)`` with the cause (``WRONG``): the
suite is green now and turns red where the engine is fixed, and then the marker goes.
``benchmarks/variants_score.py`` prints the same verdicts as a score."""

from __future__ import annotations

import pytest

from tests.check.conftest import run_cli as run_check
from tests.check.variants.generate import PROJ, collect, found_by_function, judge, render

# --- what the engine gets wrong today, by cause (the lead's work queue) ------------------------
HOST_OP = ("issue 24: a readback passed to an op whose result the engine does not read as host data (the framework's "
           "functional op that dispatches, a backend op that allocates its output on its input's device, an unknown "
           "library's or an undefined helper) is not host computation: only a host sync")
CPU_CONSTANT = ("issue 24: a CPU target spelled through a module constant (CPU = \"cpu\", "
                "HOST = torch.device(\"cpu\"), or one imported from another module) is not a readback: nothing is found")
COPY_UPLOAD = "issue 24: copy_ of host data into a device tensor is not an upload: only a host sync"
OUT_UPLOAD = "issue 24: out= of host data into a device tensor is not an upload: only a host sync"
LIST_FACTORY = ("issue 24: a list built on the host, uploaded by the framework's factory (vfw.tensor(idx, device=), "
                "vfw.tensor(idx).to(dev)), is not seen as an upload: nothing is found")
USER_DATA_LOOP = ("issue 24: the user's data converted in a comprehension is read as a host-built list "
                  "(device-numpy on creation from user data)")
SETITEM_LOOP = ("issue 24: a host loop that copies elements between device tensors by setitem/getitem at read-back "
                "indices (out[i] = a[int(idx[i])]) is not host computation of the result: only a host sync")
USER_SLICE = ("issue 24: a user's slice expanded to indices (list(range(*key.indices(n)))) is read as "
              "host-built index data (device-numpy)")
CPU_GUARD = ("issue 24: a CPU guard spelled through a module constant, a device object or str() "
             "(a.device.type == CPU, a.device == torch.device(\"cpu\"), str(a.device) == \"cpu\") is not a CPU guard: "
             "the host code under it is flagged")

WRONG: dict[str, str] = {
    # the framework's op (or any call the engine does not follow) between readback and upload
    **{name: HOST_OP for name in (
        "relu_rt_cpu_method", "relu_rt_to_str", "relu_rt_to_kw", "relu_rt_to_local_const", "relu_rt_to_torch_device",
        "relu_rt_to_cpu0", "relu_rt_to_framework_device", "relu_rt_to_kw_torch_device",
        "softplus_cpu_method", "softplus_to_str", "softplus_to_kw", "softplus_to_local_const", "softplus_to_torch_device",
        "softplus_to_cpu0", "softmax_rt_to_str", "softmax_rt_to_kw",
        "mid_functional", "mid_backend_alloc_op", "mid_unknown_lib", "mid_undefined",
        "relu_nested", "ReluOp", "relu_except", "relu_int64", "relu_after_guard", "relu_per_chunk",
        "setitem_relu", "copy_undefined")},
    **{name: CPU_CONSTANT for name in (
        "relu_rt_to_module_const", "relu_rt_to_module_device", "relu_rt_to_kw_module_const", "relu_rt_to_imported_const",
        "scale_rt_to_module_const", "scale_rt_to_module_device", "scale_rt_to_kw_module_const",
        "scale_rt_to_imported_const",
        "softplus_to_module_const", "softmax_rt_to_module_const")},
    "copy_operators": COPY_UPLOAD,
    "copy_mul_cpu_method": f"{COPY_UPLOAD}; and {HOST_OP[10:]}",
    "copy_mul_to_str": f"{COPY_UPLOAD}; and {HOST_OP[10:]}",
    "copy_mul_to_module_const": f"{CPU_CONSTANT}; and {COPY_UPLOAD[10:]}",
    "out_kw_torch": OUT_UPLOAD,
    "out_kw": f"{OUT_UPLOAD}; and {HOST_OP[10:]}",
    "index_map_loop_tensor": LIST_FACTORY,
    "index_map_comprehension_to": LIST_FACTORY,
    "as_tensor": USER_DATA_LOOP,
    "getitem_slice": USER_SLICE,
    "gather_soc_setitem": SETITEM_LOOP,
    "checked_gather_const": CPU_CONSTANT.replace("nothing is found", "the host sync is missed"),
    "relu_any_device_type_const": CPU_GUARD,
    "relu_any_device_device_object": CPU_GUARD,
    "relu_any_device_str_device": CPU_GUARD,
}

VARIANTS = collect()


def _param(variant):
    marks = [pytest.mark.xfail(strict=True, reason=WRONG[variant.id])] if variant.id in WRONG else []
    return pytest.param(variant, id=f"{variant.label}:{variant.id}", marks=marks)


@pytest.fixture(scope="module")
def found() -> dict[tuple[str, str], set[tuple[int, str]]]:
    run = run_check("--format", "json", "--no-cache", "--enable", "device-host-sync", "vfw", cwd=PROJ)
    data = run.json()
    assert run.stderr == "" and data["problems"] == []
    return found_by_function(data["findings"])


def test_the_project_is_the_generators_output() -> None:
    """Edit ``generate.py`` and rerun it (``python -m tests.check.variants.generate``)."""
    for rel, text in render().items():
        assert (PROJ / rel).read_text() == text, rel


def test_the_corpus_is_large_enough() -> None:
    labels = [v.label for v in VARIANTS]
    assert labels.count("fallback") >= 40 and labels.count("clean") + labels.count("host-sync") >= 27


def test_every_wrong_entry_names_a_variant() -> None:
    assert set(WRONG) <= {v.id for v in VARIANTS}


def test_no_finding_outside_the_variants(found: dict[tuple[str, str], set[tuple[int, str]]]) -> None:
    """The hand-written framework (tensor, functional ops, primitives, kernels, CPU backend)
    gets no finding: every finding belongs to a generated block's function."""
    judged = {(v.path, name) for v in VARIANTS for name in v.functions}
    assert {key for key in found if key not in judged} == set()


@pytest.mark.parametrize("variant", [_param(v) for v in VARIANTS])
def test_variant_keeps_its_verdict(variant, found: dict[tuple[str, str], set[tuple[int, str]]]) -> None:
    assert judge(variant, found) == [], f"{variant.seed} / {variant.transform} [{variant.label}]"


def test_host_syncs_are_opt_in() -> None:
    """Without ``--enable device-host-sync`` the host-sync variants get nothing."""
    run = run_check("--format", "json", "--no-cache", "vfw", cwd=PROJ)
    syncs = {(v.path, name) for v in VARIANTS if v.label == "host-sync" for name in v.functions}
    assert {(f["path"], f["function"]) for f in run.json()["findings"]} & syncs == set()
