"""Rewriting annotation expressions: give torch's tensor types a device argument."""

from __future__ import annotations

import ast
import copy
from collections.abc import Callable

__all__ = ["LAYER", "is_tensor_ref", "mentions_tensor", "parse_annotation", "with_device", "name"]

#: Module of the overlay's own layer; patched files import from it under ``_dt_`` names.
LAYER = "torch._device_layer"

#: Annotation names that denote torch's tensor class in the patched files.
TENSOR_NAMES = frozenset({"Tensor", "TensorBase"})


def name(identifier: str) -> ast.Name:
    return ast.Name(id=identifier, ctx=ast.Load())


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


def mentions_tensor(node: ast.AST | None) -> bool:
    if node is None:
        return False
    node = parse_annotation(node)  # type: ignore[arg-type]
    return any(is_tensor_ref(sub) or is_return_type_ref(sub) for sub in ast.walk(node))  # type: ignore[arg-type]


def with_device(node: ast.expr | None, device: Callable[[], ast.expr]) -> ast.expr | None:
    """A copy of ``node`` in which every bare tensor type gets ``[device()]``.

    Already subscripted references (``Tensor[...]``) are left as they are, so the
    rewrite is idempotent.
    """
    if node is None:
        return None
    node = parse_annotation(node)
    assert node is not None

    class _Rewriter(ast.NodeTransformer):
        def visit_Subscript(self, sub: ast.Subscript) -> ast.AST:
            if is_tensor_ref(sub.value) or is_return_type_ref(sub.value):
                return sub
            self.generic_visit(sub)
            return sub

        def _wrap(self, ref: ast.expr) -> ast.AST:
            if is_tensor_ref(ref) or is_return_type_ref(ref):
                return ast.Subscript(value=ref, slice=device(), ctx=ast.Load())
            return ref

        def visit_Name(self, ref: ast.Name) -> ast.AST:
            return self._wrap(ref)

        def visit_Attribute(self, ref: ast.Attribute) -> ast.AST:
            return self._wrap(ref)

    return _Rewriter().visit(copy.deepcopy(node))  # type: ignore[no-any-return]
