"""``torch/functional.pyi``: the Python-level torch functions (``einsum``, ``split``,
``meshgrid``, ``norm``, ``unique``, ...), which ``torch/__init__.py`` re-exports over the
native ops of the same names.

Signature sources, in order (docs/op-semantics.md says why):

1. what torch declares: annotations (the ``if TYPE_CHECKING:`` branch where there is
   one), then the PEP 484 type comment TorchScript reads (``# type: (Tensor, bool) ->
   Tensor``), with TorchScript's overloads (``@_overload``) and ``boolean_dispatch``
   (one overload per ``Literal[True]``/``Literal[False]`` of the dispatch argument);
2. for what torch leaves undeclared, the **native twin**, the ATen op of the same name
   the function wraps (``block_diag(*tensors)`` wraps ``block_diag(Tensor[] tensors) ->
   Tensor``): a variadic parameter takes the twin's tensor list, the result the twin's
   result; any other undeclared parameter without a value default is a tensor
   (TorchScript's rule for unannotated parameters).

A signature completed by step 2 or from a type comment is an overload followed by the
function as written (undeclared parts ``Any``): calls outside the inferred shape keep
the result stock torch gives, never a new error. Names re-exported from another torch
module (``pca_lowrank``) are stubbed from that module's source by the same rules.
"""

from __future__ import annotations

import ast
import builtins
import copy
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from device_types._semantics import OpKind

from .annotations import mentions_tensor, name, parse_annotation
from .gradual import NEVER_IMPORT, bare_guard, host_reading_first
from .inferred import PYRIGHT_FUNCTION_RESULTS, for_both
from .modules import _finish
from .import_order import type_checking_only
from .native import IMPORTS, NativeOp, NativeSchemas
from .signatures import OVERLOAD, Op, SignatureRewriter, default_of, params_of

__all__ = ["FUNCTIONAL_SOURCE", "FUNCTIONAL_STUB", "functional_stub"]

FUNCTIONAL_SOURCE = "functional.py"
FUNCTIONAL_STUB = "functional.pyi"
_ANY = "_dt_Any"
_TYPING = "from typing import Dict, List, Literal, Optional, Tuple, Union\n"
_DISPATCH = "boolean_dispatch"
_TENSOR_LIST = "tuple[Tensor, ...] | list[Tensor]"


