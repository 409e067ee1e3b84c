from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def fresh_overlay() -> None:
    """Checker tests need the overlay of the installed torch: fail (never skip) without it.

    ``make test`` installs it first; a skip here would let CI pass without checking types.
    """
    from device_types_stubs.overlay import installed_state  # not needed by runtime-only runs

    fresh, line = installed_state()
    if not fresh:
        pytest.fail(line, pytrace=False)
