"""Statements: blocks and the conditions their tests and early exits put on what follows,
branches joined, loops walked again while an iteration carries new host data to the next,
assignments and loop targets."""

from __future__ import annotations

import ast
from collections.abc import Iterable
from typing import TYPE_CHECKING, Callable

from ... import _semantics as sem
from .._conditions import NEVER, Condition, conjoin, disjoin, narrowed
from .._project import import_bindings
from .._values import EMPTY, GUARDED_CPU, HostOnly, Value, accumulated, decided_by, host_operands, items_of, pending_of, roots
from .._carried import loop_reads
from .state import Part
from .syntax import base_name, counts, device_guard, exits, host_guard, metadata_of, targets_device, terminates


if TYPE_CHECKING:
    from .expressions import Expressions
    from .recorder import Recorder
    from .writes import Writes

#: The most times a loop's body is walked: values only grow, and a third pass is rarely needed.
_LOOP_PASSES = 3


class Statements(Part):
    #: What this part uses of the others (``Walk`` gives them).
    expr: Callable[[ast.expr | None, dict[str, Value]], Value]
    expressions: Expressions
    recorder: Recorder
    writes: Writes

    def block(self, body: Iterable[ast.stmt], env: dict[str, Value], top: bool = False) -> None:
        """The statements of one block; a test that ends an arm (``if not ok: raise``,
        ``if x.device.type == "npu": return x``) constrains the rest of the block. ``top``: the
        function's own body, whose validations (``if bad: raise`` with no else, ``assert``)
        every run that goes on satisfies: the function's preconditions (``Facts.assumed``)."""
        outer = self.state.path
        for stmt in body:
            self.stmt(stmt, env)
            if isinstance(stmt, (ast.Return, ast.Raise, ast.Continue, ast.Break)):
                break  # what follows in the block never runs
            if isinstance(stmt, ast.If):
                continues = self.continuation(stmt)
                if continues is not None:
                    if top and not stmt.orelse and stmt.body and isinstance(stmt.body[-1], ast.Raise) \
                            and len(continues) == 1:
                        self.state.assumed |= next(iter(continues))
                    self.state.path = conjoin(self.state.path, continues)
                    name = device_guard(stmt.test) if terminates(stmt.body) else None
                    if name is not None and name in env:  # the rest sees a value not on the device
                        env[name] = env[name] | frozenset({HostOnly("not on the device")})
            elif isinstance(stmt, ast.Assert):
                holds = self.state.test(stmt.test)[0]
                if top and len(holds) == 1:
                    self.state.assumed |= next(iter(holds))
                self.state.path = conjoin(self.state.path, holds)
        self.state.path = outer

    def continuation(self, stmt: ast.If) -> Condition | None:
        """When the statement after ``stmt`` runs, if an arm of it (or of its ``elif``s) ends
        in a return or raise: ``if a: return ... elif b: return ...`` continues when neither.
        None: every arm goes on (or none does: dead code keeps the path it had)."""
        exits_body = terminates(stmt.body)
        chained = stmt.orelse[0] if len(stmt.orelse) == 1 and isinstance(stmt.orelse[0], ast.If) else None
        inner = self.continuation(chained) if chained is not None else None
        exits_else = chained is None and terminates(stmt.orelse)
        if not exits_body and not exits_else and inner is None:
            return None
        when_true, when_false = self.state.test(stmt.test)
        after_body = NEVER if exits_body else when_true
        after_else = NEVER if exits_else else (conjoin(when_false, inner) if inner is not None else when_false)
        continues = disjoin(after_body, after_else)
        if not continues and exits_body and (exits_else or inner is not None and not inner):
            return None  # every arm ends: what follows is dead as written, and keeps its path
        return continues  # NEVER where a test is decided (another accelerator's branch): unreached

    def stmt(self, node: ast.stmt, env: dict[str, Value]) -> None:
        if isinstance(node, ast.Assign):
            value = self.expr(node.value, env)
            for target in node.targets:
                self.assign(target, value, env, source=node.value)
                if isinstance(target, ast.Name):
                    self.bound(target.id, node.value, env)
        elif isinstance(node, ast.AnnAssign):
            if node.value is not None:
                self.assign(node.target, self.expr(node.value, env), env)
                if isinstance(node.target, ast.Name):
                    self.bound(node.target.id, node.value, env)
        elif isinstance(node, ast.AugAssign):
            value = self.expr(node.value, env)
            if self.state.loops and isinstance(node.target, ast.Name):
                # ``total += a[i].item()`` in a loop: scalars read back, reduced on the host, are
                # a result the host computes, no kernel operand staged
                value = accumulated(value)
            current = self.expr(node.target, env)
            if isinstance(node.target, ast.Subscript):
                self.writes.write_element(node.target, self.expr(node.target.value, env), value, env,
                                   node.value)
            else:
                self.writes.write_into(current, base_name(node.target), value)
            self.assign(node.target, current | value, env, augment=True)
        elif isinstance(node, ast.Return):
            if node.value is None or isinstance(node.value, ast.Constant):
                self.facts.returns_literal = True
            else:
                self.facts.returns_value = True
            if node.value is not None:
                self.recorder.returned(self.expr(node.value, env))
        elif isinstance(node, ast.Expr):
            value = self.expr(node.value, env)
            if isinstance(node.value, ast.Call) and pending_of(value):
                self.copied_into(node.value, pending_of(value), env)
        elif isinstance(node, ast.If):
            decides = self.expr(node.test, env)
            when_true, when_false = self.state.test(node.test)
            outer = self.state.control
            if self.state.loops:
                self.state.control = outer | decided_by(decides)
            try:
                guard = host_guard(node.test, self.state.constant) or self.predicate_guard(node.test)
                self.branches([node.body, node.orelse], env, guard,
                              [conjoin(self.state.path, when_true), conjoin(self.state.path, when_false)],
                              self.state.classes_tested(node.test))
            finally:
                self.state.control = outer
        elif isinstance(node, ast.While):
            self.expr(node.test, env)
            self.state.loops += 1
            self.loop(node, env)
            self.state.loops -= 1
        elif isinstance(node, (ast.For, ast.AsyncFor)):
            columns = self.zipped(node.iter, node.target, env)
            items = frozenset().union(*columns) if columns is not None else self.expr(node.iter, env)
            self.bind_items(node.target, node.iter, items, env, columns=columns)
            if isinstance(node.target, ast.Name) and not counts(node.iter, self.vocab):
                self.state.items.add(node.target.id)
            self.state.loops += 1
            self.loop(node, env, items_of(items), columns)
            self.state.loops -= 1
        elif isinstance(node, (ast.With, ast.AsyncWith)):
            for item in node.items:
                value = self.expr(item.context_expr, env)
                if item.optional_vars is not None:
                    self.assign(item.optional_vars, value, env)
            self.block(node.body, env)
        elif isinstance(node, ast.Try) or node.__class__.__name__ == "TryStar":
            self.block(node.body, env)  # type: ignore[attr-defined]
            arms = [h.body for h in node.handlers] + [node.orelse]  # type: ignore[attr-defined]
            self.branches(arms, env)
            self.block(node.finalbody, env)  # type: ignore[attr-defined]
        elif isinstance(node, (ast.Raise, ast.Assert)):
            self.state.raising = True  # an error made of data read back validates with it
            try:
                for child in ast.iter_child_nodes(node):
                    if isinstance(child, ast.expr):
                        self.expr(child, env)
            finally:
                self.state.raising = False
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            self.local_import(node)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            self.state.scope[node.name] = f"{self.info.module}.{self.info.qualname}.<locals>.{node.name}"
            env.pop(node.name, None)
        elif isinstance(node, ast.Match):
            self.expr(node.subject, env)
            self.branches([case.body for case in node.cases] + [[]], env)
        elif isinstance(node, ast.Delete):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    env.pop(target.id, None)

    def loop(self, node: ast.For | ast.AsyncFor | ast.While, env: dict[str, Value], element: Value = EMPTY,
             columns: list[Value] | None = None) -> None:
        """A loop's body, walked again while what an iteration leaves grows a value that the
        next iteration reads before it assigns it (``acc = x.numpy()`` at the end of the
        body reaches ``torch.tensor(acc)`` at its start), at most ``_LOOP_PASSES`` times;
        then its ``else``. After it, each name holds what it held before the loop or after
        any iteration. ``element``: what a ``for`` binds its target to, at each iteration."""
        head = env
        outer = self.state.path
        for walked in range(_LOOP_PASSES):
            body_env = dict(head)
            if walked and not isinstance(node, ast.While):  # (the first time, the caller bound it)
                self.bind_items(node.target, node.iter, element, body_env, elements=True, columns=columns)
            self.state.path = self.iterating(node, outer)
            try:
                self.block(node.body, body_env)
            finally:
                self.state.path = outer
            if exits(node.body):  # every iteration returns or raises: nothing carried
                break
            grown = [name for name, value in body_env.items()
                     if value is not head.get(name) and not value <= head.get(name, EMPTY)]
            if not grown:
                break
            carried = self.carried(node, grown, head, body_env)
            head = dict(head)
            for name in grown:
                head[name] = head.get(name, EMPTY) | body_env[name]
            if not carried:
                break
            if isinstance(node, ast.While):
                self.expr(node.test, head)
        if head is not env:
            env.update(head)
        self.branches([node.orelse], env)

    def iterating(self, node: ast.For | ast.AsyncFor | ast.While, outer: Condition) -> Condition:
        """The condition a ``for`` body runs under: the path's, on ways in where the iterable is
        not empty (``for t in tensors`` runs nothing for an empty list, so a readback in it is
        not on the path of ``if not tensors or ...:``; ``_conditions.narrowed``)."""
        if isinstance(node, ast.While):
            return outer
        return narrowed(outer, self.state.test(node.iter)[0])

    def carried(self, node: ast.For | ast.AsyncFor | ast.While, grown: list[str], head: dict[str, Value],
                 body_env: dict[str, Value]) -> bool:
        """Whether the next iteration sees a value of ``grown`` that this one did not: one it
        reads before assigning it, or a view of a tensor newly held by a name that it only
        writes into (``arr[i] = v``: what ``arr`` merely holds is not what it views)."""
        known = self.state.loop_reads.get(id(node))
        if known is None:
            known = self.state.loop_reads[id(node)] = loop_reads(node, self.vocab.container_add_methods)
        reads, bases = known
        for name in grown:
            if name in reads:
                return True
            if name in bases:
                before, held = head.get(name, EMPTY), self.state.contained.get(name, EMPTY)
                if any(r.kind == "read" and not r.scalar and r not in held and r not in before
                       for r in roots(body_env[name])):
                    return True
        return False

    def branches(self, arms: list[list[ast.stmt]], env: dict[str, Value],
                 guard: tuple[str, int] | None = None, paths: list[Condition] | None = None,
                 classes: dict[str, str] | None = None) -> None:
        """Walk each arm from the same state and join. ``guard`` = (name, arm index): in that
        arm the tensor ``name`` is known to be on the CPU (``if x.device.type == "cpu":``).
        ``paths``: the condition each arm runs under (default: the current one); ``classes``:
        what the first arm holds names to be instances of (``isinstance``)."""
        results = []
        outer = self.state.path
        for index, arm in enumerate(arms):
            branch_env = dict(env)
            if guard is not None and guard[1] == index:
                branch_env[guard[0]] = branch_env.get(guard[0], EMPTY) | frozenset({GUARDED_CPU})
            self.state.path = paths[index] if paths is not None else outer
            narrowing = classes if classes and index == 0 else {}
            known = {name: self.state.instances.get(name) for name in narrowing}
            self.state.instances.update(narrowing)  # ``if isinstance(x, C):``: x's methods are C's in the arm
            self.block(arm, branch_env)
            for name, before in known.items():
                if before is None:
                    self.state.instances.pop(name, None)
                else:
                    self.state.instances[name] = before
            self.state.path = outer
            unreached = paths is not None and paths[index] == NEVER and outer != NEVER
            # an arm that raises or returns does not reach the join, nor one that cannot run
            # here (another accelerator's branch): its values are no one's
            if not terminates(arm) and not unreached:
                results.append(branch_env)
        for branch_env in results:
            for name, value in branch_env.items():
                current = env.get(name, EMPTY)
                if value is not current:  # most names an arm did not touch: the same object
                    env[name] = current | value if current else value

    def copied_into(self, call: ast.Call, uploaded: Value, env: dict[str, Value]) -> None:
        """A copy to the device whose result is dropped (``_copy_cpu_to_npu(out.data_ptr,
        host.ctypes.data, n)``): what it uploads is now in the tensor whose pointer it was given."""
        for arg in call.args:
            tensor = metadata_of(arg)
            if isinstance(tensor, ast.Name) and tensor.id in env:
                env[tensor.id] = env[tensor.id] | uploaded

    def predicate_guard(self, test: ast.expr) -> tuple[str, int] | None:
        """``if _is_cpu(x):`` (arm 0) or ``if not _is_cpu(x):`` (arm 1), where the project's
        ``_is_cpu`` returns whether its parameter is on the CPU (``Summary.cpu_test``)."""
        negated = isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not)
        call = test.operand if negated else test  # type: ignore[attr-defined]
        if not (isinstance(call, ast.Call) and isinstance(call.func, (ast.Name, ast.Attribute))):
            return None
        dotted = self.resolver.resolve(self.info, self.state.scope, call.func)
        callee = self.resolver.function(dotted) if dotted is not None else None
        if callee is None:
            return None
        index = self.resolver.summary(callee).cpu_test
        arg = call.args[index] if index is not None and index < len(call.args) else None
        name = base_name(arg) if isinstance(arg, ast.Name) else None
        return (name, 1 if negated else 0) if name is not None else None

    def bound(self, name: str, source: ast.expr, env: dict[str, Value]) -> None:
        """What the walk keeps of ``name = source`` besides its value: a tensor made on a
        device (naming one, or made like a device tensor), a lambda (called, its body runs),
        an instance of a project class."""
        if isinstance(source, ast.BoolOp):  # ``cache = cache or HostCache()``: what the last part makes
            source = source.values[-1]
        if isinstance(source, ast.Lambda):
            self.state.lambdas[name] = source
        elif isinstance(source, ast.Call):
            if targets_device(source, self.state.constant) or self.made_like_device(source, env):
                self.state.on_device.add(name)
            if isinstance(source.func, (ast.Name, ast.Attribute)):
                made = self.resolver.resolve(self.info, self.state.scope, source.func)
                if made is not None:
                    self.state.instances[name] = made

    def made_like_device(self, source: ast.Call, env: dict[str, Value]) -> bool:
        """``a.new_empty(n)``, ``torch.empty_like(a)``, ``a.clone()`` of a device tensor ``a``:
        made on its device (``sem.SAME_PLACE_OPS``)."""
        func = source.func
        last = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
        if last not in sem.SAME_PLACE_OPS:
            return False
        dotted = self.resolver.resolve(self.info, self.state.scope, func)
        if dotted is not None:  # ``torch.empty_like(a)``; ``np.zeros_like(arr)`` is host memory
            if dotted.partition(".")[0] in self.vocab.host_modules:
                return False
            model = source.args[0] if source.args else None
        else:  # ``a.new_empty(n)``
            model = func.value if isinstance(func, ast.Attribute) else None
        return isinstance(model, ast.Name) and self.expressions.device_tensor(model, env.get(model.id, EMPTY))

    def assign(self, target: ast.expr, value: Value, env: dict[str, Value], augment: bool = False,
               source: ast.expr | None = None) -> None:
        """``target = value``; ``source``: the expression assigned, when it is one (``a[i] = b[j]``)."""
        if isinstance(target, ast.Name):
            if augment:
                self.writes.contain(target.id, env.get(target.id, EMPTY), value)
            else:
                self.state.contained.pop(target.id, None)
                self.state.on_device.discard(target.id)
                self.state.lambdas.pop(target.id, None)
                self.state.instances.pop(target.id, None)
            env[target.id] = value
        elif isinstance(target, (ast.Tuple, ast.List)):
            for element in target.elts:
                self.assign(element.value if isinstance(element, ast.Starred) else element, value, env)
        elif isinstance(target, ast.Subscript):
            container = self.expr(target.value, env)
            index = self.expr(target.slice, env)
            base = base_name(target.value)
            if base is not None and not self.expressions.device_tensor(target.value, container) \
                    and base not in self.state.on_device:
                # host data written into a host container at an index read back (``counts[v] += 1``,
                # ``seen[v] = True``), or under a test of data read back in a loop: its content is
                # computed from that data (a device tensor put in a list's slot is not)
                if augment or isinstance(source, ast.Constant) or host_operands(value):
                    value = value | decided_by(index)
                value = value | self.state.control
            if not augment:
                self.writes.write_element(target, container, value, env, source, copies=True, index=index)
            if base is not None and value:
                self.writes.contain(base, env.get(base, EMPTY), value)
                env[base] = env.get(base, EMPTY) | value
        elif isinstance(target, ast.Attribute):
            self.expr(target.value, env)
        elif isinstance(target, ast.Starred):
            self.assign(target.value, value, env)

    def zipped(self, iterable: ast.expr, target: ast.expr, env: dict[str, Value]) -> list[Value] | None:
        """``for a, b in zip(xs, ys)``: what each of the zipped iterables holds, one per target
        (each target takes the items of its own iterable, not of all of them); None otherwise."""
        if not (isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Name) and iterable.func.id == "zip"
                and "zip" not in env and not iterable.keywords and isinstance(target, ast.Tuple)
                and len(target.elts) == len(iterable.args) and iterable.args
                and not any(isinstance(a, ast.Starred) for a in (*iterable.args, *target.elts))):
            return None
        return [self.expr(arg, env) for arg in iterable.args]

    def bind_items(self, target: ast.expr, iterable: ast.expr, items: Value, env: dict[str, Value],
                   elements: bool = False, columns: list[Value] | None = None) -> None:
        """A loop target bound to each item of ``items`` (``elements``: already items). The index
        that ``enumerate`` pairs each item with is a counter, not the item's data; each target of
        ``zip`` takes its own iterable's items (``columns``)."""
        if columns is not None and isinstance(target, ast.Tuple):
            for element, column in zip(target.elts, columns):
                self.assign(element, items_of(column), env)
            return
        item = items if elements else items_of(items)
        if isinstance(target, ast.Tuple) and len(target.elts) == 2 and isinstance(iterable, ast.Call) \
                and isinstance(iterable.func, ast.Name) and iterable.func.id == "enumerate":
            self.assign(target.elts[0], EMPTY, env)
            self.assign(target.elts[1], item, env)
            return
        self.assign(target, item, env)

    def local_import(self, node: ast.Import | ast.ImportFrom) -> None:
        is_package = self.info.path.endswith("__init__.py")
        for local, dotted in import_bindings(self.info.module, is_package, node):
            self.state.scope[local] = dotted
