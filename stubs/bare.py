"""What checkers read as ``Any`` in torch's own source stays ``Any`` in the overlay.

``torch/_tensor.py`` is Python source. Where checkers read one of its methods as ``Any``
(no return annotation; an untyped decorator such as torch 2.4's
``_handle_torch_function_and_wrap_type_error_to_not_implemented``), the overlay adds
no type, not even for device-typed tensors: ordinary code holds device-typed tensors
too (``x.cpu()``, ``torch.zeros(3)``), and a type where stock torch has ``Any`` gives it
new errors (torchmetrics: ``for val in reversed(t.cpu()): ints.append(val.item())``).
Such ops count as not covered (``coverage.py``).
"""

from __future__ import annotations

import ast

__all__ = ["is_untyped_call", "stock_types_as_any", "untyped_functions"]


def _decorator_name(node: ast.expr) -> str:
    if isinstance(node, ast.Call):
        return _decorator_name(node.func)
    if isinstance(node, ast.Attribute):
        return node.attr
    return node.id if isinstance(node, ast.Name) else ""


def untyped_functions(module: ast.Module) -> set[str]:
    """Module-level functions without a return annotation: checkers read their result as Any."""
    return {s.name for s in module.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.returns is None}


def is_untyped_call(value: ast.expr, helpers: set[str]) -> bool:
    """``untyped_helper(...)``: a class attribute that checkers read as Any."""
    return isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id in helpers


def stock_types_as_any(fn: ast.FunctionDef | ast.AsyncFunctionDef, helpers: set[str]) -> bool:
    """Whether checkers read this method of torch's own source as returning Any."""
    decorators = {_decorator_name(d) for d in fn.decorator_list}
    if decorators & {"property", "staticmethod", "classmethod"}:
        return False
    return fn.returns is None or bool(decorators & helpers)
