"""Stubs for the op namespaces torch ships without any: ``torch.linalg``, ``torch.fft``,
``torch.special`` (``torch/<ns>/__init__.py`` binds ATen ops with
``cross = _add_docstr(_linalg.linalg_cross, ...)``).

The stub replaces the module for the checkers, so it declares every module-level name:
each bound op with the signatures of its native schemas (``native.py``), made
device-generic by the same rewrite as every other op; other names as they are
(imports, aliases) or ``Any``.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import Path

from device_types._semantics import OpKind

from .gradual import NEVER_IMPORT, bare_guard, host_reading_first, host_result_as_any
from .modules import _finish, _rewrite_defs, _stub_class, _stub_function
from .import_order import type_checking_only
from .native import IMPORTS, NativeOp, NativeSchemas, load_schemas, structseq_class
from .signatures import Op, SignatureRewriter

__all__ = ["NAMESPACES", "NamespaceStubs", "build_namespaces", "bound_native", "namespace_stub"]

#: torch's op namespaces without stubs: package path -> stub file in the overlay.
NAMESPACES = {"linalg/__init__.py": "linalg/__init__.pyi", "fft/__init__.py": "fft/__init__.pyi", "special/__init__.py": "special/__init__.pyi"}
_DOCSTR = "_add_docstr"


def bound_native(value: ast.expr) -> ast.expr | None:
    """``_add_docstr(X, "...")`` -> ``X`` (torch's way of binding an op with its docs)."""
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name | ast.Attribute) and value.args:
        called = value.func.id if isinstance(value.func, ast.Name) else value.func.attr
        if called == _DOCSTR:
            return value.args[0]
    return None


