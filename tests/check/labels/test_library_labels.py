"""Reviewed findings on libraries outside the tests, as reached/unreached pairs (issue 14's
measure on real code): each library's subpackages declared a cuda backend, every finding
read against shared/policy/what-counts-as-a-fallback.md (``libraries.json``).

- a ``fallback`` site is reported (by file, line and function), unless it is ``missed``,
  which must stay missed until the check learns it (then drop the mark);
- a ``no-finding`` site (a path the call cannot take, or no fallback by the definition) is
  not reported, unless it is ``known``, which must still be reported: a documented false
  positive, listed with its reason in ``review``, that a fix turns into a plain label.

The wheels come from the registry at test time (``tests/registry.py``); only the labels are
kept here.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.check.conftest import run_cli
from tests.registry import unpacked

LABELS = Path(__file__).parent / "libraries.json"
DATA = json.loads(LABELS.read_text(encoding="utf-8"))
CORPORA = {c["corpus"]: c for c in DATA["corpora"]}


def _site(path: str, line: int, function: str) -> tuple[str, int, str]:
    return path, line, function.rpartition(".")[2]


@pytest.fixture(scope="module", params=sorted(CORPORA))
def reported(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> tuple[dict, set]:
    corpus = CORPORA[request.param]
    name, version = corpus["corpus"].split("==")
    project = tmp_path_factory.mktemp(name)
    shutil.copytree(unpacked(name, version) / corpus["package"], project / corpus["package"],
                    ignore=shutil.ignore_patterns("__pycache__"))
    backends = ", ".join(f'"{prefix}" = "{device}"' for prefix, device in corpus["backends"].items())
    (project / "pyproject.toml").write_text(f"[tool.device_types]\nbackends = {{ {backends} }}\n", encoding="utf-8")
    run = run_cli("--no-cache", "--format", "json", corpus["package"], cwd=project)
    assert run.returncode in (0, 1), run.stderr
    return corpus, {_site(f["path"], f["line"], f["function"]) for f in run.json()["findings"]}


def test_labels_have_the_documented_shape() -> None:
    assert DATA["definition"] == "shared/policy/what-counts-as-a-fallback.md"
    for corpus in DATA["corpora"]:
        sites = [(e["path"], e["line"], e["function"]) for e in corpus["labels"]]
        assert len(sites) == len(set(sites)), corpus["corpus"]
        for entry in corpus["labels"]:
            assert entry["label"] in ("fallback", "no-finding"), entry
            assert entry["review"].strip(), entry
            assert not (entry.get("known") and entry["label"] == "fallback"), entry
            assert not (entry.get("missed") and entry["label"] == "no-finding"), entry


def test_every_reviewed_fallback_is_reported(reported: tuple[dict, set]) -> None:
    corpus, found = reported
    missing = [e for e in corpus["labels"] if e["label"] == "fallback" and not e.get("missed")
               and _site(e["path"], e["line"], e["function"]) not in found]
    assert not missing, missing
    learnt = [e for e in corpus["labels"] if e.get("missed") and _site(e["path"], e["line"], e["function"]) in found]
    assert not learnt, f"reported now: drop their 'missed' mark: {learnt}"


def test_no_finding_where_the_review_found_none(reported: tuple[dict, set]) -> None:
    corpus, found = reported
    wrong = [e for e in corpus["labels"] if e["label"] == "no-finding" and not e.get("known")
             and _site(e["path"], e["line"], e["function"]) in found]
    assert not wrong, wrong
    fixed = [e for e in corpus["labels"] if e.get("known") and _site(e["path"], e["line"], e["function"]) not in found]
    assert not fixed, f"no longer reported: drop their 'known' mark: {fixed}"
