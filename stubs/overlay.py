"""Build the partial ``torch-stubs`` overlay from the installed torch and install it.

The overlay carries every ``.pyi`` of the installed torch (pyright hides a library's
own stubs that a partial stub package lacks), patched where the device enters, plus
``_tensor.pyi`` written from ``torch/_tensor.py`` and our layer module. Nothing here
imports torch: its files are located with ``importlib`` and read as text.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import importlib.util
import json
import os
import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from .base_signatures import BaseSignatures
from .layer import layer_source
from .namespaces import build_namespaces
from .pyfunctions import FUNCTIONAL_SOURCE, FUNCTIONAL_STUB, functional_stub
from .modules import patch_c_module, patch_function_module, patch_return_types, patch_tensor_subclasses, stub_tensor_module
from .signatures import Op
from .versions import version_note

__all__ = ["Overlay", "OverlayError", "build_overlay", "installed_state", "install", "uninstall", "STAMP"]

STAMP = "DEVICE_TYPES_OVERLAY.json"
#: Files whose functions are ops (module-level defs are rewritten).
FUNCTION_MODULES = ("_C/_VariableFunctions.pyi", "_C/_nn.pyi", "nn/functional.pyi")
C_MODULE = "_C/__init__.pyi"
RETURN_TYPES = "return_types.pyi"
TENSOR_SOURCE = "_tensor.py"


class OverlayError(Exception):
    """The overlay cannot be built or installed; ``str()`` is the one-line explanation."""


@dataclass
class Overlay:
    torch_version: str
    files: dict[str, str] = field(default_factory=dict)
    #: Ops by overlay file, for the coverage report.
    ops: dict[str, list[Op]] = field(default_factory=dict)
    #: One line for the user when this torch is newer than the newest tested one.
    warning: str | None = None


#: What to install when a command needs torch: the overlay extra (it pins the tested range).
INSTALL_TORCH = "pip install 'device-types[overlay]'"
NO_TORCH = f"torch is not installed in this environment; install it first ({INSTALL_TORCH})"


def torch_dir() -> Path:
    spec = importlib.util.find_spec("torch")
    if spec is None or not spec.submodule_search_locations:
        raise OverlayError(NO_TORCH)
    return Path(next(iter(spec.submodule_search_locations)))


def torch_version() -> str:
    try:
        return importlib.metadata.version("torch")
    except importlib.metadata.PackageNotFoundError:
        raise OverlayError(NO_TORCH) from None


_VERSION_LINE = re.compile(r"""^__version__\s*(?::\s*str\s*)?=\s*['"]([^'"]+)['"]""", re.MULTILINE)


def version_of_tree(root: Path) -> str:
    """The version of the torch whose files lie under ``root`` (an unpacked wheel), from
    its ``version.py``: the generator can then run on a torch that is not installed."""
    try:
        match = _VERSION_LINE.search((root / "version.py").read_text(encoding="utf-8"))
    except OSError:
        match = None
    if match is None:
        raise OverlayError(f"{root} holds no torch/version.py with a __version__: not a torch package")
    return match[1]


def generator_fingerprint() -> str:
    """Hash of the code that decides the overlay's content: a change regenerates it."""
    import device_types._devices
    import device_types._semantics

    digest = hashlib.sha256()
    sources = [Path(device_types._devices.__file__), Path(device_types._semantics.__file__)]
    sources += sorted(Path(__file__).parent.glob("*.py"))
    for path in sources:
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def build_overlay(root: Path | None = None) -> Overlay:
    """The overlay for the installed torch, or for the torch package directory ``root``
    (``.pyi`` files, ``_tensor.py`` and ``version.py`` suffice)."""
    version = torch_version() if root is None else version_of_tree(root)
    root = torch_dir() if root is None else root
    refusal, warning = version_note(version)
    if refusal is not None:
        raise OverlayError(refusal)
    overlay = Overlay(torch_version=version, warning=warning)
    pyi_files = sorted(p.relative_to(root).as_posix() for p in root.rglob("*.pyi"))
    if C_MODULE not in pyi_files:
        raise OverlayError(f"{root} has no {C_MODULE}: this torch build ships no stubs to overlay")
    try:
        namespaces = build_namespaces(root, overlay.torch_version)
        overlay.files.update(namespaces.files)
        overlay.ops.update(namespaces.ops)
        for rel in pyi_files:
            source = (root / rel).read_text(encoding="utf-8")
            origin = f"torch {overlay.torch_version}: torch/{rel}"
            if rel in FUNCTION_MODULES:
                overlay.files[rel], overlay.ops[rel] = patch_function_module(source, origin)
            elif rel == C_MODULE:
                overlay.files[rel], overlay.ops[rel] = patch_c_module(source, origin)
            elif rel == RETURN_TYPES:
                continue  # after the functions: it gains the structseq classes they return
            else:
                overlay.files[rel] = patch_tensor_subclasses(source, origin) or source
        if namespaces.schemas is not None and (root / FUNCTIONAL_SOURCE).is_file():
            native_ops: dict[str, list[Op]] = {}
            for op in overlay.ops.get(FUNCTION_MODULES[0], []):
                native_ops.setdefault(op.name, []).append(op)
            origin = f"torch {overlay.torch_version}: torch/{FUNCTIONAL_SOURCE}"
            overlay.files[FUNCTIONAL_STUB], overlay.ops[FUNCTIONAL_STUB], structseqs = functional_stub(root, origin, namespaces.schemas, native_ops)
            namespaces.structseqs.extend(structseqs)
        if RETURN_TYPES in pyi_files:
            source = (root / RETURN_TYPES).read_text(encoding="utf-8")
            origin = f"torch {overlay.torch_version}: torch/{RETURN_TYPES}"
            overlay.files[RETURN_TYPES] = patch_return_types(namespaces.return_types_source(source), origin)
        base = BaseSignatures.of(overlay.files[C_MODULE])
        if base is None:
            raise OverlayError("TensorBase not found in the patched torch/_C/__init__.pyi")
        tensor_source = (root / TENSOR_SOURCE).read_text(encoding="utf-8")
        overlay.files["_tensor.pyi"], overlay.ops["_tensor.pyi"] = stub_tensor_module(
            tensor_source, f"torch {overlay.torch_version}: torch/{TENSOR_SOURCE}", base
        )
    except (SyntaxError, ValueError, OSError, UnicodeDecodeError) as exc:
        raise OverlayError(f"cannot build the overlay for torch {overlay.torch_version}: {exc}") from None
    overlay.files["_device_layer.pyi"] = layer_source()
    overlay.files["py.typed"] = "partial\n"
    return overlay


