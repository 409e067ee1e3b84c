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

# --- what the engine gets wrong today, by cause (the lead's work queue): nothing at present ---
WRONG: dict[str, str] = {}

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