def _flatten(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """Top-level statements as a checker sees them: ``if TYPE_CHECKING:`` picks its branch."""
    for stmt in body:
        if isinstance(stmt, ast.If):
            is_type_checking = "TYPE_CHECKING" in ast.unparse(stmt.test)
            declares = [s for s in stmt.body if not isinstance(s, ast.Pass | ast.Expr)]
            if is_type_checking and declares:
                yield from _flatten(stmt.body)
            elif is_type_checking:
                yield from _flatten(stmt.orelse)
            else:
                yield from _flatten(stmt.body + stmt.orelse)
        elif isinstance(stmt, ast.Try):
            yield from _flatten(stmt.body)
        else:
            yield stmt


def _decorator_names(fn: ast.FunctionDef) -> set[str]:
    out = set()
    for d in fn.decorator_list:
        target = d.func if isinstance(d, ast.Call) else d
        out.add(target.id if isinstance(target, ast.Name) else target.attr if isinstance(target, ast.Attribute) else "")
    return out


def _undeclared(annotation: ast.expr | None) -> bool:
    return annotation is None or (isinstance(annotation, ast.Name) and annotation.id in {"Any", _ANY})


class _Resolver(ast.NodeTransformer):
    """Names a type comment uses that the stub cannot resolve (``number``) become Any."""

    def __init__(self, known: set[str]) -> None:
        self.known = known

    def visit_Name(self, node: ast.Name) -> ast.AST:
        return node if node.id in self.known else name(_ANY)


@dataclass
class _Source:
    """One torch Python module as the stub sees it."""

    tree: ast.Module
    defs: dict[str, list[ast.FunctionDef]] = field(default_factory=dict)
    assigns: dict[str, ast.expr] = field(default_factory=dict)
    known: set[str] = field(default_factory=set)

    @classmethod
    def parse(cls, text: str) -> _Source:
        source = cls(ast.parse(text, type_comments=True))
        source.known = set(dir(builtins)) | {"Dict", "List", "Literal", "Optional", "Tuple", "Union", _ANY}
        source.known |= {(a.asname or a.name).split(".")[0] for s in ast.parse(IMPORTS).body if isinstance(s, ast.Import | ast.ImportFrom) for a in s.names}
        for stmt in _flatten(source.tree.body):
            if isinstance(stmt, ast.FunctionDef):
                source.defs.setdefault(stmt.name, []).append(stmt)
            elif isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
                source.assigns[stmt.targets[0].id] = stmt.value
            elif isinstance(stmt, ast.Import | ast.ImportFrom):
                source.known |= {(a.asname or a.name).split(".")[0] for a in stmt.names}
        source.known |= set(source.defs) | set(source.assigns)
        return source

    def written(self, fn: ast.FunctionDef) -> ast.FunctionDef:
        """A body-less copy with the annotations as written (no type comment)."""
        plain = copy.copy(fn)
        plain.type_comment = None
        return self.declared(plain)[0]

    def declared(self, fn: ast.FunctionDef) -> tuple[ast.FunctionDef, bool]:
        """A body-less copy with the type comment's types where annotations are missing;
        (copy, whether the type comment supplied anything)."""
        stub = copy.deepcopy(fn)
        stub.body = [ast.Expr(value=ast.Constant(value=Ellipsis))]
        stub.decorator_list = []
        stub.type_comment = None
        a = stub.args
        a.defaults = [_literal_or_ellipsis(d) for d in a.defaults]
        a.kw_defaults = [None if d is None else _literal_or_ellipsis(d) for d in a.kw_defaults]
        for p in params_of(stub):
            p.annotation = parse_annotation(p.annotation)
            p.type_comment = None
        stub.returns = parse_annotation(stub.returns)
        used = False
        if fn.type_comment:
            try:
                signature = ast.parse(fn.type_comment, mode="func_type")
            except SyntaxError:
                signature = None
            plain = [*a.posonlyargs, *a.args, *a.kwonlyargs]
            if isinstance(signature, ast.FunctionType) and len(signature.argtypes) == len(plain):
                resolver = _Resolver(self.known)
                for p, t in zip(plain, signature.argtypes):
                    if _undeclared(p.annotation):
                        p.annotation = resolver.visit(t)
                        used = True
                if stub.returns is None:
                    stub.returns = resolver.visit(signature.returns)
                    used = True
        return stub, used


def _literal_or_ellipsis(node: ast.expr) -> ast.expr:
    if isinstance(node, ast.Constant) or (isinstance(node, ast.UnaryOp) and isinstance(node.operand, ast.Constant)):
        return node
    return ast.Constant(value=Ellipsis)


def _type(text: str) -> ast.expr:
    return ast.parse(text, mode="eval").body


def _fallback(fn: ast.FunctionDef) -> ast.FunctionDef:
    """The function as written, undeclared parts Any: what stock torch gives."""
    stub = copy.deepcopy(fn)
    for p in params_of(stub):
        if p.annotation is None:
            p.annotation = name(_ANY)
    if stub.returns is None:
        stub.returns = name(_ANY)
    return stub


def _with_twin(fn: ast.FunctionDef, twins: list[NativeOp]) -> list[ast.FunctionDef]:
    """Complete ``fn``'s undeclared parameters and result from its native twin."""
    a = fn.args
    if a.vararg is not None and _undeclared(a.vararg.annotation):
        return [v for twin in twins if (v := _variadic(fn, twin)) is not None]
    results = {twin.returns() for twin in twins}
    completed = copy.deepcopy(fn)
    if completed.returns is None:
        if len(results) != 1:
            return []
        completed.returns = _type(results.pop())
    for p in params_of(completed):
        if _undeclared(p.annotation):
            default = default_of(completed, p)
            if default is None:
                p.annotation = name("Tensor")
            elif isinstance(default, ast.Constant) and default.value is None:
                p.annotation = _type("Tensor | None")
            else:
                p.annotation = name(_ANY)
    return [completed]


def _variadic(fn: ast.FunctionDef, twin: NativeOp) -> ast.FunctionDef | None:
    """``f(*tensors)`` over ``f(Tensor[] tensors)``: the list is the varargs; a twin taking
    one tensor gives the one-tensor call."""
    positional, _ = twin.parameters()
    if not positional:
        return None
    *leading, last = positional
    v = copy.deepcopy(fn)
    a = v.args
    assert a.vararg is not None
    if last[1] == _TENSOR_LIST:
        a.posonlyargs = [ast.arg(arg=n, annotation=_type(t)) for n, t, _ in leading]
        a.args, a.defaults = [], []
        a.vararg.annotation = name("Tensor")
    elif last[1] == "Tensor" and not leading:
        a.posonlyargs = [ast.arg(arg=a.vararg.arg, annotation=name("Tensor"))]
        a.args, a.defaults, a.vararg = [], [], None
    else:
        return None
    for p in a.kwonlyargs:
        if _undeclared(p.annotation):
            default = default_of(v, p)
            none_default = isinstance(default, ast.Constant) and default.value is None
            p.annotation = _type("Tensor | None") if none_default else name(_ANY)
    if v.returns is None or not mentions_tensor(v.returns):
        v.returns = _type(twin.returns())
    return v


def _is_any(annotation: ast.expr | None) -> bool:
    return isinstance(annotation, ast.Name) and annotation.id in {"Any", _ANY}


def _is_complete(fn: ast.FunctionDef) -> bool:
    return fn.returns is not None and all(p.annotation is not None for p in params_of(fn))


def _candidates(source: _Source, defs: list[ast.FunctionDef], twins: list[NativeOp]) -> tuple[list[ast.FunctionDef], ast.FunctionDef, bool]:
    """(typed candidates, the function as written, whether the candidates were inferred)."""
    jit_overloads = [d for d in defs if _decorator_names(d) & {"overload", "_overload"}]
    implementation = next((d for d in reversed(defs) if d not in jit_overloads), defs[-1])
    # What checkers read: mypy and pyright both take a function's type comment
    # (``# type: (Tensor, Tensor, float, str) -> (Tensor)``, cdist) where it has no annotations.
    written = source.declared(implementation)[0] if implementation.type_comment else source.written(implementation)
    inferred = bool(jit_overloads)
    typed: list[ast.FunctionDef] = []
    for d in jit_overloads or [implementation]:
        stub, from_comment = source.declared(d)
        inferred |= from_comment
        if _is_complete(stub) and not any(_undeclared(p.annotation) and p.annotation is not None for p in params_of(stub)):
            typed.append(stub)
        else:
            inferred = True
            typed.extend(_with_twin(stub, twins))
    return typed, written, inferred


def _dispatch_leaves(source: _Source, value: ast.expr, constraints: dict[str, bool], defaults: dict[str, bool]) -> Iterator[tuple[dict[str, bool], str]]:
    """``boolean_dispatch(arg_name=a, if_true=f, if_false=g, default=d)`` -> (constraints, leaf function);
    ``defaults`` collects each dispatch argument's default."""
    if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == _DISPATCH):
        return
    kw = {k.arg: k.value for k in value.keywords if k.arg}
    arg, default = kw.get("arg_name"), kw.get("default")
    if not (isinstance(arg, ast.Constant) and isinstance(arg.value, str) and isinstance(default, ast.Constant)):
        return
    defaults[arg.value] = bool(default.value)
    for flag, branch in ((True, kw.get("if_true")), (False, kw.get("if_false"))):
        if not isinstance(branch, ast.Name):
            continue
        here = {**constraints, arg.value: flag}
        if branch.id in source.defs:
            yield here, branch.id
        elif branch.id in source.assigns:
            yield from _dispatch_leaves(source, source.assigns[branch.id], here, defaults)