def site_packages() -> Path:
    """Where torch is installed, or (no torch here) this environment's site-packages, where
    ``pip install 'device-types[overlay]'`` would put it: ``stubs path`` and ``stubs uninstall``
    need no torch."""
    try:
        return torch_dir().parent
    except OverlayError:
        import sysconfig

        return Path(sysconfig.get_paths()["purelib"])


def overlay_dir() -> Path:
    return site_packages() / "torch-stubs"


def install(target: Path | None = None) -> tuple[Path, Overlay]:
    """Write the overlay next to torch; replace any previous one atomically.

    The new overlay is written whole into a directory beside the target
    (``.torch-stubs.device-types-PID-RANDOM.tmp``, each file fsynced), which then trades places
    with the previous one in one step (``renameat2(RENAME_EXCHANGE)`` on Linux), so a kill at
    any moment leaves the previous overlay or the new one, complete, at ``target``. Where the
    system has no such swap, the previous overlay is renamed aside (``...tmp.old``) first and
    the next install (or ``stubs check``) puts it back if the process was killed in between.
    What a killed install left beside the target is removed by the next one."""
    from device_types._files import sync_dir, temp_name, write_atomic  # each file flushed before the swap

    target = overlay_dir() if target is None else target
    recover(target)
    overlay = build_overlay()
    stamp = {"torch": overlay.torch_version, "generator": generator_fingerprint()}
    staging = Path(temp_name(str(target)))
    try:
        staging.mkdir()
    except OSError as exc:
        raise OverlayError(f"cannot write the overlay to {target}: {exc}") from None
    try:
        for rel, text in overlay.files.items():
            path = staging / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(str(path), text, clean=False)
        write_atomic(str(staging / STAMP), json.dumps(stamp, indent=1) + "\n", clean=False)
        for directory in sorted({(staging / rel).parent for rel in overlay.files}, reverse=True):
            sync_dir(str(directory))
        if os.path.lexists(target) and _exchange(staging, target):
            sync_dir(str(target.parent))
            shutil.rmtree(staging, ignore_errors=True)  # the previous overlay
        elif os.path.lexists(target):
            old = Path(f"{staging}.old")
            os.replace(target, old)
            os.replace(staging, target)
            sync_dir(str(target.parent))
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.replace(staging, target)
            sync_dir(str(target.parent))
    except OSError as exc:
        shutil.rmtree(staging, ignore_errors=True)
        raise OverlayError(f"cannot write the overlay to {target}: {exc}") from None
    return target, overlay


