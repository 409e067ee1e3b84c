"""One function, abstractly executed: where host data starts, where it goes.

The walk takes both arms of every branch (a loop's body again while what one iteration leaves
reaches the next), so a host path taken only for
some dtypes or chips is seen; it also keeps the condition under which the current statement
runs (``_guards`` reads the ``if`` tests, ``assert``s and early returns over the parameters),
and every root, sink and call of a falling-back function records it, so a caller can tell
which of a callee's paths its own arguments reach (``_conditions``). Values are sets of origins
(``_values``); calls into the project are read through callee summaries (``_summary``); the
host vocabulary comes from ``device_types._semantics``. What the walk records (``Facts``)
becomes the function's summary and its findings in ``_solver``.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Protocol

from .. import _semantics as sem
from .._vocabulary import HostVocabulary
from . import _codes as codes
from ._carried import loop_reads
from ._conditions import ALWAYS, NEVER, Binding, Condition, conjoin, disjoin, substitute
from ._guards import GuardReader, parameter_names
from ._project import FunctionInfo, import_bindings
from ._summary import EMPTY_SUMMARY, FallbackPath, Hop, Summary
from ._values import COMPUTED, Atom, EMPTY, ArrayOf, HostOnly, LoopFilled, Param, Pending, ReadOf, Root, Value, as_scalar, host_operands, host_operands_of, is_host, params, root_fields, roots

__all__ = ["Facts", "FunctionInfo", "Resolver", "interpret"]

_TRANSFER_METHODS = frozenset(sem.FIXED_TRANSFERS) | sem.TARGET_TRANSFERS
_COMPREHENSION = "<comprehension>"
_RANGE = "<range>"
#: The most times a loop's body is walked: values only grow, and a third pass is rarely needed.
_LOOP_PASSES = 3


class Resolver(Protocol):
    """What the walk asks of the project (``_solver`` answers)."""

    def resolve(self, info: FunctionInfo, scope: dict[str, str], expr: ast.expr) -> str | None:
        """Dotted name of a callee expression: ``numpy.zeros``, ``pkg.mod.func``, ``pkg.mod.Class.meth``."""

    def function(self, dotted: str) -> FunctionInfo | None: ...

    def summary(self, callee: FunctionInfo) -> Summary: ...

    def is_cpu_backend(self, module: str) -> bool: ...

    def is_backend(self, module: str) -> bool: ...

    def device_of(self, module: str) -> str | None:
        """The device of the backend ``module`` belongs to (None: no backend)."""

    def declared(self, dotted: str) -> str | None:
        """``"readback"`` or ``"upload"`` for callables the configuration declares."""

    def constant(self, info: FunctionInfo, name: str) -> ast.expr | None:
        """The literal a module-level name of ``info``'s module is bound to (``CPU = "cpu"``,
        ``HOST = torch.device("cpu")``), following an import of it; None otherwise."""

    @property
    def vocabulary(self) -> HostVocabulary:
        """The host vocabulary: built in, plus the project's extension."""


@dataclass
class Facts:
    """What one walk found."""

    returned: set[Atom] = field(default_factory=set)
    #: Host data uploaded to a device, or written into a tensor through a host view.
    sunk: list[tuple[Root, str]] = field(default_factory=list)
    uploaded_params: set[int] = field(default_factory=set)
    #: Parameters uploaded after conversion to a numpy array (``tensor_create(data)``).
    array_uploads: set[int] = field(default_factory=set)
    #: Parameters passed to a call that targets a device (``device=``): uploaded if host data.
    maybe_uploaded_params: set[int] = field(default_factory=set)
    reads_into: set[int] = field(default_factory=set)
    created: list[Root] = field(default_factory=list)
    #: Read roots handed back through a parameter (a D2H copy into the caller's buffer).
    escaped: set[Root] = field(default_factory=set)
    cpu_backend_calls: list[tuple[int, int, str]] = field(default_factory=list)
    #: Calls of backend functions on a path of theirs that falls back and that this call can
    #: reach: the callee's path, its condition rewritten over this function's parameters.
    indirect: list[tuple[int, int, FunctionInfo, FallbackPath]] = field(default_factory=list)
    callees: set[tuple[str, str]] = field(default_factory=set)
    #: When each sunk root is reached (created and sunk), over this function's parameters.
    when: dict[Root, Condition] = field(default_factory=dict)
    #: When each CPU-backend call (by line, column) is made.
    cpu_when: dict[tuple[int, int], Condition] = field(default_factory=dict)
    #: When each returned root is returned (made and returned), where that is not always.
    returned_when: dict[Root, Condition] = field(default_factory=dict)


def interpret(info: FunctionInfo, node: ast.FunctionDef | ast.AsyncFunctionDef, resolver: Resolver) -> Facts:
    scope: dict[str, str] = {}  # the lambda holds the scope, not the walker: no cycle outlives the walk
    walker = _Walker(info, resolver, scope)
    walker.guards = GuardReader(info, node, lambda expr: resolver.resolve(info, scope, expr),
                                resolver.device_of(info.module))
    env: dict[str, Value] = {}
    for index, name in enumerate(info.params):
        env[name] = frozenset({Param(index)})
    if info.vararg:
        env[info.vararg] = frozenset({Param(len(info.params))})
    for offset, name in enumerate(info.kwonly):
        env[name] = frozenset({Param(len(info.params) + 1 + offset)})
    walker.block(node.body, env)
    facts = walker.facts
    if COMPUTED in facts.returned:  # an op whose (Python) result is computed on the host
        for root in roots(frozenset(facts.returned)):
            if root.kind == "read" and not root.scalar:
                walker.sunk(root, "returns a result computed on the host", walker.returned_when)
    for pending, returned_when in walker.returned_pending.items():  # host-built data returned as the result
        walker.sunk(pending.root, pending.how, returned_when)
    for root, sunk_when in walker.sunk_when.items():
        facts.when[root] = conjoin(walker.created_when.get(root, ALWAYS), sunk_when)
    for root, returned_when in walker.returned_paths.items():
        when = conjoin(walker.created_when.get(root, ALWAYS), returned_when)
        if when != ALWAYS:
            facts.returned_when[root] = when
    return facts


#: expression type -> its ``_Walker.expr_*`` method (False: none; the children are walked)
_EXPR_METHODS: dict[type, Any] = {}


