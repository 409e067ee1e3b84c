from __future__ import annotations

import pytest

from device_types_stubs.overlay import installed_state


@pytest.fixture(scope="session", autouse=True)
def overlay_is_fresh() -> None:
    fresh, line = installed_state()
    if not fresh:
        pytest.fail(line, pytrace=False)