def _constrained(fn: ast.FunctionDef, constraints: dict[str, bool]) -> ast.FunctionDef:
    v = copy.deepcopy(fn)
    a = v.args
    for p in params_of(v):
        if p.arg in constraints:
            p.annotation = _type(f"Literal[{constraints[p.arg]}]")
    a.defaults = [ast.Constant(value=Ellipsis) for _ in a.defaults]
    a.kw_defaults = [None if d is None else ast.Constant(value=Ellipsis) for d in a.kw_defaults]
    return v


@dataclass
class _Stub:
    rewriter: SignatureRewriter = field(default_factory=lambda: SignatureRewriter(is_method=False))
    body: list[ast.stmt] = field(default_factory=list)
    structseqs: list[NativeOp] = field(default_factory=list)

    def emit(self, public: str, typed: list[ast.FunctionDef], fallback: ast.FunctionDef | None, twins: list[NativeOp] | None = None) -> None:
        if not typed and fallback is not None:
            # Counted for coverage when it gives a tensor, though nothing types its device.
            returns_tensor = mentions_tensor(fallback.returns) or any(mentions_tensor(_type(t.returns())) for t in twins or [])
            self.rewriter.ops.append(Op(public, OpKind.PRESERVE, returns_tensor, device_typed=False))
        # Where stock torch types the result as Any, bare tensors keep Any.
        guard = bare_guard(typed[0]) if typed and fallback is not None and _is_any(fallback.returns) else None
        group: list[ast.stmt] = []
        if guard is not None:
            guard.name = public
            group.append(guard)
        overloaded = len(typed) + (fallback is not None) + (guard is not None) > 1
        for fn in typed:
            fn.name = public
            if overloaded:
                fn.decorator_list = [name(OVERLOAD)]
            group.extend(self.rewriter.rewrite(fn, overloaded=overloaded))
        if fallback is not None:
            fallback.name = public
            fallback.decorator_list = [name(OVERLOAD)] if overloaded else []
            group.append(fallback)  # not rewritten: it is what stock torch gives
        inferred = PYRIGHT_FUNCTION_RESULTS.get(public) if fallback is not None and _is_any(fallback.returns) else None
        if inferred is None:
            self.body.extend(host_reading_first(group))
            return
        # pyright infers this result from torch's source where mypy reads Any (inferred.py):
        # its copy of the group gives that where the group gives stock torch's Any.
        for_pyright = copy.deepcopy(group)
        for stmt in for_pyright:
            if isinstance(stmt, ast.FunctionDef) and _is_any(stmt.returns):
                stmt.returns = _type(inferred)
        self.body.append(for_both(group, host_reading_first(for_pyright, pyright_only=True)))


