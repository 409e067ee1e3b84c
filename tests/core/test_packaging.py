"""Every Python package in the source tree ships (a missing subpackage only shows in a
clean install, as ``device_types._audit`` once did)."""

from __future__ import annotations

import sys
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[2]


def test_every_source_package_is_listed() -> None:
    setuptools = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    directories = setuptools["package-dir"]
    found = set()
    for import_name, directory in directories.items():
        for init in (ROOT / directory).rglob("__init__.py"):
            relative = init.parent.relative_to(ROOT / directory).parts
            found.add(".".join((import_name, *relative)))
    assert sorted(setuptools["packages"]) == sorted(found)


def test_torch_requirement_is_the_tested_range_open_above() -> None:
    from packaging.requirements import Requirement

    from device_types_stubs.versions import NEWEST_TESTED, OLDEST

    from ..torch_versions import OTHER_VERSIONS

    dependencies = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    torch = next(Requirement(d) for d in dependencies if Requirement(d).name == "torch")
    assert str(torch.specifier) == f">={OLDEST[0]}.{OLDEST[1]}"
    newer = f"{NEWEST_TESTED[0]}.{NEWEST_TESTED[1] + 1}.0"
    assert all(torch.specifier.contains(v) for v in (*OTHER_VERSIONS, "2.13.0", newer))
