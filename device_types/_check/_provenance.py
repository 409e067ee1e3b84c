"""What a value a function passes is made from, and what it keeps of it: the provenance half of
the guard reader (``_guards.GuardReader`` mixes it in).

A caller's guard holds for a tensor it makes from a guarded one as far as the ops that made it
keep: a view its device, dtype and the project's predicates; a copy, a tensor made like it or
an element-wise op with numbers its shape too; a mask its device and shape; any other device
op's result its device and dtype; a tensor allocated given another's metadata what it is given
(contiguous unless given its strides); a project helper returning one of these
(``Summary.made_like``) the same. ``passed`` turns that into the binding ``_conditions``
rewrites a callee's condition with.
"""

from __future__ import annotations

import ast
import builtins
from collections.abc import Callable
from functools import cached_property
from typing import TYPE_CHECKING

from .. import _semantics as sem
from ._conditions import Subject
from ._walk.syntax import metadata_of

if TYPE_CHECKING:
    from .._vocabulary import HostVocabulary
    from ._bindings import Stores
    from ._project import FunctionInfo

__all__ = ["CONTIGUOUS", "KEEPS_ALL", "MadeBy", "Provenance"]

_BUILTINS = frozenset(dir(builtins))

#: What a tensor made from another keeps of it (``Provenance._made_from``; read by ``_conditions``).
KEEPS_ALL: frozenset[str] = frozenset({"device", "dtype", "shape", "layout", "predicates", "type", "value"})
# a copy, a tensor made like it, an element-wise op of it and numbers: all but the data, which a
# test of the tensor itself (``t is None``, its truth) does not tell apart from the original's
_COPY = KEEPS_ALL
_VIEW = frozenset({"device", "dtype", "predicates", "type", "value"})  # a view: its own shape
_DEVICE_OP = frozenset({"device", "dtype", "predicates"})  # any other device op's result
_MASK = frozenset({"device", "shape"})  # an element-wise op with a dtype of its own: ``a > 0``
#: A tensor allocated given another's metadata (``_from_buffer(buf, a.shape, a.dtype, a.device)``)
#: keeps what it is given, and is contiguous where it is not given that tensor's strides.
_GIVEN = {"device": "device", "dtype": "dtype", "shape": "shape", "size()": "shape"}
CONTIGUOUS = "contiguous"
_ALIAS = frozenset(KEEPS_ALL | {CONTIGUOUS})  # a local bound once: whatever it is bound to
#: Made by a function of the project: (the parameter, what the result keeps of it).
MadeBy = Callable[[str], "tuple[int, frozenset[str]] | None"]


