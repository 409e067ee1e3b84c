"""Bare and CPU tensors keep what stock torch gives where torch types an op's result as ``Any``.

``torch.linalg.*``, ``torch.fft.*``, ``torch.special.*`` and the untyped Python-level
functions are ``Any`` to checkers today. Their device-generic signatures come after a
first overload whose first tensor parameter is ``Tensor[Never] | Tensor[CPU]``: a bare
tensor (``Tensor[Any]``) or a CPU tensor matches it and the result stays ``Any``;
``Tensor[MPS]`` does not (the device parameter is invariant) and reaches the
device-generic signature.

CPU too, because ordinary code creates CPU tensors without saying so (``torch.tensor(xs)``)
and reuses names across types (``a, b = torch.unique(t, return_counts=True)`` then
``a = a.tolist()``): a precise result where torch gave ``Any`` would be a new mypy error
there (seen in timm). Accelerator tensors, the policy's subject, get the precision.
"""

from __future__ import annotations

import ast
import copy

from .annotations import is_tensor_ref, name
from .signatures import OVERLOAD

__all__ = ["HOST", "NEVER", "NEVER_IMPORT", "bare_guard", "host_result_as_any"]

NEVER = "_dt_Never"
NEVER_IMPORT = f"from typing_extensions import Never as {NEVER}\n"
#: The CPU marker as the patched files import it (``_dt_CPU``).
HOST = "_dt_CPU"


def _never() -> ast.expr:
    def tensor(device: str) -> ast.expr:
        return ast.Subscript(value=name("Tensor"), slice=name(device), ctx=ast.Load())

    return ast.BinOp(left=tensor(NEVER), op=ast.BitOr(), right=tensor(HOST))


def bare_guard(fn: ast.FunctionDef) -> ast.FunctionDef | None:
    """``fn``'s parameters up to its first required tensor, that one ``Tensor[Never] | Tensor[CPU]``,
    the rest ``*args, **kwargs``, result ``Any``; None when ``fn`` has no such tensor."""
    guard = copy.deepcopy(fn)
    a = guard.args
    any_ = name("_dt_Any")
    positional = [*a.posonlyargs, *a.args]
    required = len(positional) - len(a.defaults)
    for index, p in enumerate(positional):
        if index >= required:
            break
        if p.annotation is not None and is_tensor_ref(p.annotation):
            p.annotation = _never()
            keep = index + 1
            a.posonlyargs, a.args = a.posonlyargs[:keep], a.args[: max(0, keep - len(a.posonlyargs))]
            a.defaults = []
            a.vararg = ast.arg(arg="args", annotation=any_)
            break
    else:
        if not (a.vararg is not None and a.vararg.annotation is not None and is_tensor_ref(a.vararg.annotation)):
            return None
        a.vararg.annotation = _never()
        if positional[required:]:
            return None
        a.posonlyargs, a.args, a.defaults = [p for p in a.posonlyargs], list(a.args), []
    a.kwonlyargs, a.kw_defaults = [], []
    a.kwarg = ast.arg(arg="kwargs", annotation=name("_dt_Any"))
    guard.returns = name("_dt_Any")
    guard.decorator_list = [name(OVERLOAD)]
    guard.body = [ast.Expr(value=ast.Constant(value=Ellipsis))]
    return guard


def host_result_as_any(defs: list[ast.stmt]) -> None:
    """A factory's CPU overload (no ``device=``, ``"cpu"``) gives ``Any`` where torch gives ``Any``."""
    for fn in defs:
        if isinstance(fn, ast.FunctionDef) and isinstance(fn.returns, ast.Subscript) and ast.unparse(fn.returns.slice) == HOST:
            fn.returns = name("_dt_Any")
