"""The rules as units (``device_types/_check/rules``): every finding code of the check has
exactly one rule module, and every rule module its fixture (``rules/proj``, one backend module
named after the rule) with a reached case marked ``# E: <code>`` and an unreached twin; the
findings of each fixture are exactly its marks, in the exact text recorded beside it
(``rules/<rule>.txt``). A new code takes the registry, one rule module and this fixture."""

from __future__ import annotations

from pathlib import Path

import pytest

from device_types import _codes
from device_types._check.rules import RULES
from tests.check.conftest import run_cli
from tests.check.test_check_cases import marked

HERE = Path(__file__).resolve().parent / "rules"
PROJ = HERE / "proj"
FIXTURES = PROJ / "fw" / "_backends" / "mps"


def _rule_name(rule: object) -> str:
    return getattr(rule, "__name__").rpartition(".")[2]


@pytest.fixture(scope="module")
def text_lines() -> list[str]:
    run = run_cli("--no-cache", "--enable", "device-host-sync", "fw", cwd=PROJ)
    assert run.returncode == 1, run.stderr
    return run.stdout.splitlines()[:-1]  # the summary line is the CLI's, not a rule's


def test_every_check_code_has_exactly_one_rule() -> None:
    reported = {c.name for c in _codes.codes_of(_codes.CHECK)} - {_codes.UNANALYSED.name}  # the CLI's own line
    ruled = [rule.CODE for rule in RULES]
    assert sorted(ruled) == sorted(reported)


@pytest.mark.parametrize("rule", RULES, ids=_rule_name)
def test_each_rule_finds_its_fixture_and_only_it(rule: object, text_lines: list[str]) -> None:
    name = _rule_name(rule)
    fixture = FIXTURES / f"{name}.py"
    assert fixture.is_file(), f"rule {name} has no fixture {fixture.relative_to(HERE)}"
    path = fixture.relative_to(PROJ).as_posix()
    marks = {(line, code) for file, line, code in marked(PROJ) if file == path}
    assert getattr(rule, "CODE") in {code for _, code in marks}, f"{path} marks no {getattr(rule, 'CODE')} line"
    shown = [line for line in text_lines if line.startswith(f"{path}:")]
    found = {(int(line.split(":")[1]), line.rpartition("[")[2].rstrip("]")) for line in shown}
    assert found == marks
    assert shown == (HERE / f"{name}.txt").read_text(encoding="utf-8").splitlines()
