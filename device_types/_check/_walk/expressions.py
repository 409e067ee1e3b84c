"""Expressions: the host data each one holds (``_values``); a call goes to ``calls``."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Any

from ... import _semantics as sem
from .._conditions import ALWAYS, NEVER, Condition, conjoin, narrowed
from .. import _codes as codes
from .._values import COMPUTED, EMPTY, LoopFilled, Value, collected_data, decided_by, is_host, items_of, params, pending_of, storage_step
from .recorder import COMPREHENSION
from .state import Part
from .syntax import counts


if TYPE_CHECKING:
    from .calls import Calls
    from .recorder import Recorder
    from .statements import Statements
    from .writes import Writes

#: expression type -> its ``Expressions.expr_*`` method (False: none; the children are walked)
_EXPR_METHODS: dict[type, Any] = {}


class Expressions(Part):
    #: What this part uses of the others (``Walk`` gives them).
    calls: Calls
    recorder: Recorder
    statements: Statements
    writes: Writes
    #: The path a comprehension's elements last ran under (its iterables not empty).
    element_path: Condition = ALWAYS

    def expr(self, node: ast.expr | None, env: dict[str, Value]) -> Value:
        if node is None:
            return EMPTY
        kind = node.__class__
        if kind is ast.Name:  # the commonest node: no dispatch
            return env.get(node.id, EMPTY)  # type: ignore[attr-defined]
        if kind is ast.Constant:
            return EMPTY
        method = _EXPR_METHODS.get(kind)
        if method is None:
            method = _EXPR_METHODS[kind] = getattr(Expressions, f"expr_{kind.__name__}", False)
        if method:
            return method(self, node, env)  # type: ignore[no-any-return,operator]
        value: Value = EMPTY
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.expr):
                value = value | self.expr(child, env)
        return value

    def expr_Name(self, node: ast.Name, env: dict[str, Value]) -> Value:
        return env.get(node.id, EMPTY)

    def expr_Constant(self, node: ast.Constant, env: dict[str, Value]) -> Value:
        return EMPTY

    def expr_JoinedStr(self, node: ast.JoinedStr, env: dict[str, Value]) -> Value:
        for child in ast.walk(node):
            if isinstance(child, ast.Call):
                self.expr(child, env)
        return EMPTY

    def expr_Lambda(self, node: ast.Lambda, env: dict[str, Value]) -> Value:
        return EMPTY

    def expr_IfExp(self, node: ast.IfExp, env: dict[str, Value]) -> Value:
        """``a if test else b``: each side is evaluated under its side of the test, as the arms
        of an ``if`` are (``np.roots(c.cpu().numpy()) if exact else c.double()``)."""
        self.expr(node.test, env)
        when_true, when_false = self.state.test(node.test)
        outer = self.state.path
        try:
            value: Value = EMPTY
            narrowed = self.state.classes_tested(node.test)
            for side, when in ((node.body, when_true), (node.orelse, when_false)):
                self.state.path = conjoin(outer, when)
                known = {name: self.state.instances.get(name) for name in narrowed} if side is node.body else {}
                self.state.instances.update(narrowed if side is node.body else {})
                try:
                    taken = self.expr(side, env)
                finally:
                    for name, before in known.items():
                        if before is None:
                            self.state.instances.pop(name, None)
                        else:
                            self.state.instances[name] = before
                if self.state.path != NEVER or outer == NEVER:  # a side that cannot run gives nothing
                    value = value | taken
            return value
        finally:
            self.state.path = outer

    def expr_Attribute(self, node: ast.Attribute, env: dict[str, Value]) -> Value:
        value = self.expr(node.value, env)
        if node.attr in sem.METADATA:
            return EMPTY
        if node.attr in self.vocab.storage_names:  # t._storage, then its host buffer .data
            step = storage_step(node.attr, value, self.vocab)
            if step is not None:
                return self.recorder.readback(node, step[0], None, codes.READBACK) if step[1] else step[0]
        if node.attr in self.vocab.readback_attributes and params(value) and not is_host(value):
            return self.recorder.readback(node, value, f'".{node.attr}"', codes.READBACK, copy=True)
        return value

    def expr_BinOp(self, node: ast.BinOp, env: dict[str, Value]) -> Value:
        value = self.expr(node.left, env) | self.expr(node.right, env)
        return value | frozenset({COMPUTED}) if is_host(value) else value

    def expr_Compare(self, node: ast.Compare, env: dict[str, Value]) -> Value:
        value = self.expr(node.left, env)
        for comparator in node.comparators:
            value = value | self.expr(comparator, env)
        if any(isinstance(op, (ast.Is, ast.IsNot, ast.In, ast.NotIn)) for op in node.ops):
            return EMPTY
        return value

    def expr_Subscript(self, node: ast.Subscript, env: dict[str, Value]) -> Value:
        value = self.expr(node.value, env)
        index = self.expr(node.slice, env)
        picked = value if isinstance(node.slice, ast.Slice) else items_of(value)
        if not is_host(index):
            # an index on the device (an index map uploaded for this gather) is an operand: the
            # elements picked are the indexed tensor's, not the data the index was built from
            return picked | (index - pending_of(index))
        if self.device_tensor(node.value, value):
            self.writes.device_index(index)
            return picked
        # an index computed on the host picks host data too
        return picked | index

    def collect(self, element: ast.expr, env: dict[str, Value]) -> None:
        """``element`` is what a loop collects (appended, a comprehension's element): an element
        of a device tensor picked at a host index there is the loop assembling the result."""
        if not self.state.loops:
            return
        if isinstance(element, ast.Starred):
            element = element.value
        if isinstance(element, ast.Subscript) and isinstance(element.value, ast.Name) \
                and self.device_tensor(element.value, env.get(element.value.id, EMPTY)):
            self.writes.picked(self.writes.addresses(element.slice, env))

    def device_tensor(self, node: ast.expr, value: Value) -> bool:
        """``node`` names a device tensor as far as the walk knows: a parameter of the op, still
        holding what was passed (not read back, not the method's ``self``, whose attributes may
        be anything), or a name bound to a call that names a device."""
        if is_host(value) or not isinstance(node, ast.Name):
            return False
        if node.id in self.state.on_device:
            return True
        if node.id not in self.info.params or node.id in ("self", "cls"):
            return False  # a local made from a parameter (``[0] * n``) is not that tensor
        return self.info.params.index(node.id) in params(value)

    def expr_NamedExpr(self, node: ast.NamedExpr, env: dict[str, Value]) -> Value:
        value = self.expr(node.value, env)
        self.statements.assign(node.target, value, env)
        return value

    def expr_ListComp(self, node: ast.ListComp, env: dict[str, Value]) -> Value:
        value = self.comprehension(node, env, [node.elt])
        if self.collects(node):  # [k for k in keys if ...], [op(t) for t in ts]: no data computed
            return value
        # built element by element: scalars read back that it computed with are array data
        # (``collected_data``); ones only compared or converted stay what they were
        filled = self.recorder.filled(LoopFilled(COMPREHENSION, node.lineno, node.col_offset), self.element_path)
        return collected_data(value) | frozenset({filled})

    def collects(self, node: ast.ListComp | ast.GeneratorExp) -> bool:
        """Whether a comprehension's element is an item it iterates (or a project function's
        result), not something computed from one."""
        items = {g.target.id for g in node.generators if isinstance(g.target, ast.Name) and not counts(g.iter, self.vocab)}
        return self.collected(node.elt, items)

    def expr_GeneratorExp(self, node: ast.GeneratorExp, env: dict[str, Value]) -> Value:
        value = self.comprehension(node, env, [node.elt])
        if self.collects(node):
            return value
        # computing with the elements read back (``sum(x * y for x, y in zip(a.tolist(), ...))``):
        # what it yields is data the host computed, as a list comprehension's elements are
        return collected_data(value)

    expr_SetComp = expr_GeneratorExp

    def expr_DictComp(self, node: ast.DictComp, env: dict[str, Value]) -> Value:
        return self.comprehension(node, env, [node.key, node.value])

    def expr_Call(self, node: ast.Call, env: dict[str, Value]) -> Value:
        outer, self.state.pending = self.state.pending, EMPTY
        try:
            value = self.calls.call(node, env)
            pending = self.state.pending
            return value | pending if pending else value
        finally:
            self.state.pending = outer

    def comprehension(self, node: ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp,
                       env: dict[str, Value], elements: list[ast.expr]) -> Value:
        inner = dict(env)
        filtered: Value = EMPTY
        outer = self.state.path
        for generator in node.generators:
            self.statements.assign(generator.target, items_of(self.expr(generator.iter, inner)), inner)
            # what runs per item runs only where there is one (``_to_numpy(t) for t in tensors``)
            self.state.path = narrowed(self.state.path, self.state.test(generator.iter)[0])
            for condition in generator.ifs:
                filtered = filtered | decided_by(self.expr(condition, inner))
        value: Value = filtered  # what a filter of data read back keeps is computed from it
        self.state.loops += 1  # its element runs once per item, as a loop's body does
        try:
            for element in elements:
                value = value | self.expr(element, inner)
                self.collect(element, inner)
            self.element_path = self.state.path
        finally:
            self.state.loops -= 1
            self.state.path = outer
        return value

    def collected(self, element: ast.expr, items: set[str] = frozenset()) -> bool:  # type: ignore[assignment]
        """An element that a loop collects rather than computes: an item of a container being
        iterated, or what a project function returns (a device tensor, typically)."""
        if isinstance(element, ast.Starred):
            element = element.value
        if isinstance(element, ast.Name):
            return element.id in items or element.id in self.state.items
        if isinstance(element, ast.Constant):  # None, Ellipsis, a name: keys, not numbers
            return not isinstance(element.value, (int, float, complex)) or isinstance(element.value, bool)
        if isinstance(element, (ast.Tuple, ast.List)):
            return all(self.collected(e, items) for e in element.elts)
        if isinstance(element, ast.Call) and isinstance(element.func, ast.Name) and element.func.id in self.vocab.key_builtins:
            return True
        if isinstance(element, ast.Call) and isinstance(element.func, ast.Name) and element.func.id in \
                self.vocab.scalar_builtins and len(element.args) == 1 and not element.keywords:
            return self.collected(element.args[0], items)  # ``float(v) for v in data``: the items, converted
        if isinstance(element, ast.Call) and isinstance(element.func, (ast.Name, ast.Attribute)):
            dotted = self.resolver.resolve(self.info, self.state.scope, element.func)
            return dotted is not None and self.resolver.function(dotted) is not None
        return False