class Provenance:
    """The provenance half of ``GuardReader``: what it reads of the function is the reader's."""

    if TYPE_CHECKING:
        info: FunctionInfo
        _node: ast.FunctionDef | ast.AsyncFunctionDef
        _vocabulary: HostVocabulary
        _made_by: MadeBy | None
        _resolve: Callable[[ast.expr], str | None]

        @property
        def _scope(self) -> tuple[dict[str, int], set[str], dict[str, ast.expr], Stores, dict[str, int]]: ...
        @property
        def _params(self) -> dict[str, int]: ...
        @property
        def _locals(self) -> set[str]: ...
        @property
        def bound_once(self) -> dict[str, ast.expr]: ...
        @property
        def tensor_params(self) -> frozenset[str]: ...
        @property
        def appended_lists(self) -> dict[str, list[ast.expr]]: ...
        @property
        def filled_lists(self) -> frozenset[str]: ...
        @property
        def views_of(self) -> dict[str, str]: ...
        def subject(self, expr: ast.expr) -> Subject | None: ...
        def literal(self, expr: ast.expr) -> tuple[object] | None: ...
        def _callee(self, func: ast.expr) -> str | None: ...

    def passed(self, expr: ast.expr) -> Subject | None:
        """What a call passes, as a subject a callee's test can be rewritten over. A tensor made
        from one of this function's subjects keeps what the ops that made it keep of it
        (``_made_from``): ``flip(a.transpose(0, 1))`` under ``_can_use_gpu(a)`` passes a GPU
        tensor, ``zeros_like(a)`` a tensor of ``a``'s shape. A list of such tensors made from
        the elements of a list (``[t.unsqueeze(0) for t in tensors]``) is that list."""
        made = self._same_place(expr, 0)
        if isinstance(made, (ast.List, ast.Tuple)) and made.elts:
            # ``[a, a.contiguous()]``: a list of tensors made from one tensor has its device and
            # dtype in every element (``_conditions``: ``("one", a)``)
            elements = {self.subject(self._same_place(e, 1)) if isinstance(self._same_place(e, 1), ast.Name)
                        else None for e in made.elts}
            one = elements.pop() if len(elements) == 1 else None
            if one is None or one[0] != "p" or one[2]:
                return None
            # a list a loop fills at least once is not empty there (``_conditions``: its truth)
            return ("one", one, True) if isinstance(expr, ast.Name) and expr.id in self.filled_lists else ("one", one)
        base, kept = self._made_from(expr, 0)
        if made is not expr and (base is expr or self.subject(base) is None):
            base, kept = made, _VIEW  # ``[t.unsqueeze(0) for t in tensors]``: views of its elements
        subject = self.subject(base)
        identity = self._shape_identity(expr, 0) if "shape" not in kept or subject is None else None
        if identity is not None and (base is expr or subject is None or subject[0] not in ("p", "g")):
            return ("from", identity, frozenset({"shape"}), None)
        if base is expr or kept == KEEPS_ALL or subject is None or subject[0] not in ("p", "g"):
            return subject
        # (a test of the value itself reads the call that made it: ``_detect_modality(x) == "image"``)
        return ("from", subject, kept, self.subject(expr), identity)

    def _shape_identity(self, expr: ast.expr, depth: int) -> Subject | None:
        """``("v", (line, column), ())``: the value this function made whose shape ``expr`` has,
        through ops that keep shapes (``n = norm_(a, dim)``; ``gt(n, 1.0)`` and
        ``mul(reciprocal(n), 2.0)`` have ``n``'s shape), where that value is made once per call
        (not in a loop); None where it is a parameter's (``passed`` says that) or unknown. Two
        operands a caller makes from one such value have one shape (``_conditions.relation``)."""
        if depth > 8:
            return None
        step = self._made_step(expr, depth)
        if step is not None and "shape" in step[1]:
            return self._shape_identity(step[0], depth + 1)
        if isinstance(expr, ast.Name) or not isinstance(expr, ast.Call) or self._in_loop(expr):
            return None  # a parameter, a name bound more than once, a literal: not one value
        return ("v", (expr.lineno, expr.col_offset), ())

    def _in_loop(self, node: ast.expr) -> bool:
        return any(start <= node.lineno <= end for start, end in self._loop_spans)

    @cached_property
    def _loop_spans(self) -> tuple[tuple[int, int], ...]:
        loops = (ast.For, ast.AsyncFor, ast.While, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
        return tuple((n.lineno, n.end_lineno or n.lineno) for n in ast.walk(self._node) if isinstance(n, loops))

    def _made_from(self, expr: ast.expr, depth: int) -> tuple[ast.expr, frozenset[str]]:
        """The tensor ``expr`` is made from, through locals bound once, and what it keeps of it
        (``_conditions``: ``"device"``, ``"dtype"``, ``"shape"``, ``"predicates"`` of the
        project, ``"type"``, ``"value"``); ``(expr, KEEPS_ALL)`` where it is made from nothing
        known. Each step keeps what its op keeps: a copy or a tensor made like it
        (``sem.SAME_SHAPE_OPS``) all but the value; a view (``SAME_PLACE_OPS``) its place and
        class; an element-wise op of it and numbers (``POINTWISE_OPS``, an operator) its shape
        and place, or only its device and shape where the op has a dtype of its own (a mask);
        any other device op on it (the issue's "results of device ops on a") its device, dtype
        and predicates."""
        if depth > 8:
            return expr, KEEPS_ALL
        arms = [expr.body, expr.orelse] if isinstance(expr, ast.IfExp) else \
            self.alternatives.get(expr.id) if isinstance(expr, ast.Name) else None
        if arms:  # ``a.contiguous() if not a.is_contiguous() else a``; ``if ...: t = f(a) else: t = g(a)``
            (one, kept_one), (other, kept_other) = (self._made_from(arm, depth + 1) for arm in arms)
            if isinstance(one, ast.Name) and isinstance(other, ast.Name) and one.id == other.id:
                return one, kept_one & kept_other
            return expr, KEEPS_ALL
        step = self._made_step(expr, depth)
        if step is None:
            return expr, KEEPS_ALL
        base, kept = self._made_from(step[0], depth + 1)
        if step[1] is _ALIAS:  # ``out = _empty_like(a)``: ``out`` is what it is bound to
            return base, kept
        return base, step[1] & kept | step[1] & {CONTIGUOUS}  # (a fresh allocation's, whatever it is made from)

    def made_like(self) -> tuple[int, frozenset[str]] | None:
        """The parameter every ``return`` of this function returns a tensor made from, and what
        that tensor keeps of it (``_made_from``): ``_empty_like(t)`` returning
        ``_from_buffer(buf, tuple(t.shape), strides, t.dtype, t.device)``, a helper returning
        ``t.contiguous()``. A caller's guard on what it passes holds for the result as far as
        that goes (``Summary.made_like``)."""
        found: tuple[int, frozenset[str]] | None = None
        returns = [n for n in ast.walk(self._node) if isinstance(n, ast.Return)]  # (a nested def's too: fewer found)
        for node in returns:
            if node.value is None:
                return None
            base, kept = self._made_from(node.value, 0)
            if base is node.value or not isinstance(base, ast.Name) or base.id not in self._params \
                    or base.id not in self.info.params:
                return None
            index = self._params[base.id]
            if self.subject(base) != ("p", index, ()):  # rebound first (``a, b = b, a``): not the caller's
                return None
            if found is not None and found[0] != index:
                return None
            found = (index, kept if found is None else found[1] & kept)
        # only what is more than the first-operand reading a caller makes of any call
        # (``_device_op_operand``: ``launch(name, *args)`` is not made from ``name``)
        return found if found is not None and found[1] & {"shape", CONTIGUOUS} else None

    @cached_property
    def alternatives(self) -> dict[str, list[ast.expr]]:
        """Locals bound exactly twice, once at the top of each arm of one ``if``/``else``
        (``if floating: ones = add(mul(a, 0.0), 1.0) else: ones = _from_buffer(buf, a.shape, ...)``):
        name -> the two values, one of which it holds after the ``if``."""
        counts = self._scope[4]
        found: dict[str, list[ast.expr]] = {}
        for node in ast.walk(self._node):
            if not isinstance(node, ast.If) or not node.orelse:
                continue
            arms = [{s.targets[0].id: s.value for s in arm if isinstance(s, ast.Assign) and len(s.targets) == 1
                     and isinstance(s.targets[0], ast.Name)} for arm in (node.body, node.orelse)]
            for name in arms[0].keys() & arms[1].keys():
                if counts.get(name) == 2 and name not in self._params:
                    found[name] = [arms[0][name], arms[1][name]]
        return found

    def _made_step(self, expr: ast.expr, depth: int = 0) -> tuple[ast.expr, frozenset[str]] | None:
        """One step of ``_made_from``: (what ``expr`` is made from, what it keeps), or None."""
        if isinstance(expr, ast.Name):
            if expr.id in self.bound_once and expr.id not in self._params and expr.id not in self.appended_lists:
                return self.bound_once[expr.id], _ALIAS
            if expr.id in self.views_of:  # ``t = select(a, 0, i); t = select(t, 0, j)``
                return ast.Name(id=self.views_of[expr.id], ctx=ast.Load()), _VIEW
            return None
        if isinstance(expr, ast.BinOp) and not isinstance(expr.op, ast.MatMult):
            sides = [side for side in (expr.left, expr.right) if self.literal(side) is None and not self._number(side)]
            return (sides[0], _COPY) if len(sides) == 1 else None  # ``a * 2.0``, ``1 - a``
        if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, (ast.USub, ast.UAdd, ast.Invert)):
            return expr.operand, _COPY
        if isinstance(expr, ast.Compare) and len(expr.ops) == 1:  # ``a > 0``: a mask of a's shape
            sides = [side for side in (expr.left, expr.comparators[0]) if self.literal(side) is None and not self._number(side)]
            return (sides[0], _MASK) if len(sides) == 1 else None
        if not isinstance(expr, ast.Call):
            return None
        func = expr.func
        name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
        given = self._given(expr)
        if given is not None:
            return given
        made = self._made_by_project(expr)
        if made is not None:
            return made
        operands = self._operands(expr)
        own_place = any(k.arg in sem.PLACE_ATTRIBUTES or k.arg is None for k in expr.keywords)
        if not operands:
            return None
        if name in sem.SAME_SHAPE_OPS and not own_place:
            return operands[0], _COPY
        if name in sem.SAME_PLACE_OPS:
            return operands[0], _VIEW
        if name in sem.POINTWISE_OPS and len(operands) == 1 and not own_place:
            return operands[0], _MASK if name in sem.DTYPE_CHANGING_OPS else _COPY
        if name in sem.POINTWISE_OPS and not own_place:
            shared = self._one_shape(operands, depth)
            if shared is not None:  # ``div(sin(pi_a), pi_a)``: operands of one shape, broadcast to it
                data = [operand for operand in operands if not self._is_mask(operand)]
                return (data or operands)[0], shared & (_MASK if name in sem.DTYPE_CHANGING_OPS else _DEVICE_OP | {"shape"})
        operand = self._device_op_operand(expr, name, operands)
        return (operand, _DEVICE_OP) if operand is not None else None

    def _same_place(self, expr: ast.expr, depth: int) -> ast.expr:
        if depth > 6:
            return expr
        if isinstance(expr, ast.Name) and expr.id in self.appended_lists:
            # ``elements.append(a.select(0, i))`` in a loop: a list of views of ``a``
            return self._of_one([self._same_place(e, depth + 1) for e in self.appended_lists[expr.id]], expr)
        if isinstance(expr, ast.Name) and expr.id in self.bound_once and expr.id not in self._params:
            bound = self.bound_once[expr.id]
            inner = self._same_place(bound, depth + 1)
            return inner if inner is not bound else expr
        if isinstance(expr, ast.Name) and expr.id in self.views_of:
            # ``t = select(a, 0, i); t = select(t, 0, j)``: every binding a view of ``a`` or of itself
            return ast.Name(id=self.views_of[expr.id], ctx=ast.Load())
        if isinstance(expr, ast.Call):
            func = expr.func
            name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
            if name in sem.SAME_PLACE_OPS:
                if isinstance(func, ast.Attribute) and self._resolve(func) is None:  # a.transpose(0, 1), a.permute(*p)
                    return self._same_place(func.value, depth + 1)
                if expr.args and not isinstance(expr.args[0], ast.Starred):  # empty_like(a), narrow(a, 0, i, 1)
                    return self._same_place(expr.args[0], depth + 1)
            operand = self._device_op_operand(expr, name, self._operands(expr))
            if operand is not None:  # ``_gpu_mul(a, 2.0)``, ``_view(a, i, i)``, ``a.sum(1)``: made on a's device
                inner = self._same_place(operand, depth + 1)
                return inner if isinstance(inner, ast.Name) else expr
        if isinstance(expr, ast.BinOp) and not isinstance(expr.op, (ast.MatMult,)):
            # ``a * 2.0``, ``1 - a``: an element-wise op of a tensor and a number, on its device
            sides = [side for side in (expr.left, expr.right) if self.literal(side) is None and not self._number(side)]
            if len(sides) == 1:
                inner = self._same_place(sides[0], depth + 1)
                return inner if isinstance(inner, ast.Name) else expr
        if isinstance(expr, ast.ListComp) and len(expr.generators) == 1 and not expr.generators[0].ifs:
            generator = expr.generators[0]
            if isinstance(generator.target, ast.Name):
                # ``[t.unsqueeze(d) for t in ts]``, ``[t.contiguous() if ... else t for t in ts]``
                arms = [expr.elt.body, expr.elt.orelse] if isinstance(expr.elt, ast.IfExp) else [expr.elt]
                elements = [self._same_place(arm, depth + 1) for arm in arms]
                if all(isinstance(e, ast.Name) and e.id == generator.target.id for e in elements):
                    return self._same_place(generator.iter, depth + 1)
                if not any(isinstance(n, ast.Name) and n.id == generator.target.id
                           for e in elements for n in ast.walk(e)):
                    return self._of_one(elements, expr)  # ``[a.select(0, i) for i in range(n)]``
        return expr

    def _one_shape(self, operands: list[ast.expr], depth: int) -> frozenset[str] | None:
        """What every operand keeps of one tensor they are all made from keeping its shape
        (an element-wise op of them has that shape), or None."""
        made = [self._made_from(operand, depth + 1) for operand in operands]
        bases = {base.id if isinstance(base, ast.Name) else None for base, _ in made}
        if len(bases) != 1 or None in bases or any(base is operand for (base, _), operand in zip(made, operands)
                                                     if not isinstance(operand, ast.Name)):
            return None
        kept = frozenset.intersection(*(k for _, k in made))
        if "shape" not in kept:
            return None
        # its dtype (and the predicates of it) is the data operands', not a mask's (``where(m, a, 0.0)``)
        data = [k for (_, k), operand in zip(made, operands) if not self._is_mask(operand)]
        if data:
            kept = kept | frozenset.intersection(*data) & frozenset({"dtype", "predicates"})
        return kept

    def _given(self, call: ast.Call) -> tuple[ast.expr, frozenset[str]] | None:
        """A tensor allocated given one tensor's device (and its dtype, its shape) is made like
        it: ``_from_buffer(buf, tuple(t.shape), strides, t.dtype, t.device)``, or ``shape``
        bound to ``tuple(t.shape)`` first. It keeps what it is given (with its device and dtype,
        the project's predicates of them), and is contiguous unless given ``t``'s strides."""
        arguments = [*call.args, *(k.value for k in call.keywords)]
        owners: set[str] = set()
        node: ast.Name | None = None
        kept: set[str] = set()
        strided = False
        for argument in arguments:
            if isinstance(argument, ast.Name) and argument.id in self.bound_once and argument.id not in self._params:
                argument = self.bound_once[argument.id]  # ``shape = tuple(t.shape)``
            if isinstance(argument, ast.Call) and isinstance(argument.func, ast.Name) \
                    and argument.func.id in ("tuple", "list") and len(argument.args) == 1:
                argument = argument.args[0]
            owner = metadata_of(argument)
            if owner is None:
                continue
            attribute = argument.func.attr if isinstance(argument, ast.Call) else argument.attr  # type: ignore[attr-defined]
            if not isinstance(owner, ast.Name):
                return None
            owners.add(owner.id)
            node = owner
            strided = strided or attribute in ("stride", "stride()")
            if attribute in _GIVEN:
                kept.add(_GIVEN[attribute])
        if len(owners) != 1 or node is None or "device" not in kept:
            return None
        if "dtype" in kept:
            kept.add("predicates")
        if not strided:
            kept.add(CONTIGUOUS)
        elif "shape" in kept:
            kept.add("layout")  # its shape and strides: contiguous where that tensor is
        return node, frozenset(kept)

    def _made_by_project(self, call: ast.Call) -> tuple[ast.expr, frozenset[str]] | None:
        """A project function's result made from one of its parameters (``Summary.made_like``):
        ``_empty_like(a)`` is made from ``a``."""
        if self._made_by is None or not isinstance(call.func, (ast.Name, ast.Attribute)):
            return None
        dotted = self._callee(call.func)
        made = self._made_by(dotted) if dotted is not None and not dotted.startswith("builtins.") else None
        if made is None:
            return None
        index, kept = made
        if index < len(call.args) and not any(isinstance(a, ast.Starred) for a in call.args[:index + 1]) \
                and self.literal(call.args[index]) is None:
            return call.args[index], kept
        return None  # (passed by keyword or through ``*args``: not read)

    def _operands(self, call: ast.Call) -> list[ast.expr]:
        """What an op's result can be made from: the receiver of a method (``a.contiguous()``)
        and the arguments that may be tensors, not a literal, a tensor's metadata or a number
        (``_number``: ``add(median, x)`` with ``median=0.0`` is made on ``x``'s device)."""
        func = call.func
        method = isinstance(func, ast.Attribute) and self._resolve(func) is None
        return [*([func.value] if method and isinstance(func, ast.Attribute) else []),
                *(a for a in call.args if not isinstance(a, ast.Starred) and self.literal(a) is None
                  and metadata_of(a) is None and not self._number(a))]

    def _number(self, expr: ast.expr) -> bool:
        """A Python number as far as the function shows: a parameter whose default is one and
        which the body never uses as a tensor (``median=0.0``; one a caller may pass a tensor
        for is tested, ``tensor_params``), or a host library's constant (``math.pi``)."""
        if isinstance(expr, ast.Name) and expr.id in self._params and expr.id not in self.tensor_params \
                and expr.id not in self._type_tested:
            default = self._defaults.get(expr.id)
            return default is not None and isinstance(default[0], (int, float)) and not isinstance(default[0], bool)
        if isinstance(expr, (ast.Name, ast.Attribute)) and not (isinstance(expr, ast.Name) and expr.id in self._params):
            dotted = self._resolve(expr)
            return dotted is not None and dotted.partition(".")[0] in ("math", "cmath")
        if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and expr.func.id in ("float", "int", "complex") \
                and expr.func.id not in self._locals:
            return True  # ``float(maxnorm)``: a Python number, whatever it was given
        return False

    @cached_property
    def _type_tested(self) -> frozenset[str]:
        """Parameters whose type the body tests (``isinstance(p, Tensor)``, ``hasattr(p, "numpy")``):
        a number on one path, perhaps a tensor on another."""
        return frozenset(sub.args[0].id for sub in ast.walk(self._node)
                         if isinstance(sub, ast.Call) and isinstance(sub.func, ast.Name)
                         and sub.func.id in ("isinstance", "hasattr", "type") and sub.args
                         and isinstance(sub.args[0], ast.Name))

    @cached_property
    def _defaults(self) -> dict[str, tuple[object]]:
        """Each parameter's literal default, by name."""
        arguments = self._node.args
        positional = [*arguments.posonlyargs, *arguments.args]
        pairs = [*zip(positional[len(positional) - len(arguments.defaults):], arguments.defaults),
                 *((a, d) for a, d in zip(arguments.kwonlyargs, arguments.kw_defaults) if d is not None)]
        return {a.arg: literal for a, d in pairs if (literal := self.literal(d)) is not None}

    def _device_op_operand(self, expr: ast.Call, name: str, operands: list[ast.expr]) -> ast.expr | None:
        """The tensor a device op works on, where its result is made on that tensor's device
        with its dtype (the issue's "results of device ops on a"): the receiver of a method, or
        the first argument of a function of the project or of a library we cannot see. Not an
        op with a dtype of its own (``sem.DTYPE_CHANGING_OPS``, a conversion), a transfer, a
        readback, an upload or a host library's function (``_vocabulary``): their result is
        elsewhere or another kind."""
        vocabulary = self._vocabulary
        if not name or name in sem.DTYPE_CHANGING_OPS or name in sem.DTYPE_CONVERSIONS or name in sem.FIXED_TRANSFERS \
                or name in sem.TARGET_TRANSFERS or name in sem.READBACKS or name in sem.HOST_SYNCS \
                or name in sem.METADATA or name in _BUILTINS or vocabulary.readback_name.search(name) \
                or vocabulary.upload_name.search(name) or vocabulary.d2h_name.search(name) \
                or vocabulary.conversion_name.search(name) or vocabulary.host_allocation.search(name):
            return None
        func = expr.func
        dotted = self._resolve(func) if isinstance(func, (ast.Name, ast.Attribute)) else None
        if dotted is not None and (dotted.partition(".")[0] in vocabulary.host_modules or dotted.startswith("builtins.")):
            return None
        if dotted is None and not isinstance(func, ast.Attribute):
            return None  # a local callable: not known to be an op
        # the receiver of a method (``a.sum(1)``), or the first tensor operand of a function
        # (``where(mask, a, 0.0)``: ``mask`` is a mask op's, whose dtype is its own; ``a`` then)
        for operand in operands:
            if not self._is_mask(operand):
                return operand
        return None

    def _is_mask(self, expr: ast.expr) -> bool:
        """An operand made by an op with a dtype of its own (``isnan(a)``, ``a > 0``), through
        locals bound once (``mask = lt(a, p)``): not what a result takes its dtype from."""
        for _ in range(4):
            if not (isinstance(expr, ast.Name) and expr.id in self.bound_once and expr.id not in self._params):
                break
            expr = self.bound_once[expr.id]
        return isinstance(expr, ast.Compare) or isinstance(expr, ast.Call) and self._op_name(expr) in sem.DTYPE_CHANGING_OPS

    @staticmethod
    def _op_name(call: ast.Call) -> str:
        func = call.func
        return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""

    @staticmethod
    def _of_one(elements: list[ast.expr], otherwise: ast.expr) -> ast.expr:
        """A list whose every element is made from one name (``[a]``, as ``passed`` reads a list
        written out), or ``otherwise``."""
        names = {e.id for e in elements if isinstance(e, ast.Name)}
        if len(names) == 1 and all(isinstance(e, ast.Name) for e in elements):
            return ast.List(elts=[ast.Name(id=names.pop(), ctx=ast.Load())], ctx=ast.Load())
        return otherwise