def _text(node: ast.expr) -> str | None:
    """A docstring expression's text, read without running it: literals, their ``+`` (a
    part that is not a literal, such as ``common_notes["sync_note"]``, is left out) and
    ``"...".format(...)`` (the template as written where its arguments are not literals)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        parts = [_text(node.left), _text(node.right)]
        return "".join(p for p in parts if p is not None) if any(p is not None for p in parts) else None
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "format":
        template = _text(node.func.value)
        if template is None:
            return None
        values = {k.arg: _text(k.value) for k in node.keywords if k.arg is not None}
        if not node.args and all(v is not None for v in values.values()) and all(k.arg for k in node.keywords):
            try:
                return template.format(**values)
            except (KeyError, IndexError, ValueError):
                pass
        return template
    return None


def _docstring(value: ast.expr) -> str | None:
    """The docs torch binds to an op (``_add_docstr(op, docs)``), for every overload of its
    stub. pyright and basedpyright look for an undocumented overload's docs in the module's
    source, on every signature help and hover: 0.25-0.4 s for ``torch.linalg.det(`` with
    three undocumented overloads, 0.02-0.06 s documented (benchmarks/editor_bench.py)."""
    if isinstance(value, ast.Call) and len(value.args) > 1:
        text = _text(value.args[1])
        return text.strip("\n") if text else None
    return None


def _imported_names() -> set[str]:
    names: set[str] = set()
    for stmt in ast.parse(IMPORTS).body:
        if isinstance(stmt, ast.ImportFrom | ast.Import):
            names.update((a.asname or a.name).split(".")[0] for a in stmt.names)
    return names


def _reexport(stmt: ast.ImportFrom) -> list[ast.stmt]:
    """``from m import _X as X`` re-exports nothing in a stub; ``X = _X`` after the import does."""
    out: list[ast.stmt] = [stmt]
    for alias in stmt.names:
        public = alias.asname
        if public and public != alias.name and not public.startswith("_"):
            alias.asname = f"_dt_{public}"
            out.append(ast.Assign(targets=[ast.Name(id=public, ctx=ast.Store())], value=ast.Name(id=alias.asname, ctx=ast.Load()), lineno=0))
    return out


def namespace_stub(source: str, origin: str, schemas: NativeSchemas) -> tuple[str, list[Op], list[NativeOp]]:
    """(stub text, ops for coverage, native ops whose named results need a structseq class)."""
    module = ast.parse(source)
    ours = _imported_names()
    body: list[ast.stmt] = [*type_checking_only(IMPORTS), *ast.parse(NEVER_IMPORT).body]
    structseqs: list[NativeOp] = []
    untyped: list[Op] = []
    for stmt in module.body:
        if isinstance(stmt, ast.ImportFrom):
            body.extend(_reexport(stmt))
        elif isinstance(stmt, ast.Import):
            body.append(stmt)
        elif isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            target = stmt.targets[0].id
            stubbed = _assignment(target, stmt.value, schemas, structseqs, ours)
            if isinstance(bound_native(stmt.value), ast.Attribute) and not any(isinstance(s, ast.FunctionDef) for s in stubbed):
                untyped.append(Op(target, OpKind.PRESERVE, returns_tensor=True, device_typed=False))  # no schema: Any
            body.extend(stubbed)
        elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
            body.append(ast.AnnAssign(target=stmt.target, annotation=stmt.annotation, value=None, simple=1))
        elif isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef):
            body.append(_stub_function(stmt))
        elif isinstance(stmt, ast.ClassDef):
            body.append(_stub_class(stmt))
    module.body = body
    rewriter = SignatureRewriter(is_method=False, merge_cpu_device=False)  # CPU results become Any below
    module.body = host_reading_first(_rewrite_defs(module.body, rewriter))
    host_result_as_any(module.body)  # every op here is Any in stock torch
    return _finish(module, origin), rewriter.ops + untyped, structseqs


def _assignment(target: str, value: ast.expr, schemas: NativeSchemas, structseqs: list[NativeOp], ours: set[str]) -> list[ast.stmt]:
    bound = bound_native(value)
    if isinstance(bound, ast.Attribute) and bound.attr in schemas:
        ops = schemas.ops(bound.attr)
        if ops:
            structseqs.extend(op for op in ops if op.structseq is not None)
            defs = [d for op in ops for d in ast.parse(op.python_def(target, overloaded=True)).body if isinstance(d, ast.FunctionDef)]
            # Stock torch types these ops as Any: bare tensors keep that (factories
            # have a device of their own and need no guard).
            is_factory = any(p == "device" for op in ops for p, _, _ in op.parameters()[1])
            guard = None if is_factory else bare_guard(defs[0])
            if guard is None and len(defs) == 1:
                defs[0].decorator_list = []
            functions = [guard, *defs] if guard is not None else list(defs)
            doc = _docstring(value)
            if doc is not None:
                for fn in functions:
                    fn.body = [ast.Expr(value=ast.Constant(value=doc))]
            return list[ast.stmt](functions)
    if target == "__all__":
        return [ast.Assign(targets=[ast.Name(id=target, ctx=ast.Store())], value=value, lineno=0)]
    if isinstance(value, ast.Name | ast.Attribute):
        if target in ours:
            return []  # the stub's own import binds it already (``Tensor = torch.Tensor``)
        return [ast.Assign(targets=[ast.Name(id=target, ctx=ast.Store())], value=value, lineno=0)]
    return [ast.AnnAssign(target=ast.Name(id=target, ctx=ast.Store()), annotation=ast.Name(id="_dt_Any", ctx=ast.Load()), value=None, simple=1)]


_STRUCTSEQ_IMPORTS = """
from typing import Final, NoReturn, TYPE_CHECKING
from typing_extensions import Self
if TYPE_CHECKING:  # as every import the overlay adds (import_order.py)
    from torch import Tensor
    from torch.types import _int
"""


@dataclass
class NamespaceStubs:
    files: dict[str, str] = field(default_factory=dict)
    ops: dict[str, list[Op]] = field(default_factory=dict)
    #: ``torch.return_types`` classes the namespaces return and torch's stub lacks.
    structseqs: list[NativeOp] = field(default_factory=list)
    #: None when the installed torch ships no schemas (or no torchgen to read them).
    schemas: NativeSchemas | None = None

    def return_types_source(self, source: str) -> str:
        """torch's ``return_types.pyi`` with the missing structseq classes appended."""
        defined = {stmt.name for stmt in ast.parse(source).body if isinstance(stmt, ast.ClassDef)}
        classes: dict[str, str] = {}
        for op in self.structseqs:
            if op.base_name not in defined:
                classes.setdefault(op.base_name, structseq_class(op))
        if not classes:
            return source
        return source + "\n" + _STRUCTSEQ_IMPORTS + "\n\n".join(classes.values()) + "\n"


def build_namespaces(root: Path, torch_version: str) -> NamespaceStubs:
    """Stubs for every namespace of ``NAMESPACES`` the installed torch has (none without schemas)."""
    schemas = load_schemas(root)
    stubs = NamespaceStubs(schemas=schemas)
    if schemas is None:
        return stubs
    for source_rel, stub_rel in NAMESPACES.items():
        path = root / source_rel
        if not path.is_file():
            continue
        origin = f"torch {torch_version}: torch/{source_rel} and its native schemas"
        text, ops, structseqs = namespace_stub(path.read_text(encoding="utf-8"), origin, schemas)
        stubs.files[stub_rel], stubs.ops[stub_rel] = text, ops
        stubs.structseqs.extend(structseqs)
    return stubs
