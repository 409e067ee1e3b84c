"""Rewriting annotation expressions: give torch's tensor types a device argument."""

from __future__ import annotations

import ast
import copy
from collections.abc import Callable
from typing import overload

__all__ = ["LAYER", "DeviceExpr", "is_tensor_ref", "mentions_tensor", "name", "parse_annotation", "with_device"]

#: Module of the overlay's own layer; patched files import from it under ``_dt_`` names.
LAYER = "torch._device_layer"

#: Annotation names that denote torch's tensor class in the patched files.
TENSOR_NAMES = frozenset({"Tensor", "TensorBase"})


def name(identifier: str) -> ast.Name:
    return ast.Name(id=identifier, ctx=ast.Load())


@overload
def parse_annotation(node: ast.expr) -> ast.expr: ...
@overload
def parse_annotation(node: None) -> None: ...
def parse_annotation(node: ast.expr | None) -> ast.expr | None:
    """Turn a string annotation ("Tensor") into an expression; leave others alone."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        try:
            return ast.parse(node.value, mode="eval").body
        except SyntaxError:
            return node
    return node


def is_tensor_ref(node: ast.AST) -> bool:
    """``Tensor``, ``torch.Tensor``, ``torch._C.TensorBase`` and friends (unsubscripted)."""
    if isinstance(node, ast.Name):
        return node.id in TENSOR_NAMES
    if isinstance(node, ast.Attribute):
        return node.attr in TENSOR_NAMES and _is_torch_path(node.value)
    return False


def is_return_type_ref(node: ast.AST) -> bool:
    """``torch.return_types.max``: the named tuples of tensors, generic in the overlay."""
    return (
        isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Attribute)
        and node.value.attr == "return_types"
        and _is_torch_path(node.value.value)
    )


def _is_torch_path(node: ast.AST) -> bool:
    if isinstance(node, ast.Name):
        return node.id in {"torch", "_C"}
    return isinstance(node, ast.Attribute) and _is_torch_path(node.value)


def mentions_tensor(node: ast.expr | None) -> bool:
    if node is None:
        return False
    return any(is_tensor_ref(sub) or is_return_type_ref(sub) for sub in ast.walk(parse_annotation(node)))


#: Builds the device argument to insert (a fresh node each time: AST nodes are not shared).
DeviceExpr = Callable[[], ast.expr]


class _DeviceArgument(ast.NodeTransformer):
    """Subscripts every bare tensor type with a device; leaves subscripted ones alone."""

    def __init__(self, device: DeviceExpr) -> None:
        self.device = device

    def visit_Subscript(self, sub: ast.Subscript) -> ast.AST:
        if not (is_tensor_ref(sub.value) or is_return_type_ref(sub.value)):
            self.generic_visit(sub)
        return sub

    def _wrap(self, ref: ast.expr) -> ast.AST:
        if is_tensor_ref(ref) or is_return_type_ref(ref):
            return ast.Subscript(value=ref, slice=self.device(), ctx=ast.Load())
        return ref

    def visit_Name(self, ref: ast.Name) -> ast.AST:
        return self._wrap(ref)

    def visit_Attribute(self, ref: ast.Attribute) -> ast.AST:
        return self._wrap(ref)


@overload
def with_device(node: ast.expr, device: DeviceExpr) -> ast.expr: ...
@overload
def with_device(node: None, device: DeviceExpr) -> None: ...
def with_device(node: ast.expr | None, device: DeviceExpr) -> ast.expr | None:
    """A copy of ``node`` in which every bare tensor type gets ``[device()]``.

    Already subscripted references (``Tensor[...]``) are left as they are, so the
    rewrite is idempotent.
    """
    if node is None:
        return None
    result = _DeviceArgument(device).visit(copy.deepcopy(parse_annotation(node)))
    assert isinstance(result, ast.expr)
    return result
