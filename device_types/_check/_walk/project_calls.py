"""A call of a project function, read through its summary: what it returns, uploads and reads
into, the fallback paths of a backend callee this call can take, and when."""

from __future__ import annotations

import ast
from dataclasses import replace
from typing import TYPE_CHECKING, Callable

from .. import _codes as codes
from .._conditions import NEVER, Binding, Condition, Test, conjoin, disjoin, satisfiable, substitute
from .._guards import parameter_names
from .._project import FunctionInfo
from .._summary import EMPTY_SUMMARY
from .._values import EMPTY, GUARDED_CPU, Root, Value, as_scalar, host_operands_of, is_host, overwritten, params, root_rank, wrapped
from .events import Sink
from .recorder import on_the_cpu
from .state import Part
from .syntax import argument_node, base_name, constructs, is_class_ref, metadata_of, names_cpu, targets_device


if TYPE_CHECKING:
    from .calls import Calls
    from .recorder import Recorder
    from .writes import Writes


class ProjectCalls(Part):
    #: What this part uses of the others (``Walk`` gives them).
    expr: Callable[[ast.expr | None, dict[str, Value]], Value]
    recorder: Recorder
    writes: Writes
    calls: Calls

    def project_call(self, node: ast.Call, callee: FunctionInfo, args: list[Value], kwargs: dict[str | None, Value],
                     env: dict[str, Value], receiver: ast.expr | None) -> Value:
        self.facts.callees.add(callee.key)
        if self.state.loops:  # (host_addressed looks at loops alone: no union of the arguments outside them)
            self.writes.host_addressed(callee.short, frozenset().union(*args, *kwargs.values()))
        if names_cpu(node, self.state.constant) and not self.resolver.is_cpu_backend(callee.module):
            # ``device_put(x, device=cpu)``: the framework's transfer of the op's tensor to the CPU
            data = self.data_argument(callee, args, kwargs)
            summary = self.resolver.summary(callee)
            if params(data) and not is_host(data) and 0 not in summary.metadata_params:
                return self.recorder.readback(node, data, f'"{callee.short}()" to the CPU', codes.CPU_TARGET, copy=True)
        # a call that names a device as its target (``from_numpy(arr, a.device)``) makes its
        # result there: what it is given is uploaded, not computed with on the host
        on_device = targets_device(node, self.state.constant)
        if on_device:
            for value in (*args, *kwargs.values()):
                self.writes.sink(value, Sink("upload_by", f"{callee.short}()"), known_upload=False)
            # ``tensor_create([rows, cols], device=d)``: a list a loop built, as its data (the
            # first argument; a shape or stride after it is metadata)
            for root in self.recorder.loop_roots(self.data_argument(callee, args, kwargs)):
                self.recorder.upload(root, Sink("upload_by", f"{callee.short}()"))
        given = params(frozenset().union(*args, *kwargs.values()))
        if self.resolver.is_cpu_backend(callee.module) and not self.given_on_the_cpu(given, [*args, *kwargs.values()]):
            # (under a CPU guard, ``if a.device.type == "cpu": cpu_ops.erf(a)``, it gets host data)
            self.facts.cpu_backend_calls.append((node.lineno, node.col_offset, callee.qualname))
            site = (node.lineno, node.col_offset)
            self.facts.cpu_when[site] = disjoin(self.facts.cpu_when.get(site, NEVER), self.state.path)
        summary = self.resolver.summary(callee)
        if self.vocab.readback_name.search(callee.short) and "dtype" not in callee.short.lower() \
                and not summary.returns_read_of and args \
                and params(args[0]) and not is_host(args[0]) and not self.vocab.conversion_name.search(callee.short) \
                and not self.vocab.upload_name.search(callee.short):  # (``from_numpy`` reads like both: an upload)
            # the framework's helper named as a read (``to_numpy(a)``, ``host_view(a)``) whose body
            # does not show it (a native call, ``np.asarray(memoryview(a))``): its name says it
            return self.recorder.readback(node, args[0], None, codes.READBACK)
        if self.vocab.upload_name.search(callee.short) and args \
                and not (summary.uploads | summary.array_uploads | summary.maybe_uploads | summary.copy_params):
            # the framework's upload named as one (``from_numpy(arr, mgr)``) whose body does not show it
            self.writes.sink(args[0], Sink("upload_by", f"{callee.short}()"))
            for root in self.recorder.loop_roots(args[0]):
                self.recorder.upload(root, Sink("upload_by", f"{callee.short}()"))
            return EMPTY
        bindings: dict[int, Binding] | None = None
        if summary.falls_back and self.resolver.is_backend(callee.module):
            bindings = self.bindings(callee, node, receiver)
            for inner in summary.fallbacks:  # the callee's paths this call can take, and when
                when = self.feasible(conjoin(self.state.path, substitute(inner.when, bindings)))
                if when:
                    self.facts.indirect.append((node.lineno, node.col_offset, callee, replace(inner, when=when)))
        if summary is EMPTY_SUMMARY:
            # most callees: nothing returned, uploaded or read into from any argument, so the
            # arguments need no binding (a resolved receiver is a name chain: evaluating it
            # again records nothing); one given host data computes with it there
            if constructs(callee.short):
                return wrapped(frozenset().union(*args, *kwargs.values())) if args or kwargs else EMPTY
            return EMPTY if on_device else host_operands_of((*args, *kwargs.values()))
        bound = bind_arguments(callee, node, args, kwargs, receiver, env, self.expr)
        if summary.copy_params:  # a wrapper of a copy we cannot see into: what it is given decides
            positions = sorted(summary.copy_params)
            nodes = [argument_node(callee, node, index) for index in positions]
            picked = [(n, bound.get(index, EMPTY)) for n, index in zip(nodes, positions) if n is not None]
            self.calls.opaque_copy(node, callee.qualname, [n for n, _ in picked], [v for _, v in picked], env)
        # host data the summary does not account for (not returned as it is, uploaded or read
        # into) the callee computes with where it is: its result is host data too
        consumed = summary.returns_param | summary.returns_read_of | summary.uploads | summary.array_uploads \
            | summary.maybe_uploads | summary.reads_into
        # a callee that returns literals only (``return False``) returns none of it
        # nor does one that takes it as metadata (``resize(x, size)`` passing ``size`` as a size)
        unaccounted = [v for i, v in bound.items() if v and i not in consumed and not summary.returns_literal
                       and i not in summary.metadata_params]
        result: Value = wrapped(frozenset().union(*unaccounted)) if constructs(callee.short) \
            else EMPTY if on_device else host_operands_of(unaccounted)
        read_when = dict(summary.returns_read_when)
        for index in summary.returns_read_of:
            arg = bound.get(index, EMPTY)
            if is_host(arg):
                result = result | arg
                continue
            if callee.key == self.info.key:  # recursion: what it reads back is this function's own root
                continue
            if not params(arg):  # a pointer (``t.data_ptr()``): the memory of the tensor it names
                arg_node = argument_node(callee, node, index)
                tensor = metadata_of(arg_node) if arg_node is not None else None
                if tensor is not None:
                    arg = arg | self.writes.addressed([tensor], env)
            # read back only on some of the callee's paths (``if exact: return to_numpy(a)``):
            # only where this call can take one of them
            when = self.state.path
            inner_when = read_when.get(index)
            if inner_when is not None:
                if bindings is None:
                    bindings = self.bindings(callee, node, receiver)
                when = conjoin(when, substitute(inner_when, bindings))
                if not when:
                    continue
            outer, self.state.path = self.state.path, when
            try:
                read = self.recorder.readback(node, arg, None, codes.READBACK)
            finally:
                self.state.path = outer
            result = result | (as_scalar(read) if summary.scalar_return else read)
        for index in summary.returns_param:
            result = result | bound.get(index, EMPTY)
        # shortest chain first, so one call site always gets the same root; a chain that
        # comes back here (recursion) is this function's own root already
        # a root the callee returns only on some of its paths comes back only where this
        # call can take one of them (``rates(x, stagewise=True)`` takes the stagewise return)
        conditions = dict(summary.returned_when)
        for returned in sorted(summary.returned_roots, key=root_rank):
            if callee.key != self.info.key and self.info.qualname not in returned.chain:
                when = self.state.path
                inner_when = conditions.get(returned)
                if inner_when is not None:
                    if bindings is None:
                        bindings = self.bindings(callee, node, receiver)
                    when = conjoin(self.state.path, substitute(inner_when, bindings))
                    if not when:
                        continue
                result = result | self.reroot(node, callee, returned, when)
        for index in summary.uploads:
            self.writes.sink(bound.get(index, EMPTY), Sink("upload_by", f"{callee.short}()"))
        for index in summary.array_uploads:
            for root in self.recorder.loop_roots(bound.get(index, EMPTY)):
                self.recorder.upload(root, Sink("upload_by", f"{callee.short}()"))
        for index in summary.maybe_uploads - summary.uploads:
            self.writes.sink(bound.get(index, EMPTY), Sink("upload_by", f"{callee.short}()"), known_upload=False)
        for index in summary.reads_into:
            arg_node = argument_node(callee, node, index)
            while isinstance(arg_node, ast.Call) and arg_node.args:  # ctypes.addressof(buf), buf.ctypes.data
                arg_node = arg_node.args[0]
            base = base_name(arg_node) if arg_node is not None else None
            if base is not None:
                current = env.get(base, EMPTY)
                self.facts.reads_into |= params(current)
                # the device memory read is the other arguments' (``memcpy_d2h(dst, n, t.data_ptr())``)
                sources = self.writes.addressed([a for a in node.args if a is not argument_node(callee, node, index)], env)
                env[base] = overwritten(current) | self.recorder.readback(node, sources, None, codes.READBACK)
        return result

    def given_on_the_cpu(self, given: set[int], values: list[Value]) -> bool:
        """Under a CPU guard (``if a.device.type == "cpu": cpu_ops.erf(a)``, JAX's
        ``x.device().platform == "cpu"``), the tensors a call is given are on the host: those the
        path has on the CPU, and no other parameter the body uses as a tensor (``axis=axis``
        passed beside is no tensor)."""
        on_cpu = {index for index in given if on_the_cpu(self.state.path, index)} \
            | {index for value in values if GUARDED_CPU in value for index in params(value)}
        names = parameter_names(self.info)
        tensors = self.state.guards.tensor_params if self.state.guards is not None else frozenset()
        return bool(on_cpu) and not any(index < len(names) and names[index] in tensors for index in given - on_cpu)

    def feasible(self, when: Condition) -> Condition:
        """``when`` less the ways in that contradict what a predicate held true there says of its
        arguments (``Summary.true_when``): under ``_can_use_gpu(a)`` (``a.dtype in _GPU_DTYPES
        and ...``), a callee's ``a.dtype not in (f16, f32, i32, i64)`` leaves ``a.dtype == bool``,
        and ``a.dtype.is_floating_point`` then cannot hold. Only what is printed is kept."""
        kept = []
        for conjunction in when:
            implied: set[Test] = set()
            for test in conjunction:
                if test.subject[0] != "c" or test.values is not None or not test.positive:
                    continue
                callee = self.resolver.function(test.subject[1])
                true_when = self.resolver.summary(callee).true_when if callee is not None else None
                if true_when is None:
                    continue
                arguments = {index: argument for index, argument in enumerate(test.subject[2])}
                rewritten = substitute(frozenset({true_when}), arguments)
                if len(rewritten) == 1:
                    implied.update(next(iter(rewritten)))
            if not implied or satisfiable(conjunction | implied):
                kept.append(conjunction)
        return frozenset(kept)

    def data_argument(self, callee: FunctionInfo, args: list[Value], kwargs: dict[str | None, Value]) -> Value:
        """The argument a device-targeted call makes its tensor of: the first (``tensor_create(rows,
        device=d)``), unless the callee names that parameter as a shape (``zeros(shape, device)``)."""
        offset = 1 if callee.class_name is not None and callee.params[:1] in (("self",), ("cls",)) else 0
        first = callee.params[offset] if len(callee.params) > offset else None
        if first is not None and first in self.vocab.shape_parameter_names:
            return EMPTY
        return args[0] if args else kwargs.get("data", EMPTY)

    def bindings(self, callee: FunctionInfo, node: ast.Call, receiver: ast.expr | None) -> dict[int, Binding]:
        """What this call passes for each callee parameter that a condition can use: a literal
        (written here, or the callee's default when omitted) or one of this function's subjects."""
        guards = self.state.guards
        if guards is None:
            return {}
        names = parameter_names(callee)
        found: dict[int, Binding | None] = {}
        offset = 0
        if callee.class_name is not None and receiver is not None and callee.params \
                and callee.params[0] in ("self", "cls") and not is_class_ref(receiver):
            found[0] = guards.subject(receiver)
            offset = 1
        splat = any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords)
        for position, arg in enumerate(node.args):
            if isinstance(arg, ast.Starred) or position + offset >= len(callee.params):
                break
            found[position + offset] = self.binding(arg)
        for keyword in node.keywords:
            if keyword.arg is not None and keyword.arg in names:
                found[names.index(keyword.arg)] = self.binding(keyword.value)
        if not splat:
            for name, value in callee.defaults:
                found.setdefault(names.index(name), ("lit", value))
        return {index: bound for index, bound in found.items() if bound is not None}

    def binding(self, arg: ast.expr) -> Binding | None:
        assert self.state.guards is not None
        literal = self.state.guards.literal(arg)
        if literal is not None:
            return ("lit", literal[0])
        return self.state.guards.passed(arg)

    def reroot(self, node: ast.Call, callee: FunctionInfo, inner: Root, when: Condition) -> Value:
        """The callee's returned root as this function's, made at the call under ``when``."""
        origin = inner.origin or (inner.path, inner.line, inner.what)
        chain = (callee.qualname, *inner.chain)
        # the callee's own call of the helper it got the data from is a step on the way
        steps = ((inner.path, inner.line, inner.column, inner.what), *inner.steps) if inner.origin else ()
        what = None
        outer, self.state.path = self.state.path, when
        try:
            made = (self.recorder.readback(node, EMPTY, what, inner.code, chain, origin, steps, copy=inner.copy) if inner.kind == "read"
                    else self.recorder.built(node, what, chain, origin, steps, weak=inner.weak))
        finally:
            self.state.path = outer
        return as_scalar(made) if inner.scalar else made


def bind_arguments(callee: FunctionInfo, node: ast.Call, args: list[Value], kwargs: dict[str | None, Value],
          receiver: ast.expr | None, env: dict[str, Value], expr: Callable[[ast.expr, dict[str, Value]], Value]) -> dict[int, Value]:
    """Argument values by the callee's parameter index."""
    bound: dict[int, Value] = {}
    offset = 0
    if callee.class_name is not None and receiver is not None and callee.params:
        first = callee.params[0]
        if first in ("self", "cls"):
            bound[0] = expr(receiver, env) if not is_class_ref(receiver) else EMPTY
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