class _Walker:
    def __init__(self, info: FunctionInfo, resolver: Resolver, scope: dict[str, str]) -> None:
        self.info = info
        self.resolver = resolver
        self.facts = Facts()
        #: local imports and nested defs: name -> dotted target
        self.scope = scope
        self._root_ids: dict[tuple[int, int, str], Root] = {}
        self.loops = 0
        self.guards: GuardReader | None = None
        self.vocab = resolver.vocabulary
        #: The condition under which the statement being walked runs.
        self.path: Condition = ALWAYS
        self.created_when: dict[Root, Condition] = {}
        self.sunk_when: dict[Root, Condition] = {}
        self.returned_when: Condition = NEVER
        #: The paths on which each root is returned.
        self.returned_paths: dict[Root, Condition] = {}
        #: id of a test expression -> what it reads as (``_test``)
        self._tests: dict[int, tuple[Condition, Condition]] = {}
        #: Loop variables over containers (``for item in keys``): appending them collects, not computes.
        self.items: set[str] = set()
        #: Names bound to a call that names a device (``torch.eye(4, device=d)``): tensors there.
        self._on_device: set[str] = set()
        #: name -> roots it holds only because they were written into it (``contain``)
        self._contained: dict[str, Value] = {}
        #: Uploads of data built from metadata alone, made by the call being evaluated (``upload``)
        self._pending: Value = EMPTY
        #: When each such upload is returned (the op's result): a fallback path, then.
        self.returned_pending: dict[Pending, Condition] = {}
        #: id of a loop -> what its body reads before assigning, and only writes into (``loop_reads``)
        self._loop_reads: dict[int, tuple[frozenset[str], frozenset[str]]] = {}

    def constant(self, name: str) -> ast.expr | None:
        """What ``name`` is bound to where it is a constant here: a local bound once, else a
        constant of this function's module (``CPU = "cpu"``, imported or not)."""
        if self.guards is not None:
            bound = self.guards.bound_once.get(name)
            if bound is not None:
                return bound
            if name in self.guards.local_names:
                return None
        if name in self.scope:
            return None
        return self.resolver.constant(self.info, name)

    def sunk(self, root: Root, how: str, when: Condition | None = None) -> None:
        """``root`` reaches the device as (part of) a result: a fallback path, taken when ``when``."""
        self.facts.sunk.append((root, how))
        self.sunk_when[root] = disjoin(self.sunk_when.get(root, NEVER), self.path if when is None else when)

    def upload(self, root: Root, how: str) -> None:
        """``root``'s data reaches the device. Data built from metadata alone (``weak``: a loop
        over shapes or ``range``) is the op's result only if what was uploaded is returned:
        until then the upload's value holds it as ``Pending``."""
        if root.weak:
            self._pending = self._pending | frozenset({Pending(root, how)})
        else:
            self.sunk(root, how)

    def _created(self, root: Root) -> None:
        self.created_when[root] = disjoin(self.created_when.get(root, NEVER), self.path)

    # --- statements ----------------------------------------------------------------------

    def block(self, body: Iterable[ast.stmt], env: dict[str, Value]) -> None:
        """The statements of one block; a test that ends an arm (``if not ok: raise``,
        ``if x.device.type == "npu": return x``) constrains the rest of the block."""
        outer = self.path
        for stmt in body:
            self.stmt(stmt, env)
            if isinstance(stmt, ast.If):
                continues = self._continuation(stmt)
                if continues is not None:
                    self.path = conjoin(self.path, continues)
                    name = _device_guard(stmt.test) if _terminates(stmt.body) else None
                    if name is not None and name in env:  # the rest sees a value not on the device
                        env[name] = env[name] | frozenset({HostOnly("not on the device")})
            elif isinstance(stmt, ast.Assert):
                self.path = conjoin(self.path, self._test(stmt.test)[0])
        self.path = outer

    def _test(self, test: ast.expr) -> tuple[Condition, Condition]:
        # an ``if``'s test is read for its arms and again for the rest of its block (and a
        # loop's body may be walked more than once): read once per walk
        known = self._tests.get(id(test))
        if known is None:
            known = self._tests[id(test)] = self.guards.test(test) if self.guards is not None else (ALWAYS, ALWAYS)
        return known

    def _continuation(self, stmt: ast.If) -> Condition | None:
        """When the statement after ``stmt`` runs, if an arm of it (or of its ``elif``s) ends
        in a return or raise: ``if a: return ... elif b: return ...`` continues when neither.
        None: every arm goes on (or none does: dead code keeps the path it had)."""
        exits_body = _terminates(stmt.body)
        chained = stmt.orelse[0] if len(stmt.orelse) == 1 and isinstance(stmt.orelse[0], ast.If) else None
        inner = self._continuation(chained) if chained is not None else None
        exits_else = chained is None and _terminates(stmt.orelse)
        if not exits_body and not exits_else and inner is None:
            return None
        when_true, when_false = self._test(stmt.test)
        after_body = NEVER if exits_body else when_true
        after_else = NEVER if exits_else else (conjoin(when_false, inner) if inner is not None else when_false)
        continues = disjoin(after_body, after_else)
        return continues if continues else None

    def stmt(self, node: ast.stmt, env: dict[str, Value]) -> None:
        if isinstance(node, ast.Assign):
            value = self.expr(node.value, env)
            for target in node.targets:
                self.assign(target, value, env, source=node.value)
                if isinstance(target, ast.Name) and isinstance(node.value, ast.Call) and _targets_device(node.value, self.constant):
                    self._on_device.add(target.id)
        elif isinstance(node, ast.AnnAssign):
            if node.value is not None:
                self.assign(node.target, self.expr(node.value, env), env)
                if isinstance(node.target, ast.Name) and isinstance(node.value, ast.Call) and _targets_device(node.value, self.constant):
                    self._on_device.add(node.target.id)
        elif isinstance(node, ast.AugAssign):
            value = self.expr(node.value, env)
            current = self.expr(node.target, env)
            if isinstance(node.target, ast.Subscript):
                self.write_element(node.target, self.expr(node.target.value, env), value, "an in-place update", env,
                                   node.value)
            else:
                self.write_into(current, _base_name(node.target), "an in-place update", value)
            self.assign(node.target, current | value, env, augment=True)
        elif isinstance(node, ast.Return):
            if node.value is not None:
                value = self.expr(node.value, env)
                self.facts.returned |= value
                for atom in value:
                    if isinstance(atom, Pending):
                        self.returned_pending[atom] = disjoin(self.returned_pending.get(atom, NEVER), self.path)
                if COMPUTED in value:
                    self.returned_when = disjoin(self.returned_when, self.path)
                for root in roots(value):
                    self.returned_paths[root] = disjoin(self.returned_paths.get(root, NEVER), self.path)
        elif isinstance(node, ast.Expr):
            self.expr(node.value, env)
        elif isinstance(node, ast.If):
            self.expr(node.test, env)
            when_true, when_false = self._test(node.test)
            self.branches([node.body, node.orelse], env, _host_guard(node.test, self.constant),
                          [conjoin(self.path, when_true), conjoin(self.path, when_false)])
        elif isinstance(node, ast.While):
            self.expr(node.test, env)
            self.loops += 1
            self.loop(node, env)
            self.loops -= 1
        elif isinstance(node, (ast.For, ast.AsyncFor)):
            columns = self._zipped(node.iter, node.target, env)
            items = frozenset().union(*columns) if columns is not None else self.expr(node.iter, env)
            self.bind_items(node.target, node.iter, items, env, columns=columns)
            if isinstance(node.target, ast.Name) and not _counts(node.iter, self.vocab):
                self.items.add(node.target.id)
            self.loops += 1
            self.loop(node, env, _elements(items), columns)
            self.loops -= 1
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
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.expr):
                    self.expr(child, env)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            self.local_import(node)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            self.scope[node.name] = f"{self.info.module}.{self.info.qualname}.<locals>.{node.name}"
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
        for walked in range(_LOOP_PASSES):
            body_env = dict(head)
            if walked and not isinstance(node, ast.While):  # (the first time, the caller bound it)
                self.bind_items(node.target, node.iter, element, body_env, elements=True, columns=columns)
            self.block(node.body, body_env)
            if _exits(node.body):  # every iteration returns or raises: nothing carried
                break
            grown = [name for name, value in body_env.items()
                     if value is not head.get(name) and not value <= head.get(name, EMPTY)]
            if not grown:
                break
            carried = self._carried(node, grown, head, body_env)
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

    def _carried(self, node: ast.For | ast.AsyncFor | ast.While, grown: list[str], head: dict[str, Value],
                 body_env: dict[str, Value]) -> bool:
        """Whether the next iteration sees a value of ``grown`` that this one did not: one it
        reads before assigning it, or a view of a tensor newly held by a name that it only
        writes into (``arr[i] = v``: what ``arr`` merely holds is not what it views)."""
        known = self._loop_reads.get(id(node))
        if known is None:
            known = self._loop_reads[id(node)] = loop_reads(node, self.vocab.container_add_methods)
        reads, bases = known
        for name in grown:
            if name in reads:
                return True
            if name in bases:
                before, held = head.get(name, EMPTY), self._contained.get(name, EMPTY)
                if any(r.kind == "read" and not r.scalar and r not in held and r not in before
                       for r in roots(body_env[name])):
                    return True
        return False

    def branches(self, arms: list[list[ast.stmt]], env: dict[str, Value],
                 guard: tuple[str, int] | None = None, paths: list[Condition] | None = None) -> None:
        """Walk each arm from the same state and join. ``guard`` = (name, arm index): in that
        arm the tensor ``name`` is known to be on the CPU (``if x.device.type == "cpu":``).
        ``paths``: the condition each arm runs under (default: the current one)."""
        results = []
        outer = self.path
        for index, arm in enumerate(arms):
            branch_env = dict(env)
            if guard is not None and guard[1] == index:
                branch_env[guard[0]] = branch_env.get(guard[0], EMPTY) | frozenset({HostOnly("cpu tensor")})
            self.path = paths[index] if paths is not None else outer
            self.block(arm, branch_env)
            self.path = outer
            if not _terminates(arm):  # an arm that raises or returns does not reach the join
                results.append(branch_env)
        for branch_env in results:
            for name, value in branch_env.items():
                current = env.get(name, EMPTY)
                if value is not current:  # most names an arm did not touch: the same object
                    env[name] = current | value if current else value

    def assign(self, target: ast.expr, value: Value, env: dict[str, Value], augment: bool = False,
               source: ast.expr | None = None) -> None:
        """``target = value``; ``source``: the expression assigned, when it is one (``a[i] = b[j]``)."""
        if isinstance(target, ast.Name):
            if augment:
                self.contain(target.id, env.get(target.id, EMPTY), value)
            else:
                self._contained.pop(target.id, None)
                self._on_device.discard(target.id)
            env[target.id] = value
        elif isinstance(target, (ast.Tuple, ast.List)):
            for element in target.elts:
                self.assign(element.value if isinstance(element, ast.Starred) else element, value, env)
        elif isinstance(target, ast.Subscript):
            container = self.expr(target.value, env)
            self.expr(target.slice, env)
            base = _base_name(target.value)
            if not augment:
                self.write_element(target, container, value, "an element write", env, source)
            if base is not None and value:
                self.contain(base, env.get(base, EMPTY), value)
                env[base] = env.get(base, EMPTY) | value
        elif isinstance(target, ast.Attribute):
            self.expr(target.value, env)
        elif isinstance(target, ast.Starred):
            self.assign(target.value, value, env)

    def _zipped(self, iterable: ast.expr, target: ast.expr, env: dict[str, Value]) -> list[Value] | None:
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
                self.assign(element, _elements(column), env)
            return
        item = items if elements else _elements(items)
        if isinstance(target, ast.Tuple) and len(target.elts) == 2 and isinstance(iterable, ast.Call) \
                and isinstance(iterable.func, ast.Name) and iterable.func.id == "enumerate":
            self.assign(target.elts[0], EMPTY, env)
            self.assign(target.elts[1], item, env)
            return
        self.assign(target, item, env)

    def local_import(self, node: ast.Import | ast.ImportFrom) -> None:
        is_package = self.info.path.endswith("__init__.py")
        for local, dotted in import_bindings(self.info.module, is_package, node):
            self.scope[local] = dotted

    # --- sinks and uses ------------------------------------------------------------------

    def sink(self, value: Value, how: str, known_upload: bool = True) -> Value:
        """Host data uploaded to a device. A Python scalar staged as a kernel operand is not
        a result computed on the host: it stays a host-sync candidate."""
        for root in roots(value):
            if not root.scalar:
                self.upload(root, how)
        if known_upload:
            self.facts.uploaded_params |= params(value)
            self.facts.array_uploads |= {a.index for a in value if isinstance(a, ArrayOf)}
        else:
            self.facts.maybe_uploaded_params |= params(value)
        return _pending(value)

    def _addresses(self, index: ast.expr, env: dict[str, Value]) -> Value:
        """What an index addresses elements with: its plain parts (``idx[i]``), not its slice
        bounds (``:actual_len``: a size, read back only to decide how much is copied)."""
        parts = index.elts if isinstance(index, ast.Tuple) else [index]
        found: Value = EMPTY
        for part in parts:
            if not isinstance(part, ast.Slice):
                found = found | self.expr(part, env)
        return found

    def write_element(self, target: ast.Subscript, container: Value, value: Value, how: str,
                      env: dict[str, Value], source: ast.expr | None = None) -> None:
        """``target = value`` (or ``+=``) into ``container``: host data written into a tensor
        made on the device is uploaded (``dev = torch.eye(4, device=d); dev[0, 2] = xs.tolist()[0]``);
        into host data, it is ``write_into``. Only a name bound to a call that names a device
        is known to be a tensor there: a parameter or another call's result may be a list."""
        base = _base_name(target.value)
        if isinstance(target.value, ast.Name) and target.value.id in self._on_device:
            if self.loops:  # ``out[i] = a[int(idx[i])]`` in a host loop: the host computes the result
                moved = self._addresses(target.slice, env)
                if source is not None:
                    for sub in ast.walk(source):
                        if isinstance(sub, ast.Subscript):
                            moved = moved | self._addresses(sub.slice, env)
                for root in roots(moved):
                    if root.kind == "read":
                        self.sunk(replace(root, scalar=False), "drives element copies into a device tensor from it")
            outer, self._pending = self._pending, EMPTY
            self.sink(value, "writes it into a device tensor")
            written, self._pending = self._pending, outer
            if written:  # the tensor now holds data the host built: a finding if it is returned
                env[target.value.id] = env.get(target.value.id, EMPTY) | written
            return
        self.write_into(container, base, how, value)

    def contain(self, base: str, current: Value, value: Value) -> None:
        """``value`` is written into (or appended to) what ``base`` holds (``current``): its
        roots are data ``base`` contains, not memory it views (``out[i] = arr`` copies)."""
        own = frozenset(roots(current)) - self._contained.get(base, EMPTY)
        added = frozenset(roots(value)) - own
        if added:
            self._contained[base] = self._contained.get(base, EMPTY) | added

    def _loop_roots(self, value: Value) -> list[Root]:
        return [self._root_at(a.line, a.column, "built", _filled_what(a.name)) for a in value if isinstance(a, LoopFilled)]

    def write_into(self, container: Value, base: str | None, how: str, value: Value = EMPTY) -> None:
        """A write into host data: when that data is a view of a device tensor, it is the tensor
        (and whatever host data is written lands in it). ``base``: the name written through;
        data it holds only because it was written into it (``contain``) is not what it views."""
        # a Python scalar read back is a value, not a view of the tensor's memory
        # (``magnitude *= -1.0`` rebinds it)
        held = self._contained.get(base, EMPTY) if base is not None else EMPTY
        read = [r for r in roots(container) if r.kind == "read" and not r.scalar and r not in held]
        if not read:
            return
        for root in (*read, *roots(value)):
            self.sunk(root, "writes into the tensor through a host view")

    # --- expressions ---------------------------------------------------------------------

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
            method = _EXPR_METHODS[kind] = getattr(_Walker, f"expr_{kind.__name__}", False)
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
        when_true, when_false = self._test(node.test)
        outer = self.path
        try:
            self.path = conjoin(outer, when_true)
            value = self.expr(node.body, env)
            self.path = conjoin(outer, when_false)
            return value | self.expr(node.orelse, env)
        finally:
            self.path = outer

    def expr_Attribute(self, node: ast.Attribute, env: dict[str, Value]) -> Value:
        value = self.expr(node.value, env)
        return EMPTY if node.attr in sem.METADATA else value

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
        index = self.expr(node.slice, env)  # an index computed on the host picks host data too
        return (value if isinstance(node.slice, ast.Slice) else _elements(value)) | index

    def expr_NamedExpr(self, node: ast.NamedExpr, env: dict[str, Value]) -> Value:
        value = self.expr(node.value, env)
        self.assign(node.target, value, env)
        return value

    def _comprehension(self, node: ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp,
                       env: dict[str, Value], elements: list[ast.expr]) -> Value:
        inner = dict(env)
        for generator in node.generators:
            self.assign(generator.target, _elements(self.expr(generator.iter, inner)), inner)
            for condition in generator.ifs:
                self.expr(condition, inner)
        value: Value = EMPTY
        for element in elements:
            value = value | self.expr(element, inner)
        return value

    def expr_ListComp(self, node: ast.ListComp, env: dict[str, Value]) -> Value:
        value = self._comprehension(node, env, [node.elt])
        items = {g.target.id for g in node.generators if isinstance(g.target, ast.Name) and not _counts(g.iter, self.vocab)}
        if self._collected(node.elt, items):  # [k for k in keys if ...], [op(t) for t in ts]: no data computed
            return value
        return value | frozenset({LoopFilled(_COMPREHENSION, node.lineno, node.col_offset)})

    def _collected(self, element: ast.expr, items: set[str] = frozenset()) -> bool:  # type: ignore[assignment]
        """An element that a loop collects rather than computes: an item of a container being
        iterated, or what a project function returns (a device tensor, typically)."""
        if isinstance(element, ast.Starred):
            element = element.value
        if isinstance(element, ast.Name):
            return element.id in items or element.id in self.items
        if isinstance(element, ast.Constant):  # None, Ellipsis, a name: keys, not numbers
            return not isinstance(element.value, (int, float, complex)) or isinstance(element.value, bool)
        if isinstance(element, (ast.Tuple, ast.List)):
            return all(self._collected(e, items) for e in element.elts)
        if isinstance(element, ast.Call) and isinstance(element.func, ast.Name) and element.func.id in self.vocab.key_builtins:
            return True
        if isinstance(element, ast.Call) and isinstance(element.func, ast.Name) and element.func.id in \
                self.vocab.scalar_builtins and len(element.args) == 1 and not element.keywords:
            return self._collected(element.args[0], items)  # ``float(v) for v in data``: the items, converted
        if isinstance(element, ast.Call) and isinstance(element.func, (ast.Name, ast.Attribute)):
            dotted = self.resolver.resolve(self.info, self.scope, element.func)
            return dotted is not None and self.resolver.function(dotted) is not None
        return False

    def expr_GeneratorExp(self, node: ast.GeneratorExp, env: dict[str, Value]) -> Value:
        return self._comprehension(node, env, [node.elt])

    expr_SetComp = expr_GeneratorExp

    def expr_DictComp(self, node: ast.DictComp, env: dict[str, Value]) -> Value:
        return self._comprehension(node, env, [node.key, node.value])

    def expr_Call(self, node: ast.Call, env: dict[str, Value]) -> Value:
        outer, self._pending = self._pending, EMPTY
        try:
            value = self.call(node, env)
            pending = self._pending
            return value | pending if pending else value
        finally:
            self._pending = outer

    def call(self, node: ast.Call, env: dict[str, Value]) -> Value:
        args = [self.expr(a.value if isinstance(a, ast.Starred) else a, env) for a in node.args]
        kwargs = {k.arg: self.expr(k.value, env) for k in node.keywords}
        all_args: Value = EMPTY
        for value in (*args, *kwargs.values()):
            all_args = all_args | value
        out = kwargs.get("out") if kwargs else None
        if out is not None and not is_host(out):  # ``mul(a.cpu(), 2.0, out=out)``: into a device tensor
            operands = frozenset().union(*args, *(v for k, v in kwargs.items() if k != "out"))
            if host_operands(operands):
                self.sink(operands, "writes it into a device tensor with out=")
        func = node.func
        base = _base_name(func)
        local = base is not None and base in env and base not in ("self", "cls") and base not in self.scope
        if isinstance(func, ast.Attribute):
            # a local value shadows a module-level name: ``index.astype(...)`` where the module defines ``index``
            dotted = None if local else self.resolver.resolve(self.info, self.scope, func)
            if dotted is None:
                receiver = self.expr(func.value, env)
                return self.method_call(node, func, receiver, args, kwargs, all_args, env)
            return self.named_call(node, dotted, args, kwargs, all_args, env, receiver=func.value)
        if isinstance(func, ast.Name):
            dotted = None if local else self.resolver.resolve(self.info, self.scope, func)
            if dotted is None:
                if self.vocab.d2h_name.search(func.id) or any(self.vocab.d2h_name.search(_text(a)) for a in node.args):
                    return self.d2h(node, func.id, env)  # a D2H copy we cannot see into
                if func.id in env:  # a local callable value: unknown
                    return self.unknown_call(node, func.id, all_args, kwargs, args)
                return self.builtin_call(node, func.id, args, all_args, kwargs)
            return self.named_call(node, dotted, args, kwargs, all_args, env)
        if isinstance(func, ast.Call):  # np.vectorize(math.erf)(arr): a host function built on the spot
            maker = self.resolver.resolve(self.info, self.scope, func.func)
            if maker is not None and maker.partition(".")[0] in self.vocab.host_modules:
                self.expr(func, env)
                return all_args | (frozenset({COMPUTED}) if is_host(all_args) else EMPTY)
        if _is_ctypes_array_type(func, lambda e: self.resolver.resolve(self.info, self.scope, e)):
            return frozenset({HostOnly("ctypes buffer")})  # (ctypes.c_char * n)(): host memory
        callee = self.expr(func, env)
        return self.unknown_call(node, "", all_args | callee, kwargs, args)

    # --- calls -----------------------------------------------------------------------------

    def method_call(self, node: ast.Call, func: ast.Attribute, receiver: Value, args: list[Value],
                    kwargs: dict[str | None, Value], all_args: Value, env: dict[str, Value]) -> Value:
        name = func.attr
        if name in sem.METADATA:
            return EMPTY
        if name in self.vocab.raw_memory_reads:
            return self.raw_memory(node, name, all_args)
        if self.vocab.host_allocation.search(name):
            return frozenset({HostOnly(name)})
        if any(self.vocab.d2h_name.search(_text(a)) for a in node.args):
            return self.d2h(node, name, env)
        if name in self.vocab.host_rng_methods and not is_host(receiver) and self.vocab.rng_receiver.search(_dotted_text(func.value)):
            return all_args | self.built(node, f'host RNG "{_dotted_text(func)}()"')
        if name in _TRANSFER_METHODS:
            return self.transfer(node, func, receiver, name)
        if name in sem.HOST_SYNCS:
            if is_host(receiver):
                return as_scalar(receiver)
            return as_scalar(self.readback(node, receiver, f'".{name}()"', codes.READBACK))
        if name in sem.READBACKS or self.vocab.readback_name.search(name):
            if is_host(receiver):
                return receiver | all_args
            return self.readback(node, receiver, f'".{name}()"', codes.READBACK)
        if is_host(receiver) or _is_rng(receiver):
            if name in self.vocab.shape_after_data_functions:  # arr.reshape(shape): the shape is metadata
                all_args = host_operands(all_args) - {COMPUTED}
            if name in self.vocab.host_in_place_methods:
                self.write_into(receiver, _base_name(func.value), f'".{name}()"')
            if name in self.vocab.container_add_methods:
                base = _base_name(func.value)
                if base is not None:
                    self.contain(base, env.get(base, EMPTY), all_args)
                    env[base] = env.get(base, EMPTY) | all_args
            self.out_argument(kwargs)
            computed = frozenset({COMPUTED}) if name not in self.vocab.host_conversions and name not in self.vocab.container_add_methods else EMPTY
            return receiver | all_args | computed
        if name in self.vocab.container_add_methods:
            base = _base_name(func.value)
            if base is not None:
                computes = self.loops and not all(self._collected(a) for a in node.args)
                filled = frozenset({LoopFilled(base, node.lineno, node.col_offset)}) if computes else EMPTY
                self.contain(base, env.get(base, EMPTY), all_args)
                env[base] = env.get(base, EMPTY) | all_args | filled
            return EMPTY
        if name in sem.COPY_SOURCES:  # ``out.copy_(host)``: the source is written into the tensor
            self.sink(all_args, f'copies it into a device tensor with ".{name}()"')
            return receiver
        if name in self.vocab.passthrough_methods:
            return receiver
        return self.unknown_call(node, name, all_args | receiver, kwargs, args)

    def transfer(self, node: ast.Call, func: ast.Attribute, receiver: Value, name: str) -> Value:
        target = sem.FIXED_TRANSFERS.get(name)
        if name in sem.TARGET_TRANSFERS:
            if _converts_dtype_only(node):  # ``.to(torch.float)``, ``.to(x.dtype)``: same place
                return receiver
            target = _literal_device(node, self.constant)
        if target == "cpu":
            if is_host(receiver):
                return receiver
            code = codes.CPU_CALL if name in sem.FIXED_TRANSFERS else codes.CPU_TARGET
            shown = f'".{name}()"' if name in sem.FIXED_TRANSFERS else f'".{name}(\\"cpu\\")"'.replace("\\", "")
            return self.readback(node, receiver, shown, code)
        if is_host(receiver) or params(receiver):
            self.sink(receiver, f'uploaded with ".{name}()"')
        return _pending(receiver)

    def readback(self, node: ast.AST, receiver: Value, what: str | None, code: str,
                 chain: tuple[str, ...] = (), origin: tuple[str, int, str] | None = None,
                 steps: tuple[tuple[str, int, int, str], ...] = ()) -> Value:
        """Host data read from ``receiver`` at ``node`` (``what`` defaults to the call as written)."""
        param_indices = params(receiver)
        key = (getattr(node, "lineno", 0), getattr(node, "col_offset", 0), what or "")
        root = self._root_ids.get(key)
        if root is None:
            what = what or _shown(node)  # type: ignore[arg-type]
            root = Root("read", code, what, self.info.path, key[0], key[1], chain, origin,
                        min(param_indices) if param_indices else None, steps=steps)
            self._root_ids[key] = root
            self.facts.created.append(root)
        self._created(root)
        value: Value = frozenset({root})
        for index in param_indices:
            value = value | frozenset({ReadOf(index)})
        return value

    def _root_at(self, line: int, column: int, kind: str, what: str) -> Root:
        key = (line, column, what)
        root = self._root_ids.get(key)
        if root is None:
            root = Root(kind, codes.NUMPY, what, self.info.path, line, column, weak=True)  # type: ignore[arg-type]
            self._root_ids[key] = root
        self._created(root)
        return root

    def built(self, node: ast.AST, what: str | None, chain: tuple[str, ...] = (),
              origin: tuple[str, int, str] | None = None, steps: tuple[tuple[str, int, int, str], ...] = (),
              weak: bool = False) -> Value:
        """Data built on the host at ``node``; ``weak``: from metadata alone (``np.arange(n)``),
        a finding only where it is uploaded as the op's result (``upload``)."""
        key = (getattr(node, "lineno", 0), getattr(node, "col_offset", 0), what or "")
        root = self._root_ids.get(key)
        if root is None:
            what = what or _shown(node)  # type: ignore[arg-type]
            root = Root("built", codes.NUMPY, what, self.info.path, key[0], key[1], chain, origin, steps=steps,
                        weak=weak)
            self._root_ids[key] = root
        self._created(root)
        return frozenset({root})

    def raw_memory(self, node: ast.Call, name: str, pointer: Value) -> Value:
        """A view of raw memory (``from_address``): what the pointer holds, when that is known
        (host memory, data already read back); otherwise device memory read by the host."""
        if pointer:
            return pointer
        return self.readback(node, EMPTY, f'"{name}()" (raw memory read)', codes.READBACK)

    def out_argument(self, kwargs: dict[str | None, Value]) -> None:
        """``out=`` of a host computation: a write into that host data (a view of a tensor?).
        (``out=`` a device tensor is an upload of the operands: ``call``.)"""
        out = kwargs.get("out")
        if out is not None:
            self.write_into(out, None, "out=")

    def named_call(self, node: ast.Call, dotted: str, args: list[Value], kwargs: dict[str | None, Value],
                   all_args: Value, env: dict[str, Value], receiver: ast.expr | None = None) -> Value:
        declared = self.resolver.declared(dotted)
        head, _, last = dotted.rpartition(".")
        if declared == "readback":
            first = args[0] if args else EMPTY
            return first if is_host(first) else self.readback(node, first, _shown(node), codes.READBACK)
        if declared == "upload":
            return self.sink(args[0] if args else all_args, f'uploaded with "{last}()"')
        if any(self.vocab.d2h_name.search(_text(a)) for a in node.args):  # memcpy(dst, src, n, DEVICE_TO_HOST)
            return self.d2h(node, dotted, env)
        direction = self.copy_direction(node, last)
        if direction == "d2h":  # acl.rt.memcpy(dst, n, src, n, 2), a wrapper of the same name too
            return self.d2h(node, dotted, env)
        if direction == "h2d":
            api = self.vocab.copy_api[last]
            if api.source < len(args):
                self.sink(args[api.source], f'copied to device memory with "{last}()"')
            return EMPTY
        callee = self.resolver.function(dotted)
        if callee is not None:
            return self.project_call(node, callee, args, kwargs, env, receiver)
        top = dotted.partition(".")[0]
        if dotted in self.vocab.scalar_decoders:  # struct.unpack("f", raw)[0]: Python scalars
            return as_scalar(all_args)
        if self.vocab.d2h_name.search(dotted):
            return self.d2h(node, dotted, env)
        if self.vocab.upload_name.search(last):
            return self.sink(all_args, f'uploaded with "{last}()"')
        if self.vocab.host_allocation.search(last):
            return frozenset({HostOnly(last)})
        if last in self.vocab.raw_copies:
            self.host_addressed(last, all_args)
            if len(args) > 1 and is_host(args[0]) and not args[1]:
                # memmove(host_buffer, t.data_ptr(), n): a pointer from tensor metadata, read into host memory
                return self.d2h(node, dotted, env)
            for value in args[1:]:
                self.sink(value, f'copied to device memory with "{last}()"')
            return EMPTY
        if top in self.vocab.host_modules:
            return self.host_library_call(node, dotted, last, args, all_args, kwargs)
        if top == "torch" or top == "ctypes":
            if last in sem.TENSOR_DATA_FACTORIES or last in sem.HOST_FACTORIES:
                if _targets_device(node, self.constant):
                    self.sink(all_args, f'uploaded with "{last}()"')
                    for root in self._loop_roots(all_args):
                        self.upload(root, f'uploaded with "{last}()"')
                if _targets_device(node, self.constant):
                    return EMPTY
                data = node.args[0] if node.args else None
                if params(all_args) and not isinstance(data, _SEQUENCE_DISPLAYS):
                    return all_args  # ``torch.as_tensor(x)``: x's device, whatever it is
                # ``torch.tensor(idx)``: a CPU tensor of the host's data (a loop's list: built there)
                built = frozenset(self._loop_roots(all_args))
                return frozenset(a for a in all_args if not isinstance(a, LoopFilled)) | built \
                    | frozenset({HostOnly(f"{last}() on the CPU")})
            if last in self.vocab.raw_memory_reads:
                return self.raw_memory(node, last, all_args)
            if last in self.vocab.host_buffer_factories:
                return frozenset({HostOnly(last)})
            if self.vocab.host_allocation.search(last):
                return frozenset({HostOnly(last)})
            if _targets_device(node, self.constant):
                # created on the device (``torch.zeros(n, device=x.device)``): host values
                # among its arguments are uploaded (a Python scalar sizes or fills it: no
                # upload of data, ``sink``), and the result is no host data
                return self.sink(all_args, f'uploaded by "{last}()"', known_upload=False)
            if last in sem.CREATION_FACTORIES and not any(k.arg == sem.DEVICE_PARAMETER for k in node.keywords):
                # ``torch.arange(n)``: made on the CPU (no device named), from sizes: host memory
                # holding nobody's device data; reading it back reads nothing from a device
                return frozenset({HostOnly(f"{last}() on the CPU")})
            if _names_cpu(node, self.constant):
                # ``torch.linspace(0, r, n, device="cpu")``: a tensor made on the host, whose
                # ``.tolist()`` reads no device data (uploaded, it is host-built data)
                return all_args | self.built(node, f'"{dotted}()" on the host')
            return all_args | host_operands(all_args) if is_host(all_args) else EMPTY
        if self.vocab.readback_name.search(last) and "dtype" not in last.lower():
            first = args[0] if args else EMPTY
            if is_host(first):
                return first
            return self.readback(node, first, _shown(node), codes.READBACK)
        if last in self.vocab.tensor_factories:  # mindspore.tensor(arr): a device tensor of host data
            # its data is the first argument; a shape or stride after it (``Tensor(storage, shape,
            # stride)``) is metadata; what it wraps travels with it (``_wrapped``)
            data_arg: Value = args[0] if args else kwargs.get("data", EMPTY)
            return self.sink(data_arg, f'uploaded by "{last}()"', known_upload=False) | _wrapped(data_arg)
        return self.unknown_call(node, last, all_args, kwargs, args)

    def host_library_call(self, node: ast.Call, dotted: str, last: str, args: list[Value], all_args: Value,
                          kwargs: dict[str | None, Value]) -> Value:
        module = dotted.rpartition(".")[0]
        if last in self.vocab.host_metadata_functions and module.partition(".")[0] == "numpy":
            return EMPTY
        self.out_argument(kwargs)
        if last == "copyto" and args:
            self.write_into(args[0], _base_name(node.args[0]), '"copyto()"')
        if any(module == m or module.startswith(m + ".") for m in self.vocab.host_rng_modules) or dotted in self.vocab.host_rng_modules:
            return all_args | self.built(node, f'host RNG "{dotted}()"')
        if module.partition(".")[0] == "numpy" and last in self.vocab.host_array_builders:
            built = self.built(node, f'numpy "{last}()"', weak=True)
            if last in self.vocab.shape_first_builders and node.args and _one_element(node.args[0]):
                # np.full((1,), value): one staged scalar
                return all_args | as_scalar(built)
            return all_args | built
        if module.partition(".")[0] == "numpy":
            # np.array(idx) of a loop-filled list: array data built on the host. Only the data
            # argument is data: a shape or axes argument (``np.broadcast_to(a, out_shape)``,
            # ``np.empty(out_shape)``) is metadata, however it was built
            if last in self.vocab.shape_after_data_functions and args:
                all_args = args[0] | host_operands(all_args) - {COMPUTED}
            data = args[0] if args and last not in self.vocab.shape_first_functions else EMPTY
            built = frozenset(self._loop_roots(data)) | frozenset(ArrayOf(i) for i in params(data))
            all_args = frozenset(a for a in all_args if not isinstance(a, (LoopFilled, ArrayOf))) | built
        if last in self.vocab.host_conversions or not is_host(all_args):
            return all_args
        if last not in self.vocab.shape_after_data_functions and not any(
                isinstance(a, (ReadOf, HostOnly)) or (isinstance(a, Root) and not a.weak) for a in all_args):
            # numpy computing with data built from metadata alone (``np.cos(angles)``): what it
            # makes is computed data, no longer metadata; rearranging (``np.tile``) is not computing
            computed = frozenset(a for a in all_args if not (isinstance(a, Root) and a.weak))
            return computed | self.built(node, f'numpy "{last}()"') | frozenset({COMPUTED})
        return all_args | frozenset({COMPUTED})

    def d2h(self, node: ast.Call, dotted: str, env: dict[str, Value]) -> Value:
        """A device-to-host memcpy: its destination (first argument) now holds device data."""
        short = dotted.rpartition(".")[2]
        sources: Value = EMPTY
        for arg in node.args[1:]:  # the device pointer is metadata of a tensor: whose?
            for name in ast.walk(arg):
                if isinstance(name, ast.Name):
                    sources = sources | frozenset(a for a in env.get(name.id, EMPTY) if isinstance(a, Param))
        value = self.readback(node, sources, f'"{short}()" (device-to-host copy)', codes.READBACK)
        if node.args:
            destination = node.args[0]
            while isinstance(destination, ast.Call) and destination.args:  # ctypes.addressof(buf), int(p)
                destination = destination.args[0]
            base = _base_name(destination)
            if base is not None:
                current = env.get(base, EMPTY)
                for index in params(current):
                    self.facts.reads_into.add(index)
                    self.facts.escaped |= set(roots(value))
                env[base] = _overwritten(current) | value
        return value

    def project_call(self, node: ast.Call, callee: FunctionInfo, args: list[Value], kwargs: dict[str | None, Value],
                     env: dict[str, Value], receiver: ast.expr | None) -> Value:
        self.facts.callees.add(callee.key)
        if self.loops:  # (host_addressed looks at loops alone: no union of the arguments outside them)
            self.host_addressed(callee.short, frozenset().union(*args, *kwargs.values()))
        if _targets_device(node, self.constant):
            for value in (*args, *kwargs.values()):
                self.sink(value, f'uploaded by "{callee.short}()"', known_upload=False)
            # ``tensor_create([rows, cols], device=d)``: a list a loop built, as its data (the
            # first argument; a shape or stride after it is metadata)
            for root in self._loop_roots(args[0] if args else kwargs.get("data", EMPTY)):
                self.upload(root, f'uploaded by "{callee.short}()"')
        if self.resolver.is_cpu_backend(callee.module):
            self.facts.cpu_backend_calls.append((node.lineno, node.col_offset, callee.qualname))
            site = (node.lineno, node.col_offset)
            self.facts.cpu_when[site] = disjoin(self.facts.cpu_when.get(site, NEVER), self.path)
        summary = self.resolver.summary(callee)
        bindings: dict[int, Binding] | None = None
        if summary.falls_back and self.resolver.is_backend(callee.module):
            bindings = self._bindings(callee, node, receiver)
            for inner in summary.fallbacks:  # the callee's paths this call can take, and when
                when = conjoin(self.path, substitute(inner.when, bindings))
                if when:
                    self.facts.indirect.append((node.lineno, node.col_offset, callee, replace(inner, when=when)))
        if summary is EMPTY_SUMMARY:
            # most callees: nothing returned, uploaded or read into from any argument, so the
            # arguments need no binding (a resolved receiver is a name chain: evaluating it
            # again records nothing); one given host data computes with it there
            if _constructs(callee.short):
                return _wrapped(frozenset().union(*args, *kwargs.values())) if args or kwargs else EMPTY
            return host_operands_of((*args, *kwargs.values()))
        bound = _bind(callee, node, args, kwargs, receiver, env, self)
        # host data the summary does not account for (not returned as it is, uploaded or read
        # into) the callee computes with where it is: its result is host data too
        consumed = summary.returns_param | summary.returns_read_of | summary.uploads | summary.array_uploads \
            | summary.maybe_uploads | summary.reads_into
        unaccounted = [v for i, v in bound.items() if v and i not in consumed]
        result: Value = _wrapped(frozenset().union(*unaccounted)) if _constructs(callee.short) \
            else host_operands_of(unaccounted)
        for index in summary.returns_read_of:
            arg = bound.get(index, EMPTY)
            if is_host(arg):
                result = result | arg
            else:
                read = self.readback(node, arg, None, codes.READBACK)
                result = result | (as_scalar(read) if summary.scalar_return else read)
        for index in summary.returns_param:
            result = result | bound.get(index, EMPTY)
        # shortest chain first, so one call site always gets the same root; a chain that
        # comes back here (recursion) is this function's own root already
        # a root the callee returns only on some of its paths comes back only where this
        # call can take one of them (``rates(x, stagewise=True)`` takes the stagewise return)
        conditions = dict(summary.returned_when)
        for returned in sorted(summary.returned_roots, key=_root_rank):
            if callee.key != self.info.key and self.info.qualname not in returned.chain:
                when = self.path
                inner_when = conditions.get(returned)
                if inner_when is not None:
                    if bindings is None:
                        bindings = self._bindings(callee, node, receiver)
                    when = conjoin(self.path, substitute(inner_when, bindings))
                    if not when:
                        continue
                result = result | self._reroot(node, callee, returned, when)
        for index in summary.uploads:
            self.sink(bound.get(index, EMPTY), f'uploaded by "{callee.short}()"')
        for index in summary.array_uploads:
            for root in self._loop_roots(bound.get(index, EMPTY)):
                self.upload(root, f'uploaded by "{callee.short}()"')
        for index in summary.maybe_uploads - summary.uploads:
            self.sink(bound.get(index, EMPTY), f'uploaded by "{callee.short}()"', known_upload=False)
        for index in summary.reads_into:
            arg_node = _argument_node(callee, node, index)
            base = _base_name(arg_node) if arg_node is not None else None
            if base is not None:
                current = env.get(base, EMPTY)
                self.facts.reads_into |= params(current)
                env[base] = _overwritten(current) | self.readback(node, EMPTY, None, codes.READBACK)
        return result

    def _bindings(self, callee: FunctionInfo, node: ast.Call, receiver: ast.expr | None) -> dict[int, Binding]:
        """What this call passes for each callee parameter that a condition can use: a literal
        (written here, or the callee's default when omitted) or one of this function's subjects."""
        guards = self.guards
        if guards is None:
            return {}
        names = parameter_names(callee)
        found: dict[int, Binding | None] = {}
        offset = 0
        if callee.class_name is not None and receiver is not None and callee.params \
                and callee.params[0] in ("self", "cls") and not _is_class_ref(receiver):
            found[0] = guards.subject(receiver)
            offset = 1
        splat = any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords)
        for position, arg in enumerate(node.args):
            if isinstance(arg, ast.Starred) or position + offset >= len(callee.params):
                break
            found[position + offset] = self._binding(arg)
        for keyword in node.keywords:
            if keyword.arg is not None and keyword.arg in names:
                found[names.index(keyword.arg)] = self._binding(keyword.value)
        if not splat:
            for name, value in callee.defaults:
                found.setdefault(names.index(name), ("lit", value))
        return {index: bound for index, bound in found.items() if bound is not None}

    def _binding(self, arg: ast.expr) -> Binding | None:
        assert self.guards is not None
        literal = self.guards.literal(arg)
        if literal is not None:
            return ("lit", literal[0])
        return self.guards.passed(arg)

    def _reroot(self, node: ast.Call, callee: FunctionInfo, inner: Root, when: Condition) -> Value:
        """The callee's returned root as this function's, made at the call under ``when``."""
        origin = inner.origin or (inner.path, inner.line, inner.what)
        chain = (callee.qualname, *inner.chain)
        # the callee's own call of the helper it got the data from is a step on the way
        steps = ((inner.path, inner.line, inner.column, inner.what), *inner.steps) if inner.origin else ()
        what = None
        outer, self.path = self.path, when
        try:
            made = (self.readback(node, EMPTY, what, inner.code, chain, origin, steps) if inner.kind == "read"
                    else self.built(node, what, chain, origin, steps, weak=inner.weak))
        finally:
            self.path = outer
        return as_scalar(made) if inner.scalar else made

    def builtin_call(self, node: ast.Call, name: str, args: list[Value], all_args: Value,
                     kwargs: dict[str | None, Value]) -> Value:
        if name in self.vocab.metadata_builtins:
            return EMPTY
        if name in self.vocab.scalar_builtins:
            return as_scalar(all_args)
        if name in self.vocab.host_builtins:
            return all_args | (frozenset({COMPUTED}) if is_host(all_args) and name not in self.vocab.plain_builtins else EMPTY)
        if name == "range":  # a counter sequence: host-built index data once materialised
            return frozenset({LoopFilled(_RANGE, node.lineno, node.col_offset)})
        if name in self.vocab.inert_builtins:
            return EMPTY
        return self.unknown_call(node, name, all_args, kwargs, args)

    def copy_direction(self, node: ast.Call, name: str) -> str | None:
        """``"d2h"``/``"h2d"`` for a copy whose direction is an argument value (``_vocabulary.CopyApi``)."""
        api = self.vocab.copy_api.get(name)
        if api is None or api.kind >= len(node.args):
            return None
        kind = node.args[api.kind]
        value = kind.value if isinstance(kind, ast.Constant) else _text(kind) or None
        if value in api.device_to_host:
            return "d2h"
        if value in api.host_to_device:
            return "h2d"
        return None

    def host_addressed(self, name: str, all_args: Value) -> None:
        """A device copy issued from a host loop with addresses computed from data read back
        (``memcpy_d2d(out + i, src + int(idx[i]) * n)``): the host computes the op's result."""
        if self.loops and self.vocab.device_copy.search(name):
            for root in roots(all_args):
                if root.kind == "read":  # the data read back, whether or not it was made a scalar
                    self.sunk(replace(root, scalar=False), f'drives "{name}()" element by element from it')

    def unknown_call(self, node: ast.Call, name: str, all_args: Value, kwargs: dict[str | None, Value],
                     args: list[Value]) -> Value:
        """A callee we cannot see: a device kernel, unless it names a device as its target."""
        self.host_addressed(name, all_args)
        if self.vocab.upload_name.search(name):
            return self.sink(all_args, f'uploaded by "{name}()"')
        if _targets_device(node, self.constant):
            return self.sink(all_args, f'uploaded by "{name}()"' if name else "uploaded", known_upload=False)
        if self.vocab.conversion_name.search(name):  # re-typed raw data: what it got, as it is
            return frozenset(a for a in all_args if isinstance(a, (Root, ReadOf, HostOnly, Param)))
        if _constructs(name):  # a class wraps what it is given (``Tensor(storage, shape)``)
            return _wrapped(all_args)
        # a callee we cannot see runs where its operands are: given host data, its result is
        # host data, and uploading it uploads what the host made. Whether it computes or only
        # converts (``Image.fromarray``) is not known: returned as is, it is no finding.
        return host_operands(all_args) - {COMPUTED}


