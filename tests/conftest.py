from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel, built once per session from a copy of the sources with this environment's
    setuptools (no build isolation, no index: nothing is downloaded); the packaging tests
    install it, the docs' numbers test measures it."""
    from tests.wheel import build_wheel

    return build_wheel(tmp_path_factory.mktemp("wheel"))


@pytest.fixture(scope="session")
def fresh_overlay() -> None:
    """Checker tests need the overlay of the installed torch: fail (never skip) without it.

    ``make test`` installs it first; a skip here would let CI pass without checking types.
    """
    from device_types_stubs.overlay import installed_state  # not needed by runtime-only runs

    fresh, line = installed_state()
    if not fresh:
        pytest.fail(line, pytrace=False)
