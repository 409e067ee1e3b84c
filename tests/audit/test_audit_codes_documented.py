"""Every finding code the audit can report has its entry in docs/audit.md."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_every_audit_code_is_documented() -> None:
    source = "".join(p.read_text() for p in sorted((ROOT / "device_types" / "_audit").glob("*.py")))
    codes = set(re.findall(r'"(audit-[a-z-]+)"', source))
    assert len(codes) >= 20  # the regex still finds the codes
    doc = (ROOT / "docs" / "audit.md").read_text()
    assert sorted(c for c in codes if f"**`{c}`**" not in doc) == []