# --- helpers ---------------------------------------------------------------------------------

#: What a name stands for where it is a constant (a local bound once, a module's constant):
#: the expression it was bound to, or None.
ConstantLookup = Callable[[str], "ast.expr | None"]


def _no_constants(name: str) -> ast.expr | None:
    return None



def _shown(node: ast.expr, limit: int = 48) -> str:
    """The call as written, quoted and shortened: ``"_to_numpy(a)"``."""
    try:
        text = ast.unparse(node)
    except (ValueError, RecursionError):  # pragma: no cover - unparse of a parsed tree
        text = "call"
    text = " ".join(text.split())
    return f'"{text if len(text) <= limit else text[: limit - 3] + "..."}"'


def _is_rng(value: Value) -> bool:
    return any(isinstance(r, Root) and r.kind == "built" and "RNG" in r.what for r in value)


def _base_name(node: ast.AST | None) -> str | None:
    while isinstance(node, (ast.Attribute, ast.Subscript, ast.Starred)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def _dotted_text(node: ast.AST) -> str:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
    return ".".join(reversed(parts))


def _text(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return ""


def _root_rank(root: Root) -> tuple[object, ...]:
    return len(root.chain), root.chain, root.origin or ("", 0, ""), root.line, root.column, root.what, root.kind, \
        root_fields(root)


def _terminates(body: list[ast.stmt]) -> bool:
    return bool(body) and isinstance(body[-1], (ast.Raise, ast.Return, ast.Continue, ast.Break))


def _exits(body: list[ast.stmt]) -> bool:
    """Whether ``body`` ends in a return or raise (a ``continue`` or ``break`` goes on)."""
    return bool(body) and isinstance(body[-1], (ast.Raise, ast.Return))


def _host_guard(test: ast.expr, constant: ConstantLookup = _no_constants) -> tuple[str, int] | None:
    """``x.device.type == "cpu"`` (x on the host in the body: arm 0), ``!= "cpu"`` (arm 1),
    ``!= "<device>"`` (arm 0); ``a and b`` guards the body when either part does. The device
    may be read as ``x.device.type``, ``x.device`` or ``str(x.device)``, and the CPU spelled
    in any way ``_is_cpu_literal`` reads (``CPU``, ``torch.device("cpu")``)."""
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        for part in test.values:
            found = _host_guard(part, constant)
            if found is not None and found[1] == 0:
                return found
        return None
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
        return None
    subject, other = test.left, test.comparators[0]
    if isinstance(subject, ast.Call) and isinstance(subject.func, ast.Name) and subject.func.id == "str" \
            and len(subject.args) == 1:
        subject = subject.args[0]
    if isinstance(subject, ast.Attribute) and subject.attr == "type":
        subject = subject.value
    if not (isinstance(subject, ast.Attribute) and subject.attr == sem.DEVICE_PARAMETER):
        return None
    name = _base_name(subject.value)
    if name is None:
        return None
    is_cpu = _is_cpu_literal(other, constant)
    is_literal = isinstance(other, ast.Constant) and isinstance(other.value, str)
    if isinstance(test.ops[0], (ast.Eq, ast.Is)):
        return (name, 0) if is_cpu else None
    if isinstance(test.ops[0], (ast.NotEq, ast.IsNot)):
        return (name, 1) if is_cpu else (name, 0) if is_literal else None
    return None


def _is_ctypes_array_type(func: ast.expr, resolve: Any) -> bool:
    """``ctypes.c_char * n`` (called, it makes a host buffer)."""
    if not (isinstance(func, ast.BinOp) and isinstance(func.op, ast.Mult)):
        return False
    side = func.left if isinstance(func.left, (ast.Name, ast.Attribute)) else func.right
    dotted = resolve(side) if isinstance(side, (ast.Name, ast.Attribute)) else None
    return dotted is not None and dotted.startswith("ctypes.")


def _overwritten(buffer: Value) -> Value:
    """A host buffer after a device-to-host copy into it: what the host built there (the
    ``np.zeros`` staging buffer) is gone; it holds device data now."""
    return frozenset(a for a in buffer if not (isinstance(a, Root) and a.kind == "built"))


def _filled_what(name: str) -> str:
    if name == _COMPREHENSION:
        return "a list comprehension"
    if name == _RANGE:
        return 'an index sequence "range()"'
    return f'a Python loop filling "{name}"'


def _elements(container: Value) -> Value:
    """What iterating or indexing ``container`` gives: an item of a loop-filled list is not
    itself a loop-filled list (its other origins, e.g. data read back, stay)."""
    if not any(isinstance(a, LoopFilled) for a in container):
        return container
    return frozenset(a for a in container if not isinstance(a, LoopFilled))


def _one_element(shape: ast.expr) -> bool:
    """A literal shape of at most one element: ``1``, ``(1,)``, ``[1]``, ``()``."""
    if isinstance(shape, ast.Constant):
        return shape.value in (0, 1) and not isinstance(shape.value, bool)
    if isinstance(shape, (ast.Tuple, ast.List)):
        return all(isinstance(e, ast.Constant) and e.value == 1 for e in shape.elts)
    return False


def _device_guard(test: ast.expr) -> str | None:
    """``x.device.type == "npu"`` (alone, or with ``isinstance(x, ...)`` tests of the same
    ``x``): the name whose value is not a device tensor once the test failed and returned."""
    parts = test.values if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And) else [test]
    names = set()
    device_test = False
    for part in parts:
        if isinstance(part, ast.Call) and isinstance(part.func, ast.Name) and part.func.id == "isinstance" and part.args:
            names.add(_base_name(part.args[0]))
            continue
        if not (isinstance(part, ast.Compare) and len(part.ops) == 1 and isinstance(part.ops[0], ast.Eq)
                and isinstance(part.comparators[0], ast.Constant) and isinstance(part.comparators[0].value, str)):
            return None
        subject, literal = part.left, part.comparators[0].value
        if isinstance(subject, ast.Attribute) and subject.attr == "type":
            subject = subject.value
        if not (isinstance(subject, ast.Attribute) and subject.attr == sem.DEVICE_PARAMETER) or literal == "cpu" \
                or literal.startswith("cpu:"):
            return None
        names.add(_base_name(subject.value))
        device_test = True
    return names.pop() if device_test and len(names) == 1 and None not in names else None


def _counts(iterable: ast.expr, vocab: HostVocabulary) -> bool:
    """A loop over counters (``range(n)``, ``enumerate``, ``np.ndindex``): its values are
    computed indices, not items of a container."""
    if not isinstance(iterable, ast.Call):
        return False
    func = iterable.func
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
    return name in vocab.counting_iterators


def _names_cpu(node: ast.Call, constant: ConstantLookup = _no_constants) -> bool:
    """The call's ``device=`` is the CPU, in any spelling."""
    return any(k.arg == sem.DEVICE_PARAMETER and _is_cpu_literal(k.value, constant) for k in node.keywords)


def _is_cpu_literal(node: ast.AST, constant: ConstantLookup = _no_constants, depth: int = 0) -> bool:
    """Whether ``node`` names the CPU as a device: ``"cpu"``, ``"cpu:0"``, ``torch.device("cpu")``,
    the framework's own ``Device("cpu")``, or a name bound to one of these (a local bound once,
    a module's constant ``CPU = "cpu"``)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value == "cpu" or node.value.startswith("cpu:")
    if isinstance(node, ast.Call) and node.args:
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
        if name.lower() == sem.DEVICE_PARAMETER:
            return _is_cpu_literal(node.args[0], constant, depth + 1)
    if isinstance(node, ast.Name) and depth < 4:
        bound = constant(node.id)
        return bound is not None and _is_cpu_literal(bound, constant, depth + 1)
    return False


def _literal_device(node: ast.Call, constant: ConstantLookup = _no_constants) -> str | None:
    """The device a ``.to(...)`` call names, when it is the CPU in any spelling; None otherwise."""
    candidates = [k.value for k in node.keywords if k.arg == sem.DEVICE_PARAMETER] + list(node.args[:1])
    for candidate in candidates:
        if _is_cpu_literal(candidate, constant):
            return "cpu"
    return None


def _converts_dtype_only(node: ast.Call) -> bool:
    """``.to(torch.float16)``, ``.to(x.dtype)``, ``.to(dtype)``, ``.to(dtype=...)``: a dtype
    and no device, so the data stays where it is."""
    keywords = {k.arg for k in node.keywords}
    if sem.DEVICE_PARAMETER in keywords or None in keywords:
        return False
    if not node.args:
        return "dtype" in keywords
    first = node.args[0]
    if isinstance(first, ast.Name):
        return first.id == "dtype"
    if isinstance(first, ast.Attribute):
        # ``x.dtype``, or a module's constant (``torch.float16``); not ``x.device``
        return first.attr == "dtype" or (isinstance(first.value, ast.Name) and first.value.id == "torch"
                                         and first.attr != sem.DEVICE_PARAMETER)
    return False


def _targets_device(node: ast.Call, constant: ConstantLookup = _no_constants) -> bool:
    """The call names a device as its target (``device=...``, ``x.device``): it creates there."""
    for keyword in node.keywords:
        if keyword.arg == sem.DEVICE_PARAMETER:
            return not _is_cpu_literal(keyword.value, constant)
    for arg in node.args:
        if isinstance(arg, ast.Attribute) and arg.attr == sem.DEVICE_PARAMETER:
            return True
        if isinstance(arg, ast.Name) and arg.id == sem.DEVICE_PARAMETER:
            return True
    return False


def _argument_node(callee: FunctionInfo, node: ast.Call, index: int) -> ast.expr | None:
    offset = 1 if callee.class_name is not None and isinstance(node.func, ast.Attribute) else 0
    position = index - offset
    if 0 <= position < len(node.args):
        return node.args[position]
    if index < len(callee.params):
        for keyword in node.keywords:
            if keyword.arg == callee.params[index]:
                return keyword.value
    return None


def _bind(callee: FunctionInfo, node: ast.Call, args: list[Value], kwargs: dict[str | None, Value],
          receiver: ast.expr | None, env: dict[str, Value], walker: _Walker) -> dict[int, Value]:
    """Argument values by the callee's parameter index."""
    bound: dict[int, Value] = {}
    offset = 0
    if callee.class_name is not None and receiver is not None and callee.params:
        first = callee.params[0]
        if first in ("self", "cls"):
            bound[0] = walker.expr(receiver, env) if not _is_class_ref(receiver) else EMPTY
            offset = 1
    for position, value in enumerate(args):
        index = position + offset
        if index < len(callee.params):
            bound[index] = bound.get(index, EMPTY) | value
        elif callee.vararg is not None:
            vararg = len(callee.params)
            bound[vararg] = bound.get(vararg, EMPTY) | value
    for name, value in kwargs.items():
        if name in callee.params:
            index = callee.params.index(name)
            bound[index] = bound.get(index, EMPTY) | value
    return bound


#: Python sequences written out: data of a tensor made from them is the host's, never a tensor's.
_SEQUENCE_DISPLAYS = (ast.List, ast.Tuple, ast.ListComp, ast.GeneratorExp, ast.Constant)


def _pending(value: Value) -> Value:
    """The uploads pending in ``value`` (``Pending``): what a call that moves or wraps it carries."""
    return frozenset(a for a in value if isinstance(a, Pending))


def _wrapped(given: Value) -> Value:
    """What an object built around ``given`` holds for the walk: the parameters it wraps and
    uploads pending (``Tensor(storage_of_uploaded_data, shape)`` is that upload), not host data
    (a tensor around a host view of device memory is that tensor: ``_from_metal_buffer``)."""
    return frozenset(a for a in given if isinstance(a, (Param, Pending)))


def _constructs(name: str) -> bool:
    """A call of a class (``__init__``, or a capitalised name): it wraps its arguments (a
    tensor around a storage, a storage around a buffer) and computes nothing with them."""
    return name == "__init__" or name[:1].isupper()


def _is_class_ref(node: ast.expr) -> bool:
    return isinstance(node, ast.Name) and node.id[:1].isupper()