def functional_stub(root: Path, origin: str, schemas: NativeSchemas | None, native_ops: dict[str, list[Op]]) -> tuple[str, list[Op], list[NativeOp]]:
    """(stub text, ops for coverage, native ops whose named results need a structseq class).

    ``native_ops``: the rewritten ``torch._C._VariableFunctions`` ops by name, for names
    the module binds to them (``istft = _add_docstr(torch.istft, ...)``).
    """
    source = _Source.parse((root / FUNCTIONAL_SOURCE).read_text(encoding="utf-8"))
    stub = _Stub()
    stub.body.extend([*type_checking_only(IMPORTS), *ast.parse(_TYPING + NEVER_IMPORT).body])
    exported = _exported(source)
    ours = {(a.asname or a.name).split(".")[0] for s in ast.parse(IMPORTS).body if isinstance(s, ast.Import | ast.ImportFrom) for a in s.names}
    coverage: list[Op] = []
    for stmt in _flatten(source.tree.body):
        if isinstance(stmt, ast.ImportFrom):
            if stmt.level == 1:  # ``from ._lowrank import ...`` inside torch: absolute in the stub
                stmt = ast.ImportFrom(module=f"torch.{stmt.module}" if stmt.module else "torch", names=stmt.names, level=0)
            stub.body.extend(_imports(stmt, root, exported, stub, schemas))
        elif isinstance(stmt, ast.Import):
            stub.body.append(stmt)
    for fn_name, defs in source.defs.items():
        twins = schemas.ops(fn_name) if schemas is not None and fn_name in schemas else []
        stub.structseqs.extend(t for t in twins if t.structseq is not None)
        typed, written, inferred = _candidates(source, defs, twins)
        stub.emit(fn_name, typed, _fallback(written) if inferred or not typed else None, twins)
    for target, value in source.assigns.items():
        defaults: dict[str, bool] = {}
        leaves = list(_dispatch_leaves(source, value, {}, defaults))
        # The leaf a call without the dispatch arguments reaches comes first.
        leaves.sort(key=lambda leaf: sum(flag != defaults[arg] for arg, flag in leaf[0].items()))
        bound = _bound_native_op(value)
        if leaves:
            typed = []
            for constraints, leaf in leaves:
                candidates, _, _ = _candidates(source, source.defs[leaf], [])
                typed += [_constrained(c, constraints) for c in candidates]
            stub.emit(target, typed, _fallback(source.written(source.defs[leaves[0][1]][-1])))
        elif bound is not None and bound in native_ops:
            binding = f"from torch._C._VariableFunctions import {bound} as {target}" if bound == target else f"from torch._C._VariableFunctions import {bound} as _dt_{target}\n{target} = _dt_{target}"
            stub.body.extend(type_checking_only(binding))
            coverage += [Op(target, op.kind, op.returns_tensor, op.device_typed) for op in native_ops[bound]]
        elif target in source.defs or target in ours:
            continue  # a def, or a name the stub's own imports bind (``Tensor = torch.Tensor``)
        elif target == "__all__" or isinstance(value, ast.Name | ast.Attribute | ast.Subscript):
            stub.body.append(ast.Assign(targets=[name(target)], value=value, lineno=0))
        else:
            stub.body.append(ast.AnnAssign(target=name(target), annotation=name(_ANY), value=None, simple=1))
    module = ast.Module(body=stub.body, type_ignores=[])
    return _finish(module, origin), stub.rewriter.ops + coverage, stub.structseqs


