"""mypy processes torch's modules in stock torch's order with the overlay (stubs/import_order.py).

mypy reads torch as one import cycle and orders its modules by their imports. The order
decides types: where a package binds a function named like one of its submodules
(``torch._higher_order_ops.cond``, re-exported as ``torch.cond``), mypy takes the submodule
when it meets the re-export before the package has bound the function (mypy issue 7203).
An import the overlay once added changed the order, and kornia's ``torch.while_loop(...)``
became ``Module not callable``.

Two checks: every overlay file imports torch's modules as its torch source does (no import
added or made stronger, none dropped, at the strengths mypy orders by), and every name that
a torch package binds over a submodule of the same name has the same type in mypy with and
without the overlay.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

from device_types_stubs.overlay import overlay_dir, torch_dir

from ..checkers import run_mypy
from ..gradual.test_gradual import shadow_python

pytestmark = pytest.mark.usefixtures("fresh_overlay")

# mypy/build.py: import_priority and all_imported_modules_in_file. Lower is stronger.
FROM_IMPORT, IMPORT, IN_FUNCTION, TYPE_CHECKING_ONLY = 5, 10, 20, 25
#: mypy never orders a cycle by arcs this weak (order_ascc drops them first).
ORDERING = TYPE_CHECKING_ONLY


def _is_type_checking(test: ast.expr) -> bool:
    name = test.attr if isinstance(test, ast.Attribute) else test.id if isinstance(test, ast.Name) else None
    return name in {"TYPE_CHECKING", "MYPY"}


def import_arcs(source: str, package: str) -> dict[str, int]:
    """{module: the strongest import of it} for the torch modules a file imports, as mypy ranks them.

    Imports in the ``else`` of ``if TYPE_CHECKING`` (or of the overlay's ``if _dt_layer.MYPY``)
    are unreachable to mypy; the body of a module-level function is not read in library files
    (mypy strips it), a method's body is.
    """
    arcs: dict[str, int] = {}

    def add(module: str, strength: int) -> None:
        if module == "torch" or module.startswith("torch."):
            arcs[module] = min(strength, arcs.get(module, 99))

    def walk(body: list[ast.stmt], in_function: bool, mypy_only: bool, in_class: bool) -> None:
        def rank(strength: int) -> int:
            return IN_FUNCTION if in_function else max(TYPE_CHECKING_ONLY, strength) if mypy_only else strength

        for stmt in body:
            if isinstance(stmt, ast.Import):
                for alias in stmt.names:
                    add(alias.name, rank(IMPORT))
                    parts = alias.name.split(".")
                    for end in range(1, len(parts)):
                        add(".".join(parts[:end]), rank(IN_FUNCTION))
            elif isinstance(stmt, ast.ImportFrom):
                module = stmt.module or ""
                if stmt.level:
                    base = package.split(".")[: len(package.split(".")) - stmt.level + 1]
                    module = ".".join([*base, *([module] if module else [])])
                add(module, rank(FROM_IMPORT))
            elif isinstance(stmt, ast.If):
                if _is_type_checking(stmt.test):
                    walk(stmt.body, in_function, True, in_class)
                else:
                    walk(stmt.body, in_function, mypy_only, in_class)
                    walk(stmt.orelse, in_function, mypy_only, in_class)
            elif isinstance(stmt, ast.Try):
                for block in (stmt.body, *(h.body for h in stmt.handlers), stmt.orelse, stmt.finalbody):
                    walk(block, in_function, mypy_only, in_class)
            elif isinstance(stmt, ast.With):
                walk(stmt.body, in_function, mypy_only, in_class)
            elif isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef):
                if in_class or in_function:
                    walk(stmt.body, True, mypy_only, False)
            elif isinstance(stmt, ast.ClassDef):
                walk(stmt.body, in_function, mypy_only, True)

    walk(ast.parse(source).body, False, False, False)
    return arcs


def _torch_source(rel: Path) -> Path | None:
    """The file of torch's that an overlay file stands for: its own ``.pyi``, or the ``.py``."""
    for candidate in (torch_dir() / rel, (torch_dir() / rel).with_suffix(".py")):
        if candidate.is_file():
            return candidate
    return None


def _package(rel: Path) -> str:
    parts = ["torch", *rel.with_suffix("").parts]
    return ".".join(parts[:-1])


def _overlay_files() -> list[Path]:
    return sorted(p.relative_to(overlay_dir()) for p in overlay_dir().rglob("*.pyi"))


def test_arc_analysis_ranks_as_mypy_does() -> None:
    source = (
        "import torch.a\nfrom torch.b import x\nfrom typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from torch.c import y\n    import torch.b\n"
        "def f():\n    import torch.d\nclass C:\n    def m(self):\n        import torch.e\n"
        "from . import g\n"
    )
    assert import_arcs(source, "torch.pkg") == {
        "torch.a": IMPORT, "torch": IN_FUNCTION, "torch.b": FROM_IMPORT, "torch.c": TYPE_CHECKING_ONLY,
        "torch.e": IN_FUNCTION, "torch.pkg": FROM_IMPORT,
    }


@pytest.mark.parametrize("rel", _overlay_files(), ids=str)
def test_overlay_file_imports_as_its_torch_source(rel: Path) -> None:
    stock_path = _torch_source(rel)
    if stock_path is None:
        assert rel.as_posix() == "_device_layer.pyi"  # ours: it imports nothing from torch
        return
    package = _package(rel)
    ours = {m: s for m, s in import_arcs((overlay_dir() / rel).read_text(encoding="utf-8"), package).items() if s < ORDERING}
    stock = {m: s for m, s in import_arcs(stock_path.read_text(encoding="utf-8"), package).items() if s < ORDERING}
    stronger = {m: (s, stock.get(m)) for m, s in ours.items() if s < stock.get(m, ORDERING)}
    # A stock method's imports that the overlay's bodiless stubs lose (``_tensor.pyi``):
    # the weakest kind mypy orders by; the probe below checks what they could change.
    dropped = {m: s for m, s in stock.items() if s < ours.get(m, ORDERING) and s < IN_FUNCTION}
    assert (stronger, dropped) == ({}, {}), f"{rel}: (ours, torch's) strengths differ from torch/{stock_path.relative_to(torch_dir())}"


def _submodules(package: Path) -> set[str]:
    return {p.stem for p in package.glob("*.py") if p.stem != "__init__"} | {
        p.parent.name for p in package.glob("*/__init__.py")
    }


def _bindings(tree: ast.Module) -> list[tuple[str, ast.stmt]]:
    """(name, statement) for the names a module binds at module level, ``if``/``try`` included."""
    found: list[tuple[str, ast.stmt]] = []

    def walk(body: list[ast.stmt]) -> None:
        for stmt in body:
            if isinstance(stmt, ast.ImportFrom):
                found.extend(((a.asname or a.name), stmt) for a in stmt.names if a.name != "*")
            elif isinstance(stmt, ast.FunctionDef | ast.ClassDef):
                found.append((stmt.name, stmt))
            elif isinstance(stmt, ast.If):
                walk(stmt.body)
                walk(stmt.orelse)
            elif isinstance(stmt, ast.Try):
                walk(stmt.body)

    walk(tree.body)
    return found


def _is_module(module: str) -> bool:
    path = torch_dir().parent.joinpath(*module.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def _imported(package: str, stmt: ast.ImportFrom, bound: str) -> tuple[str, str]:
    """(module, name) that ``bound`` comes from, in the ``__init__`` of ``package``."""
    original = next(a.name for a in stmt.names if (a.asname or a.name) == bound)
    if not stmt.level:
        return stmt.module or "", original
    base = package.split(".")[: len(package.split(".")) - stmt.level + 1]
    return ".".join([*base, *([stmt.module] if stmt.module else [])]), original


def name_over_submodule_expressions() -> list[str]:
    """``pkg.name`` where torch's package ``pkg`` binds ``name`` (not a module) over its
    submodule ``pkg.name``, and every package attribute that re-exports one of them."""
    root = torch_dir()
    trees = {
        ".".join(["torch", *init.parent.relative_to(root).parts]): ast.parse(init.read_text(encoding="utf-8"))
        for init in sorted(root.rglob("__init__.py"))
        if "testing" not in init.parts and "_vendor" not in init.parts
    }
    shadowed: set[tuple[str, str]] = set()
    for package, tree in trees.items():
        subs = _submodules(torch_dir().parent.joinpath(*package.split(".")))
        for bound, stmt in _bindings(tree):
            if bound not in subs:
                continue
            if isinstance(stmt, ast.ImportFrom):
                source, original = _imported(package, stmt, bound)
                if _is_module(f"{source}.{original}"):
                    continue  # ``from . import sub``: the module itself
            shadowed.add((package, bound))
    expressions = {f"{package}.{bound}" for package, bound in shadowed}
    for package, tree in trees.items():
        for bound, stmt in _bindings(tree):
            if isinstance(stmt, ast.ImportFrom) and _imported(package, stmt, bound) in shadowed:
                expressions.add(f"{package}.{bound}")
    return sorted(expressions)


def test_names_over_submodules_keep_their_stock_type(tmp_path: Path) -> None:
    expressions = name_over_submodule_expressions()
    assert {"torch.cond", "torch.while_loop", "torch._higher_order_ops.cond"} <= set(expressions)
    packages = sorted({e.rsplit(".", 1)[0] for e in expressions})
    probe = tmp_path / "names_over_submodules.py"
    lines = ["from collections.abc import Callable", *(f"import {p}" for p in packages)]
    first = len(lines) + 1
    # A module is not callable: the assignment fails where mypy took the submodule.
    lines += [f"_{i}: Callable[..., object] = {e}" for i, e in enumerate(expressions)]
    probe.write_text("\n".join(lines) + "\n")
    errors = {
        condition: sorted(f"{expressions[d.line - first]}: {d.message}" for d in run_mypy([probe], cache=f"fidelity-names-{condition}", python=python))
        for condition, python in (("with", sys.executable), ("without", shadow_python()))
    }
    assert errors["with"] == errors["without"]
    # Stock torch's own types here: callables, as at run time.
    assert not any(e.startswith(("torch.cond:", "torch.while_loop:")) for e in errors["without"])
