"""Bare and CPU tensors keep what stock torch gives where torch types an op's result as ``Any``.

``torch.linalg.*``, ``torch.fft.*``, ``torch.special.*`` and the untyped Python-level
functions are ``Any`` to checkers today. Their device-generic signatures come after a
first overload whose first tensor parameter is ``Tensor[Never] | Tensor[CPU]``: a bare
tensor (``Tensor[Any]``) or a CPU tensor matches it and the result stays ``Any``;
``Tensor[MPS]`` does not (the device parameter is invariant) and reaches the
device-generic signature.

Before that guard comes the host reading (``host_reading_first``): the device-generic
signature with the CPU for its device and ``Any`` for its result. pyright and basedpyright
list overloads in declaration order and make the first one that has a parameter for the
argument under the cursor the active signature, so this is what an editor shows first: the
op's own parameters, not ``Tensor[Never] | Tensor[CPU], *args, **kwargs``. It gives what the
guard gives wherever it matches (``Any``, for a bare or a CPU first tensor), so no call's type
changes; the guard stays for bare and CPU calls outside the typed signature (stock torch's
``Any`` accepts any call). It cannot be the device-generic signature itself: pyright takes a
bare tensor's result from the first overload it matches (``Tensor[Any]`` there, ``Any`` in
stock torch).

CPU too, because ordinary code creates CPU tensors without saying so (``torch.tensor(xs)``)
and reuses names across types (``a, b = torch.unique(t, return_counts=True)`` then
``a = a.tolist()``): a precise result where torch gave ``Any`` would be a new mypy error
there (seen in timm). Accelerator tensors, the policy's subject, get the precision.
"""

from __future__ import annotations

import ast
import copy

from .annotations import is_tensor_ref, name
from .inferred import MYPY_CONDITION
from .signatures import DEVICE_T, OVERLOAD

__all__ = ["HOST", "NEVER", "NEVER_IMPORT", "bare_guard", "host_reading_first", "host_result_as_any"]

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


#: Whether a guarded op's first overload is its host reading (see the module's docstring);
#: off, the guard comes first (the layout before; benchmarks/editor_bench.py measures both).
HOST_READING_FIRST = True


def _is_guard(stmt: ast.stmt) -> bool:
    if not isinstance(stmt, ast.FunctionDef):
        return False
    params = [*stmt.args.posonlyargs, *stmt.args.args]
    annotations = [p.annotation for p in params] + ([stmt.args.vararg.annotation] if stmt.args.vararg else [])
    return any(a is not None and ast.unparse(a) == ast.unparse(_never()) for a in annotations)


def _host_reading(generic: ast.FunctionDef, guard: ast.FunctionDef) -> ast.FunctionDef | None:
    """``generic`` with the CPU for its device and ``guard``'s result (``Any``, or what
    pyright infers from torch's source where it infers one); None where its parameters
    name no device (nothing to read on the host)."""
    reading = copy.deepcopy(generic)
    a = reading.args
    found = False
    for p in [*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg]:
        if p is None or p.annotation is None:
            continue
        for node in ast.walk(p.annotation):
            if isinstance(node, ast.Name) and node.id == DEVICE_T:
                node.id, found = HOST, True
    if not found:
        return None
    reading.returns = copy.deepcopy(guard.returns)
    reading.decorator_list = [name(OVERLOAD)]
    return reading


def host_reading_first(body: list[ast.stmt], pyright_only: bool = False) -> list[ast.stmt]:
    """``body`` with each bare guard preceded by its op's host reading (the first
    device-generic overload after the guard, on the CPU, ``-> Any``), under
    ``if not MYPY:`` unless ``body`` is pyright's already (``pyright_only``).

    mypy does not get it: mypy words a call that no overload takes against the first
    overload that would take it with its type arguments erased, and the host reading's
    ``Tensor[CPU]`` for every tensor gave one error per tensor argument there (``det(x_mps,
    out=y_cuda)``: two) where the guard gives one. mypy has no signature help to order.
    """
    if not HOST_READING_FIRST:
        return body
    out: list[ast.stmt] = []
    for index, stmt in enumerate(body):
        if _is_guard(stmt):
            assert isinstance(stmt, ast.FunctionDef)
            generic = next((s for s in body[index + 1:] if isinstance(s, ast.FunctionDef) and s.name == stmt.name
                            and not _is_guard(s)), None)
            reading = _host_reading(generic, stmt) if generic is not None else None
            if reading is not None:
                out.append(reading if pyright_only else _for_pyright_only(reading))
        out.append(stmt)
    return out


def _for_pyright_only(stmt: ast.stmt) -> ast.If:
    """``if not MYPY: stmt``: mypy skips the block (it reads ``MYPY`` as ``TYPE_CHECKING``);
    pyright cannot evaluate it and chains the overload with the ones after it, in order."""
    condition = ast.parse(MYPY_CONDITION, mode="eval").body
    return ast.If(test=ast.UnaryOp(op=ast.Not(), operand=condition), body=[stmt], orelse=[])