def _exported(source: _Source) -> set[str]:
    value = source.assigns.get("__all__")
    if isinstance(value, ast.List | ast.Tuple):
        return {e.value for e in value.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)}
    return set()


def _bound_native_op(value: ast.expr) -> str | None:
    """``_add_docstr(torch.istft, ...)`` -> ``istft``."""
    if isinstance(value, ast.Call) and value.args and ast.unparse(value.func).endswith("_add_docstr"):
        first = value.args[0]
        if isinstance(first, ast.Attribute) and isinstance(first.value, ast.Name) and first.value.id == "torch":
            return first.attr
    return None


def _imports(stmt: ast.ImportFrom, root: Path, exported: set[str], stub: _Stub, schemas: NativeSchemas | None) -> list[ast.stmt]:
    """Exported names imported from another torch Python module are stubbed here from its source."""
    module = stmt.module or ""
    relative = module.split(".")[1:] if module.startswith("torch.") else None
    path = root.joinpath(*relative).with_suffix(".py") if relative else None
    if path is None or not path.is_file():
        return [stmt]
    source = _Source.parse(path.read_text(encoding="utf-8"))
    kept = []
    for alias in stmt.names:
        local = alias.asname or alias.name
        if local in exported and alias.name in source.defs:
            twins = schemas.ops(alias.name) if schemas is not None and alias.name in schemas else []
            typed, written, inferred = _candidates(source, source.defs[alias.name], twins)
            stub.emit(local, typed, _fallback(written) if inferred or not typed else None, twins)
            # The import stays, under a private name: mypy orders torch's modules by their
            # imports, and this one is torch's (import_order.py).
            kept.append(ast.alias(name=alias.name, asname=f"_dt_imported_{local}"))
        else:
            kept.append(alias)
    stmt.names = kept
    return [stmt]
