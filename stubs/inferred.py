"""What pyright infers from torch's own Python source, for the overlay to keep.

Where ``torch/_tensor.py`` leaves a method's result unannotated, mypy reads ``Any`` and
pyright infers a type from the body (``split`` gives ``Unknown | tuple[Tensor, ...]``,
``__iter__`` gives ``Iterator[Tensor]``) and from the parameters' defaults
(``dim=0`` is an ``int``). The overlay is one ``.pyi`` read by both, so such a method is
written twice under ``if <layer>.MYPY:``: mypy takes the branch the condition selects
(it treats a name ``MYPY`` as it treats ``TYPE_CHECKING``) and keeps ``Any``; pyright
cannot evaluate the condition and sees both branches. Of a plain def it takes the last
declaration; overloads it chains across both branches in order, so the first matching
one is pyright's when pyright's branch comes first (``if not MYPY:``).

pyright's ``Unknown | T`` is written ``T``: pyright reports on the ``T`` part of such a
union as it does on ``T``, and narrows a declared ``Tensor | None`` to ``Tensor`` on
assignment, while an explicit ``Any | T`` narrows to ``Tensor | None`` (measured on
torchmetrics' ``pairwise/cosine.py``). Only strict mode's "partially unknown" reports
see the difference (docs/limits.md).

The results are pyright's own inference on torch 2.13's source (``reveal_type`` of each
method on a bare tensor in an environment without the overlay, ``Unknown |`` dropped), with the receiver's
device where the result is the receiver's tensor; ``tests/fidelity/test_signatures.py``
compares every one of them with stock pyright on the installed torch, so a torch release
that changes a body fails there rather than silently. A method missing here keeps ``Any``
in both checkers (docs/limits.md lists those that stock pyright types).
"""

from __future__ import annotations

import ast

__all__ = ["MYPY_CONDITION", "for_both", "PYRIGHT_FUNCTION_RESULTS", "PYRIGHT_RESULTS", "pyright_parameters"]

#: The condition mypy reads as true and pyright cannot evaluate (defined in the layer).
MYPY_CONDITION = "_dt_layer.MYPY"

_D = "Tensor[_DeviceT]"
#: method of ``torch.Tensor`` -> its result as pyright infers it from torch's source.
PYRIGHT_RESULTS: dict[str, str] = {
    "__iter__": f"_dt_Iterator[{_D}]",
    "split": f"tuple[{_D}, ...]",
    "norm": f"{_D}",
    "__reversed__": f"{_D}",
    "stft": f"{_D}",
    "unflatten": f"{_D}",
    "to_sparse_coo": _D,
    "share_memory_": f"{_D}",
    "__deepcopy__": f"{_D}",
    "lu": f"tuple[{_D}, {_D}, {_D}] | tuple[{_D}, {_D}]",
    "module_load": "Tensor",
    "__array_wrap__": "Tensor",
    "solve": "tuple[Tensor, Tensor]",
    "lstsq": "tuple[Tensor, Tensor]",
    "eig": "tuple[Tensor, Tensor]",
    "symeig": "tuple[Tensor, Tensor]",
    "__len__": "int",
    "__hash__": "int",
    "__format__": "str",
    "__dir__": "list[str]",
    "is_shared": "bool",
    "dim_order": "tuple[int, ...]",
    "reinforce": "_dt_NoReturn",
    "backward": "None",
    "__setstate__": "None",
    "_clear_non_serializable_cached_data": "None",
    "register_hook": "torch.utils.hooks.RemovableHandle",
    "register_post_accumulate_grad_hook": "torch.utils.hooks.RemovableHandle",
    "storage": "torch.storage.TypedStorage",
    "_typed_storage": "torch.storage.TypedStorage",
    # Unknown results whose parameters pyright still types from their defaults
    "unique": "_dt_Any",
    "unique_consecutive": "_dt_Any",
}

#: function of ``torch/functional.py`` -> its result for calls that stock torch types as
#: Any in mypy (bare tensors, other arguments), as pyright infers it from the source.
PYRIGHT_FUNCTION_RESULTS: dict[str, str] = {
    "norm": "Tensor",
    "broadcast_shapes": "torch.Size",
}

def for_both(for_mypy: list[ast.stmt], for_pyright: list[ast.stmt]) -> ast.If:
    """One ``if`` that gives mypy ``for_mypy`` and pyright ``for_pyright``."""
    overloaded = any(isinstance(d, ast.FunctionDef) and len(d.decorator_list) > 0 and "overload" in ast.unparse(d.decorator_list[0]) for d in for_pyright)
    condition = ast.parse(MYPY_CONDITION, mode="eval").body
    if overloaded:
        return ast.If(test=ast.UnaryOp(op=ast.Not(), operand=condition), body=for_pyright, orelse=for_mypy)
    return ast.If(test=condition, body=for_mypy, orelse=for_pyright)


#: pyright's type for an unannotated parameter, from its default's type.
_FROM_DEFAULT = {bool: "bool", int: "int", float: "float", str: "str", bytes: "bytes"}


def pyright_parameters(fn: ast.FunctionDef, written: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
    """Parameters that ``written`` (torch's source) leaves unannotated get the type pyright
    infers from the default (``dim=0`` -> ``int``); others stay as ``fn`` has them."""
    a, w = fn.args, written.args
    positional, written_positional = [*a.posonlyargs, *a.args], [*w.posonlyargs, *w.args]
    defaults = [None] * (len(positional) - len(a.defaults)) + list(w.defaults)
    pairs = list(zip(positional, written_positional, defaults))
    pairs += list(zip(a.kwonlyargs, w.kwonlyargs, w.kw_defaults))
    for param, source, default in pairs:
        if source.annotation is None and isinstance(default, ast.Constant) and type(default.value) in _FROM_DEFAULT:
            param.annotation = ast.Name(id=_FROM_DEFAULT[type(default.value)], ctx=ast.Load())
