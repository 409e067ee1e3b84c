"""The overlay changes devices and nothing else, on real third-party code.

torchmetrics and timm's layers (fetched from the registry, never vendored) are checked
with mypy and pyright, each once with the overlay and once in a shadow environment
without it (``tests/gradual``'s). Every diagnostic with the overlay (file, line, code)
must also appear without it: torch's own gaps and the libraries' own errors show in
both; the overlay may remove some, never add one. Messages are not compared: with the
overlay, types print a device.
"""

from __future__ import annotations

import sys
from functools import cache
from pathlib import Path

import pytest

from ..checkers import Diagnostic, run_mypy, run_pyright
from ..gradual.test_gradual import shadow_python
from ..registry import unpacked

HERE = Path(__file__).resolve().parent
PROBE = HERE / "probe.py"
#: (distribution, version, package directory checked): a metrics library and model
#: building blocks, both written against bare torch.Tensor.
LIBRARIES = [("torchmetrics", "1.9.0", "torchmetrics"), ("timm", "1.0.29", "timm/layers")]

pytestmark = pytest.mark.usefixtures("fresh_overlay")


def targets() -> list[Path]:
    return [unpacked(name, version) / package for name, version, package in LIBRARIES]


@cache
def diagnostics(checker: str, condition: str) -> tuple[Diagnostic, ...]:
    python = sys.executable if condition == "with" else shadow_python()
    if checker == "mypy":
        found = run_mypy([*targets(), PROBE], "--ignore-missing-imports", cache=f"fidelity-{condition}", python=python)
    else:
        found = run_pyright(checker, [*targets(), PROBE], config=HERE / "pyrightconfig.json", python=python)
    return tuple(found)


#: One failed call, named by the shape of the callee: pyright says reportArgumentType for
#: one relevant signature and reportCallIssue after several overloads; mypy says arg-type
#: for a callable attribute and operator / call-overload for an (overloaded) method. The
#: overlay's signatures turn one into the other for the same argument error (measured:
#: timm ``torch.zeros(n, device=<device | Tensor | Module>)`` under pyright; torchmetrics
#: ``tensor ** tuple_of_floats`` under mypy, where stock torch's ``__pow__`` is a
#: ``cast(Callable, ...)`` attribute), so all read as "call".
SAME_FINDING = {code: "call" for code in ("reportArgumentType", "reportCallIssue", "arg-type", "operator", "call-overload")}


def located(found: tuple[Diagnostic, ...]) -> set[str]:
    roots = [t.parent for t in targets()]
    out = set()
    for d in found:
        root = next((r for r in roots if d.path.is_relative_to(r)), None)
        if root is not None:
            out.add(f"{d.path.relative_to(root)}:{d.line}: {SAME_FINDING.get(d.code, d.code)}")
    return out


@pytest.mark.parametrize("checker", ["mypy", "pyright"])
def test_overlay_adds_no_diagnostic_to_real_code(checker: str) -> None:
    with_overlay, without_overlay = diagnostics(checker, "with"), diagnostics(checker, "without")
    # The runs saw what they should: the overlay only in the first, the libraries in both.
    assert [d.line for d in without_overlay if d.path == PROBE] == [10]
    assert [d for d in with_overlay if d.path == PROBE] == []
    assert len(located(without_overlay)) > 0
    added = located(with_overlay) - located(without_overlay)
    messages = {f"{d.path.name}:{d.line}": d.message for d in with_overlay}
    assert added == set(), "\n".join(f"{a}  {messages.get(a.split(': ')[0].rsplit('/', 1)[-1], '')}" for a in sorted(added))
    # A bare tensor stays gradual where stock torch reads it as Any (issue #9's case:
    # iterating a bare tensor, ``val.item()`` appended to ``list[int]``).
    assert "torchmetrics/utilities/distributed.py:144" not in {a.split(": ")[0] for a in located(with_overlay)}
