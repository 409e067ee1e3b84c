"""The imports the overlay adds to torch's files are ``if TYPE_CHECKING:`` imports.

mypy reads torch as one import cycle (1,156 modules for torch 2.13: `mypy -v` says "largest has
1156 nodes"). It orders them by their imports
(``mypy/build.py``, ``order_ascc``): a module-level ``from m import x`` ranks first, then
``import m``, then imports inside functions; an import under ``if TYPE_CHECKING:`` is never used
to order a cycle. That order decides types. ``torch/__init__.py`` runs
``from torch._higher_order_ops import cond`` before mypy has bound that package's function
``cond``; mypy then takes the submodule ``torch._higher_order_ops.cond`` (mypy issue 7203)
unless an earlier star import in the file waits for a module still unread, which stock
torch's order gives (``from torch._C._VariableFunctions import *``). One import the overlay
once added (``functional.pyi``'s ``from torch._C._VariableFunctions import istft``) read
that module earlier, and kornia's ``torch.while_loop(...)`` became ``Module not callable``.

So an import the overlay adds goes under ``if TYPE_CHECKING:`` (true for every checker in a
stub) and leaves mypy's order of torch's modules as stock torch has it.
``tests/fidelity/test_import_order.py`` checks every overlay file against its torch source.
"""

from __future__ import annotations

import ast

__all__ = ["type_checking_only"]


def type_checking_only(imports: str | list[ast.stmt]) -> list[ast.stmt]:
    """``imports`` (source text or statements) inside ``if TYPE_CHECKING:``."""
    body = ast.parse(imports).body if isinstance(imports, str) else list(imports)
    if not body:
        return []
    guard = ast.If(test=ast.Name(id="TYPE_CHECKING", ctx=ast.Load()), body=body, orelse=[])
    return [ast.ImportFrom(module="typing", names=[ast.alias(name="TYPE_CHECKING")], level=0), guard]
