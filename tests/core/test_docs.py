"""docs/op-semantics.md lists every explicit set of the op-semantics table, with its members."""

from __future__ import annotations

import re
from pathlib import Path

from device_types import _semantics

DOC = (Path(__file__).resolve().parents[2] / "docs" / "op-semantics.md").read_text()


def test_every_explicit_set_is_documented_with_its_members() -> None:
    for name in _semantics.__all__:
        value = getattr(_semantics, name)
        if not isinstance(value, (frozenset, dict)):
            continue
        row = re.search(rf"^\| `{name}` \|(.*)$", DOC, re.MULTILINE)
        assert row is not None, f"docs/op-semantics.md has no row for {name}"
        for member in value:
            assert f"`{member}`" in row[1], f"{name}: `{member}` missing from its docs row"


def test_every_kind_is_documented() -> None:
    for kind in _semantics.OpKind:
        assert f"| `{kind.value}` |" in DOC
