"""Real third-party code for tests and benchmarks, fetched from the package registry.

Nothing third-party is vendored: a wheel is downloaded once (``pip download --no-deps``),
unzipped (never installed: candle-python's ``.pth`` would make ``import torch`` resolve to
candle) and kept under a cache directory so the suite stays fast on later runs.

The cache is ``$DEVICE_TYPES_CACHE`` or ``~/.cache/device-types``. A fetch that fails
raises ``RegistryUnavailable`` with pip's message: the tests that need real code fail
(never skip), since CI always reaches the registry.
"""

from __future__ import annotations

import fnmatch
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

__all__ = ["RegistryUnavailable", "cache_dir", "fetch_wheel", "unpacked"]


class RegistryUnavailable(RuntimeError):
    """The registry did not serve the wheel; the message is pip's."""


def cache_dir() -> Path:
    root = Path(os.environ.get("DEVICE_TYPES_CACHE") or Path.home() / ".cache" / "device-types")
    root.mkdir(parents=True, exist_ok=True)
    return root


def fetch_wheel(name: str, version: str) -> Path:
    """The wheel file of ``name==version`` (downloaded once, then cached)."""
    wheels = cache_dir() / "wheels"
    wheels.mkdir(exist_ok=True)
    normalized = name.replace("-", "_").lower()
    for existing in wheels.glob("*.whl"):
        if existing.name.lower().startswith(f"{normalized}-{version}-"):
            return existing
    with tempfile.TemporaryDirectory(dir=wheels) as tmp:
        proc = subprocess.run(
            [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
             "--disable-pip-version-check", "--quiet", "-d", tmp, f"{name}=={version}"],
            capture_output=True, text=True,
        )
        got = list(Path(tmp).glob("*.whl"))
        if proc.returncode != 0 or len(got) != 1:
            raise RegistryUnavailable(f"pip download {name}=={version} failed:\n{proc.stdout}{proc.stderr}")
        target = wheels / got[0].name
        shutil.move(str(got[0]), target)
        return target


def unpacked(name: str, version: str, members: tuple[str, ...] = ("*",)) -> Path:
    """Directory holding ``name==version``'s wheel unzipped (only files matching ``members``).

    ``members`` are fnmatch patterns on the archive path, so a multi-GB wheel such as torch's
    can be read for its ``*.pyi`` files alone. The same (name, version, members) is unpacked
    once; a half-written directory from an interrupted run is never used.
    """
    key = "all" if members == ("*",) else _members_key(members)
    target = cache_dir() / "unpacked" / f"{name}-{version}-{key}"
    done = target / ".complete"
    if done.exists():
        return target
    wheel = fetch_wheel(name, version)
    if target.exists():
        shutil.rmtree(target)
    target.mkdir(parents=True)
    with zipfile.ZipFile(wheel) as archive:
        for info in archive.infolist():
            if any(fnmatch.fnmatch(info.filename, pattern) for pattern in members):
                archive.extract(info, target)
    done.touch()
    return target


def _members_key(members: tuple[str, ...]) -> str:
    return hashlib.sha256("\0".join(members).encode()).hexdigest()[:12]
