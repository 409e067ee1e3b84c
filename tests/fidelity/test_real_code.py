"""The overlay changes devices and nothing else, on real third-party code.

Five torch libraries (``libraries.py``) are checked with mypy and pyright, each from the
library's own directory, once with the overlay and once in a shadow environment without it
(``tests/gradual``'s). Places are compared, file and line, errors only: a place with an
error in one condition only is NEW (with the overlay) or LOST (without it). Both must be
empty, except the places listed in ``KNOWN`` (docs/limits.md says why for each), which
are asserted to still differ so that a fix removes them from the list.

Messages and codes are not compared: with the overlay, types print a device, and the same
failed call may change its code (one relevant signature vs several overloads).
"""

from __future__ import annotations

import pytest

from .libraries import LIBRARIES, PROBE, Library, Place, diagnostics, differences

pytestmark = pytest.mark.usefixtures("fresh_overlay")

#: (checker, distribution) -> {"new": places, "lost": places} that docs/limits.md explains.
KNOWN: dict[tuple[str, str], dict[str, set[str]]] = {
    # ``v = min(tensor)`` into a variable first inferred as a tensor: mypy solves ``min``'s
    # TypeVar from a generic instance's context (the overlay's Tensor), not from a plain one
    ("mypy", "torchvision"): {"new": {"torchvision/models/detection/transform.py:61"}},
    # a factory call that fails (a wrong ``device=`` / ``dtype=``): one overload of torch's
    # accepts its arguments' shape, several of the overlay's do, and pyright then reports
    # "No overloads" at the call and makes its result Unknown
    ("pyright", "timm"): {"lost": {"timm/layers/pos_embed_sincos.py:868"}},
    ("pyright", "pytorch-metric-learning"): {"new": {"pytorch_metric_learning/testers/base_tester.py:84"}},
}


def _describe(found: dict[str, list[Place]]) -> str:
    return "\n".join(f"  {where}: [{p.code}] {p.message.splitlines()[0]}" for where, places in found.items() for p in places)


@pytest.mark.parametrize("checker", ["mypy", "pyright"])
@pytest.mark.parametrize("library", LIBRARIES, ids=lambda lib: lib.name)
def test_overlay_adds_and_loses_no_diagnostic(checker: str, library: Library) -> None:
    runs = diagnostics(checker, library)
    # The runs saw what they should: the overlay only in the first, the library in both.
    assert [p.line for p in runs["without"] if p.path == PROBE.name] == [10]
    assert [p for p in runs["with"] if p.path == PROBE.name] == []
    assert len([p for p in runs["without"] if p.path != PROBE.name]) > 0
    new, lost = differences(runs)
    known = KNOWN.get((checker, library.name), {})
    unexplained_new = {w: p for w, p in new.items() if w not in known.get("new", set())}
    unexplained_lost = {w: p for w, p in lost.items() if w not in known.get("lost", set())}
    assert (unexplained_new, unexplained_lost) == ({}, {}), (
        f"{checker} on {library.name}: new with the overlay:\n{_describe(unexplained_new)}\n"
        f"lost with the overlay:\n{_describe(unexplained_lost)}"
    )
    # The documented differences must stay true: a fix removes them from KNOWN and limits.md.
    assert set(new) >= known.get("new", set()) and set(lost) >= known.get("lost", set())
