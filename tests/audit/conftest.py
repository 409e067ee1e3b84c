"""The ``project`` fixture: an empty project root in tmp_path (see audit_tree.Project)."""

from __future__ import annotations

from pathlib import Path

import pytest
from audit_tree import Project


@pytest.fixture
def project(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Project:
    root = tmp_path / "proj"
    root.mkdir()
    return Project(root, capsys)
