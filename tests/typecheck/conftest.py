from __future__ import annotations

import pytest


@pytest.fixture(scope="session", autouse=True)
def _overlay(fresh_overlay: None) -> None:
    pass
