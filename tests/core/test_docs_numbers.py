"""Every count and size in README.md and docs/ is what its command prints today.

The pages hold them between ``<!-- generated: NAME -->`` markers; ``tools/generate_docs.py``
computes each NAME (the wheel built from this checkout, the hook environment pre-commit builds
for the documented snippet, the overlay's coverage of each tested torch, the label files' sizes,
the check's output, recall and precision on candle's backends and on mindtorch's, the indirect findings judged right, every code's section of errors.md) and this test recomputes them and compares. Fix a failure by
running ``.venv/bin/python tools/generate_docs.py``. Timings are not here (``make bench``).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tools import generate_docs

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def facts(wheel: Path) -> generate_docs.Facts:
    return generate_docs.Facts(wheel)


def test_every_generated_part_is_what_its_command_prints(facts: generate_docs.Facts) -> None:
    stale = generate_docs.stale(facts)
    assert not stale, "stale numbers in the docs; run .venv/bin/python tools/generate_docs.py:\n" + "\n".join(
        f"  {page.relative_to(ROOT)}: {name}: says {said[:80]!r}, now {now[:80]!r}" for page, name, said, now in stale)


def test_the_generated_parts_cover_the_documented_numbers() -> None:
    """The numbers the issue found stale are generated, not typed: each page names each part."""
    names = {page.relative_to(ROOT).as_posix(): {m["name"] for m in generate_docs.REGION.finditer(page.read_text())}
             for page in generate_docs.pages()}
    assert {"labels-candle", "hook-env-size"} <= names["README.md"]
    assert {"wheel-size", "coverage-table", "coverage-namespaces"} <= names["docs/installation.md"]
    assert {"coverage-installed", "coverage-installed-namespaces"} <= names["docs/op-semantics.md"]
    assert {"hook-env-size"} <= names["docs/ci-and-ide.md"]
    assert {"codes-index", "codes"} <= names["docs/errors.md"]
    assert {"labels-candle", "labels-mindnlp", "labels-indirect-sites", "fix-pairs", "candle-example",
            "candle-host-sync-example", "candle-recall", "candle-precision", "candle-host-sync",
            "candle-pairs", "candle-indirect", "mindnlp-score"} <= names["docs/untyped-backends.md"]
    assert "candle-recall-precision" in names["README.md"]


SIZE = re.compile(r"\b\d[\d,.]* ?(?:KB|MB|GB|bytes)\b")


def test_no_size_is_typed_outside_a_generated_part_or_a_dated_measurement() -> None:
    """A size in README.md or installation.md (the pages a new user reads first) is generated."""
    for page in (ROOT / "README.md", ROOT / "docs" / "installation.md"):
        bare = generate_docs.REGION.sub("", page.read_text(encoding="utf-8"))
        assert not SIZE.findall(bare), f"{page.name}: sizes typed by hand: {SIZE.findall(bare)}"


def test_a_stale_number_is_found(facts: generate_docs.Facts, tmp_path: Path) -> None:
    """The comparison itself: a page that says another number than its command is reported."""
    page = "labels <!-- generated: labels-candle -->1<!-- /generated --> and <!-- generated: fix-pairs -->"
    page += generate_docs.GENERATED["fix-pairs"](facts) + "<!-- /generated -->"
    rendered = generate_docs.render(page, facts)
    assert rendered != page and rendered.endswith(page.split(" and ")[1])