def _exchange(new: Path, target: Path) -> bool:
    """Swap ``new`` and ``target`` in one step (Linux ``renameat2`` with ``RENAME_EXCHANGE``);
    False where the system or the file system cannot (nothing was changed then)."""
    import sys

    if not sys.platform.startswith("linux"):
        return False
    import ctypes
    import errno

    try:
        renameat2 = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):
        return False
    renameat2.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    renameat2.restype = ctypes.c_int
    at_fdcwd, rename_exchange = -100, 2
    if renameat2(at_fdcwd, os.fsencode(new), at_fdcwd, os.fsencode(target), rename_exchange) == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.ENOSYS, errno.EINVAL, errno.EOPNOTSUPP, errno.ENOTSUP):
        return False
    raise OSError(code, os.strerror(code), str(target))


def recover(target: Path) -> None:
    """What an install that was killed left beside ``target``: the previous overlay renamed
    aside (where there was no swap) is put back if ``target`` is missing; the rest (its
    directories, of a process that no longer runs: ``_files.leftover``) is removed."""
    from device_types._files import leftover

    try:
        names = os.listdir(target.parent)
    except OSError:
        return
    ours = sorted(name for name in names if ".device-types-" in name and leftover(name, target.name)
                  and os.path.isdir(target.parent / name) and not os.path.islink(target.parent / name))
    for name in ours:
        path = target.parent / name
        if name.endswith(".old") and not os.path.lexists(target) and (path / STAMP).is_file():
            try:
                os.replace(path, target)
                continue
            except OSError:
                pass
        shutil.rmtree(path, ignore_errors=True)


def uninstall(target: Path | None = None) -> bool:
    target = overlay_dir() if target is None else target
    recover(target)
    if not (target / STAMP).exists():
        return False
    shutil.rmtree(target)
    return True


def installed_state(target: Path | None = None) -> tuple[bool, str]:
    """(fresh, one-line explanation) for the overlay in this environment."""
    try:
        target = overlay_dir() if target is None else target
        version = torch_version()
    except OverlayError as exc:
        return False, str(exc)
    recover(target)
    stamp_path = target / STAMP
    if not stamp_path.exists():
        return False, (
            f"no device-types overlay for torch {version} in {target.parent}: run `device-types stubs install`"
        )
    try:
        stamp = json.loads(stamp_path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False, f"the overlay stamp {stamp_path} is unreadable: run `device-types stubs install`"
    if stamp.get("torch") != version:
        return False, (
            f"the overlay was generated for torch {stamp.get('torch')}, but torch {version} is installed: "
            "run `device-types stubs install`"
        )
    if stamp.get("generator") != generator_fingerprint():
        return False, "the overlay was generated by another version of device-types: run `device-types stubs install`"
    return True, f"device-types overlay is up to date for torch {version} ({target})"
