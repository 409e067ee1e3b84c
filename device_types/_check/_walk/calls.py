"""Calls by what they call: a method, a name the project, a host library or torch resolves,
a builtin or a callee we cannot see. Each one's transfer is read from the op-semantics table
and the host vocabulary; a call into the project goes to ``project_calls``."""

from __future__ import annotations

import ast
from dataclasses import replace
from typing import TYPE_CHECKING, Callable

from ... import _semantics as sem
from .. import _codes as codes
from .._conditions import Condition
from .._values import (COMPUTED, EMPTY, GUARDED_CPU, collected_data, ArrayOf, FromInputs, HostOnly, LoopFilled, Param, ReadOf, Root, Value, as_scalar, host_operands,
                       data_operands, is_host, overwritten, params, pending_of, roots, storage_step, wrapped)
from .recorder import RANGE
from .events import Sink
from .state import Part
from .syntax import (base_name, constructs, device_keywords, dotted_text, is_ctypes_array_type, literal_device, name_text, names_cpu, one_element,
                     shown, targets_device, converts_dtype_only)


_TRANSFER_METHODS = frozenset(sem.FIXED_TRANSFERS) | sem.TARGET_TRANSFERS
#: Python sequences written out: data of a tensor made from them is the host's, never a tensor's.
_SEQUENCE_DISPLAYS = (ast.List, ast.Tuple, ast.ListComp, ast.GeneratorExp, ast.Constant)


if TYPE_CHECKING:
    from .expressions import Expressions
    from .project_calls import ProjectCalls
    from .recorder import Recorder
    from .uses import ArgumentUses
    from .writes import Writes


class Calls(Part):
    #: What this part uses of the others (``Walk`` gives them).
    expr: Callable[[ast.expr | None, dict[str, Value]], Value]
    expressions: Expressions
    project_calls: ProjectCalls
    recorder: Recorder
    uses: ArgumentUses
    writes: Writes

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
                self.writes.sink(operands, Sink("out_write"))
        func = node.func
        if isinstance(func, ast.Call) and isinstance(func.func, ast.Name) and func.func.id == "getattr" \
                and func.func.id not in env and len(func.args) == 2 and isinstance(func.args[1], ast.Constant) \
                and isinstance(func.args[1].value, str) and func.args[1].value.isidentifier():
            func = ast.copy_location(ast.Attribute(func.args[0], func.args[1].value, ast.Load()), func)
            node = ast.copy_location(ast.Call(func, node.args, node.keywords), node)  # ``getattr(x, "cpu")()``
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Call) \
                and isinstance(func.value.func, (ast.Name, ast.Attribute)):
            made = self.resolver.resolve(self.info, self.state.scope, func.value.func)
            method = self.resolver.method(made, func.attr) if made is not None else None
            if method is not None:  # ``Erf().forward(x)``: the class's method
                return self.named_call(node, method, args, kwargs, all_args, env, receiver=func.value)
        base = base_name(func)
        local = base is not None and base in env and base not in ("self", "cls") and base not in self.state.scope
        if isinstance(func, ast.Attribute):
            if local and isinstance(func.value, ast.Name) and func.value.id in self.state.instances:
                method = self.resolver.method(self.state.instances[func.value.id], func.attr)
                if method is not None:  # ``s.pull(a)`` for ``s = Staging(dev)``: the class's method
                    return self.named_call(node, method, args, kwargs, all_args, env, receiver=func.value)
            # a local value shadows a module-level name: ``index.astype(...)`` where the module defines ``index``
            dotted = None if local else self.resolver.resolve(self.info, self.state.scope, func)
            if dotted is None:
                receiver = self.expr(func.value, env)
                return self.method_call(node, func, receiver, args, kwargs, all_args, env)
            return self.named_call(node, dotted, args, kwargs, all_args, env, receiver=func.value)
        if isinstance(func, ast.Name):
            dotted = None if local else self.resolver.resolve(self.info, self.state.scope, func)
            if dotted is None:
                if self.vocab.d2h_name.search(func.id) or any(self.vocab.d2h_name.search(name_text(a)) for a in node.args):
                    return self.d2h(node, func.id, env)  # a D2H copy we cannot see into
                kept = self.state.constant(func.id) if func.id in env else None
                if isinstance(kept, ast.Attribute):  # ``pull = a.cpu; pull()``: the method it names
                    return self.call(ast.copy_location(ast.Call(kept, node.args, node.keywords), node), env)
                if isinstance(kept, ast.Call) and kept.args and not isinstance(kept.args[0], ast.Starred) \
                        and self.resolver.resolve(self.info, self.state.scope, kept.func) == "functools.partial":
                    # ``to_cpu = partial(torch.Tensor.to, device="cpu"); to_cpu(a)``: the call it completes
                    completed = ast.Call(kept.args[0], [*kept.args[1:], *node.args], [*kept.keywords, *node.keywords])
                    return self.call(ast.copy_location(completed, node), env)
                if func.id in self.state.lambdas:
                    return self.inlined(self.state.lambdas[func.id], func.id, args, kwargs, env)
                if func.id in env:  # a local callable value: unknown
                    self.uses.data(all_args)
                    return self.unknown_call(node, func.id, all_args, kwargs, args)
                return self.builtin_call(node, func.id, args, all_args, kwargs)
            return self.named_call(node, dotted, args, kwargs, all_args, env)
        if isinstance(func, ast.Call):  # np.vectorize(math.erf)(arr): a host function built on the spot
            maker = self.resolver.resolve(self.info, self.state.scope, func.func)
            if maker is not None and maker.partition(".")[0] in self.vocab.host_modules:
                self.expr(func, env)
                return all_args | (frozenset({COMPUTED}) if is_host(all_args) else EMPTY)
        if isinstance(func, ast.Lambda):  # ``(lambda t: t.cpu())(a)``
            return self.inlined(func, "", args, kwargs, env)
        if is_ctypes_array_type(func, lambda e: self.resolver.resolve(self.info, self.state.scope, e)):
            return frozenset({HostOnly("ctypes buffer")})  # (ctypes.c_char * n)(): host memory
        # ``steps[idx](x)``: what picks the callee is control flow; the callee is code, not data
        self.expr(func, env)
        self.uses.data(all_args)
        return self.unknown_call(node, "", all_args, kwargs, args)

    def inlined(self, function: ast.Lambda, name: str, args: list[Value], kwargs: dict[str | None, Value],
                env: dict[str, Value]) -> Value:
        """A call of a lambda: its body, with its parameters bound to what the call passes (a
        local function is part of the function that defines it, so its steps are this one's)."""
        inner = dict(env)
        inner.pop(name, None)  # a lambda that calls itself by name is not run again
        spec = function.args
        positional = [*spec.posonlyargs, *spec.args]
        defaults = dict(zip(reversed(positional), reversed(spec.defaults)))
        for index, parameter in enumerate(positional):
            given = args[index] if index < len(args) else kwargs.get(parameter.arg)
            inner[parameter.arg] = given if given is not None else self.expr(defaults.get(parameter), env)
        for parameter in spec.kwonlyargs:
            inner[parameter.arg] = kwargs.get(parameter.arg, EMPTY)
        if spec.vararg is not None:
            inner[spec.vararg.arg] = frozenset().union(*args[len(positional):])
        lambdas = self.state.lambdas
        self.state.lambdas = {k: v for k, v in lambdas.items() if v is not function}
        try:
            return self.expr(function.body, inner)
        finally:
            self.state.lambdas = lambdas

    def method_call(self, node: ast.Call, func: ast.Attribute, receiver: Value, args: list[Value],
                    kwargs: dict[str | None, Value], all_args: Value, env: dict[str, Value]) -> Value:
        name = func.attr
        self.uses.method(name, receiver, args, kwargs, self.of_a_tensor(func, receiver))
        if name in sem.METADATA:
            return EMPTY
        if name in self.vocab.storage_names and not node.args and not node.keywords:
            step = storage_step(name, receiver, self.vocab)  # t.untyped_storage(), then its .buffer()
            if step is not None:
                return self.recorder.readback(node, step[0], None, codes.READBACK) if step[1] else step[0]
        if name in self.vocab.raw_memory_reads:
            return self.raw_memory(node, name, all_args, env)
        if self.vocab.host_allocation.search(name):
            return frozenset({HostOnly(name)})
        if any(self.vocab.d2h_name.search(name_text(a)) for a in node.args):
            return self.d2h(node, name, env)
        if name in self.vocab.host_rng_methods and not is_host(receiver) and self.vocab.rng_receiver.search(dotted_text(func.value)):
            return all_args | self.recorder.built(node, f'host RNG "{dotted_text(func)}()"')
        if name in _TRANSFER_METHODS:
            return self.transfer(node, func, receiver, name, env)
        if name == sem.LEGACY_TYPE_METHOD and node.args and legacy_cpu_type(node.args[0]) and not is_host(receiver):
            return self.recorder.readback(node, receiver, f'".type({dotted_text(node.args[0]) or "cpu type"})"',
                                          codes.CPU_TARGET, copy=True)  # ``x.type(torch.FloatTensor)``
        if name in sem.RECEIVER_DATA_FACTORIES and not is_host(receiver):  # ``a.new_tensor(host)``: uploaded
            data = args[0] if args else kwargs.get("data", EMPTY)
            return self.writes.sink(data, Sink("upload_with", f".{name}()"), known_upload=False)
        if name in sem.HOST_SYNCS:
            if is_host(receiver):
                return as_scalar(receiver)
            return as_scalar(self.recorder.readback(node, receiver, f'".{name}()"', codes.READBACK))
        if self.vocab.upload_name.search(name) and not is_host(receiver):
            # ``like.from_numpy(arr)``: an upload by name, called on a device tensor (its name
            # may also read like a readback: the upload is the one it is)
            return self.writes.sink(all_args, Sink("upload_with", f".{name}()"))
        if name in sem.READBACKS or self.vocab.readback_name.search(name) \
                or (name in self.vocab.argless_readbacks and not node.args and params(receiver)):
            if is_host(receiver) or self.host_library_result(func.value):
                return receiver | all_args
            return self.recorder.readback(node, receiver, f'".{name}()"', codes.READBACK,
                                          scalar_items=name in sem.SCALAR_ELEMENT_READBACKS)
        if name in sem.SHAPE_ARGUMENT_OPS:  # x.split(sizes): the sizes are metadata
            # (called on what a call returned that holds no tensor data, ``backend_for(d).sort(x,
            # axis)``, the function's form: ``x`` is its data)
            all_args = data_operands(name, args, kwargs, False, method=self.of_a_tensor(func, receiver)) or EMPTY
        if is_host(receiver):
            source = args[0] if args else EMPTY
            if name in sem.COPY_SOURCES and source and not is_host(source) and params(source):
                # ``host.copy_(a)`` into a CPU tensor (``empty_like(a, device="cpu")``, a pinned
                # buffer): a device-to-host copy; the buffer holds the tensor's data now
                value = self.recorder.readback(node, source, f'{shown(node)} (into a CPU tensor)', codes.READBACK, copy=True)
                base = base_name(func.value)
                if base is not None and isinstance(func.value, ast.Name):
                    env[base] = overwritten(frozenset(a for a in env.get(base, EMPTY) if not isinstance(a, HostOnly))) | value
                return value
            if name in self.vocab.shape_after_data_functions:  # arr.reshape(shape): the shape is metadata
                all_args = host_operands(all_args) - {COMPUTED}
            if name in self.vocab.host_in_place_methods:
                self.writes.write_into(receiver, base_name(func.value))
            if name in self.vocab.container_add_methods:
                base = base_name(func.value)
                if base is not None:
                    self.writes.contain(base, env.get(base, EMPTY), all_args)
                    env[base] = env.get(base, EMPTY) | all_args
            self.writes.out_argument(kwargs)
            rearranges = name in self.vocab.host_conversions or name in sem.LAYOUT_OPS  # computes nothing
            computed = frozenset({COMPUTED}) if not rearranges and name not in self.vocab.container_add_methods else EMPTY
            if name in self.vocab.private_copies:  # ``arr.copy()``: a write into it writes into no tensor
                receiver = private_copy(receiver)
            return receiver | all_args | computed
        if name in self.vocab.container_add_methods:
            for argument in node.args:
                self.expressions.collect(argument, env)
            base = base_name(func.value)
            if base is not None:
                all_args = all_args | self.state.control  # appended where data read back decided it
                computes = self.state.loops and not all(self.expressions.collected(a) for a in node.args)
                if computes:  # elements of a readback, or scalars computed with, collected one by one
                    all_args = collected_data(all_args)
                filled = frozenset({self.recorder.filled(LoopFilled(base, node.lineno, node.col_offset))}) if computes else EMPTY
                self.writes.contain(base, env.get(base, EMPTY), all_args)
                env[base] = env.get(base, EMPTY) | all_args | filled
            return EMPTY
        if name in self.vocab.raw_copies and len(node.args) > 1:  # ``queue.memcpy(dst, src)``
            return self.raw_copy(node, dotted_text(func) or name, name, args, all_args, env)
        if name in sem.COPY_SOURCES:  # ``out.copy_(host)``: the source is written into the tensor
            element = func.value
            if isinstance(element, ast.Subscript) and isinstance(element.value, ast.Name) \
                    and self.expressions.device_tensor(element.value, env.get(element.value.id, EMPTY)):
                self.writes.element_copy(element, node.args[0] if node.args else None, env)
            self.writes.sink(all_args, Sink("copy_into", f".{name}()"))
            return receiver
        if name in self.vocab.passthrough_methods:
            return receiver
        return self.unknown_call(node, name, all_args | receiver, kwargs, args)

    @staticmethod
    def of_a_tensor(func: ast.Attribute, receiver: Value) -> bool:
        """Whether ``receiver.method(...)`` is a tensor's method: not one of an object a call
        returned that holds no tensor data (a dispatcher, a backend: ``backend_for(d).sort(x)``)."""
        return bool(receiver) or not isinstance(func.value, ast.Call)

    def transfer(self, node: ast.Call, func: ast.Attribute, receiver: Value, name: str, env: dict[str, Value]) -> Value:
        target = sem.FIXED_TRANSFERS.get(name)
        if name in sem.TARGET_TRANSFERS:
            if converts_dtype_only(node):  # ``.to(torch.float)``, ``.to(x.dtype)``: same place
                return receiver
            target = literal_device(node, self.state.constant) or self.cpu_donor(node, env)
        if target == "cpu":
            if is_host(receiver):
                return receiver
            code = codes.CPU_CALL if name in sem.FIXED_TRANSFERS else codes.CPU_TARGET
            shown = f'".{name}()"' if name in sem.FIXED_TRANSFERS else f'".{name}({target_written(node)})"'
            return self.recorder.readback(node, receiver, shown, code, copy=True)  # a transfer copies
        if is_host(receiver) or params(receiver):
            self.writes.sink(receiver, Sink("upload_with", f".{name}()"))
        return pending_of(receiver)

    def cpu_donor(self, node: ast.Call, env: dict[str, Value]) -> str | None:
        """``"cpu"`` for ``.to(ref)`` or ``.to(ref.device)`` where ``ref`` holds a tensor the walk
        made on the CPU (``torch.empty(0)``, ``t.cpu()``) or host data: its device is the CPU."""
        for candidate in (*device_keywords(node, self.state.constant), *node.args[:1]):
            if isinstance(candidate, ast.Attribute) and candidate.attr == sem.DEVICE_PARAMETER:
                candidate = candidate.value
            if isinstance(candidate, ast.Name):
                held = env.get(candidate.id, EMPTY) - {GUARDED_CPU}
                if is_host(held) and not any(isinstance(a, Root) and a.scalar for a in held):
                    return "cpu"
        return None

    def named_call(self, node: ast.Call, dotted: str, args: list[Value], kwargs: dict[str | None, Value],
                   all_args: Value, env: dict[str, Value], receiver: ast.expr | None = None) -> Value:
        declared = self.resolver.declared(dotted)
        head, _, last = dotted.rpartition(".")
        callee = self.resolver.function(dotted)
        self.uses.named(last, dotted, callee, args, kwargs, receiver is not None)
        if head == sem.TENSOR_CLASS and node.args and not isinstance(node.args[0], ast.Starred):
            # ``torch.Tensor.cpu(a)``: the method, unbound: what ``a.cpu()`` does
            method = ast.copy_location(ast.Attribute(node.args[0], last, ast.Load()), node.func)
            bound = ast.copy_location(ast.Call(method, node.args[1:], node.keywords), node)
            return self.method_call(bound, method, args[0], args[1:], kwargs, all_args, env)
        if declared == "readback":
            first = args[0] if args else EMPTY
            return first if is_host(first) else self.recorder.readback(node, first, shown(node), codes.READBACK)
        if declared == "upload":
            return self.writes.sink(args[0] if args else all_args, Sink("upload_with", f"{last}()"))
        if any(self.vocab.d2h_name.search(name_text(a)) for a in node.args):  # memcpy(dst, src, n, DEVICE_TO_HOST)
            return self.d2h(node, dotted, env)
        direction = self.copy_direction(node, last)
        if direction == "other":
            return EMPTY
        if direction == "d2h":  # acl.rt.memcpy(dst, n, src, n, 2), a wrapper of the same name too
            return self.d2h(node, dotted, env)
        if direction == "h2d":
            api = self.vocab.copy_api[last]
            if api.source < len(args):  # (what is pending stays with the destination: ``copied_into``)
                return self.writes.sink(args[api.source], Sink("h2d_copy", f"{last}()"))
            return EMPTY
        if callee is not None:
            return self.project_calls.project_call(node, callee, args, kwargs, env, receiver)
        top = dotted.partition(".")[0]
        if last in sem.SHAPE_ARGUMENT_OPS and top not in self.vocab.host_modules:
            operands = data_operands(last, args, kwargs, any(isinstance(a, ast.Starred) for a in node.args))
            if operands is not None:  # torch.split(x, sizes): the sizes are metadata, x is the data
                all_args = operands
        if dotted in self.vocab.buffer_writers and len(node.args) >= 4:
            written = frozenset().union(*args[3:])
            if roots(written):  # data read back or built, not the user's scalar staged as an operand
                self.writes.write_into(args[1], base_name(node.args[1]), written)
            else:  # a mapped buffer only written into: nothing was read from it
                self.facts.escaped |= {r for r in roots(args[1]) if r.kind == "read"}
            return EMPTY
        if dotted in self.vocab.scalar_decoders:  # struct.unpack("f", raw)[0]: Python scalars
            return as_scalar(all_args)
        if self.vocab.device_copy.search(last) and last not in self.vocab.raw_copies:
            copied = self.opaque_copy(node, dotted, list(node.args), args, env)
            if copied is not None:
                return copied
        if self.vocab.d2h_name.search(dotted):
            return self.d2h(node, dotted, env)
        if self.vocab.upload_name.search(last):
            return self.writes.sink(all_args, Sink("upload_with", f"{last}()"))
        if self.vocab.host_allocation.search(last):
            return frozenset({HostOnly(last)})
        if last in self.vocab.raw_copies:
            return self.raw_copy(node, dotted, last, args, all_args, env)
        if top in self.vocab.host_modules:
            return self.host_library_call(node, dotted, last, args, all_args, kwargs, env)
        if top == "torch" or top == "ctypes":
            if last in sem.TENSOR_DATA_FACTORIES or last in sem.HOST_FACTORIES:
                if targets_device(node, self.state.constant):
                    self.writes.sink(all_args, Sink("upload_with", f"{last}()"))
                    for root in self.recorder.loop_roots(all_args):
                        self.recorder.upload(root, Sink("upload_with", f"{last}()"))
                if targets_device(node, self.state.constant):
                    return EMPTY
                data = node.args[0] if node.args else None
                if names_cpu(node, self.state.constant) and data is not None and not is_host(all_args) \
                        and self.expressions.device_tensor(data, args[0] if args else EMPTY) \
                        and not any(not_an_instance(self.state.path, index) for index in params(all_args)):
                    # ``torch.as_tensor(x, device="cpu")`` of the op's tensor: a copy to the host
                    return self.recorder.readback(node, all_args, f'"{last}(device=\"cpu\")"'.replace("\\", ""),
                                                  codes.CPU_TARGET, copy=True)
                if params(all_args) and not isinstance(data, _SEQUENCE_DISPLAYS):
                    return all_args  # ``torch.as_tensor(x)``: x's device, whatever it is
                # ``torch.tensor(idx)``: a CPU tensor of the host's data (a loop's list: built there)
                built = frozenset(self.recorder.loop_roots(all_args))
                return frozenset(a for a in all_args if not isinstance(a, LoopFilled)) | built \
                    | frozenset({HostOnly(f"{last}() on the CPU")})
            if last in self.vocab.raw_memory_reads:
                return self.raw_memory(node, last, all_args, env)
            if last in self.vocab.host_buffer_factories:
                return frozenset({HostOnly(last)})
            if self.vocab.host_allocation.search(last):
                return frozenset({HostOnly(last)})
            if targets_device(node, self.state.constant):
                # created on the device (``torch.zeros(n, device=x.device)``): host values
                # among its arguments are uploaded (a Python scalar sizes or fills it: no
                # upload of data, ``sink``), and the result is no host data; a creation
                # factory's sizes are metadata (``torch.empty(count)``), its values are data
                values = factory_values(last, args, kwargs) if last in sem.CREATION_FACTORIES else all_args
                return self.writes.sink(values, Sink("upload_by", f"{last}()"), known_upload=False)
            if last in sem.CREATION_FACTORIES and not any(k.arg == sem.DEVICE_PARAMETER for k in node.keywords):
                # ``torch.arange(n)``: made on the CPU (no device named), from sizes: host memory
                # holding nobody's device data; reading it back reads nothing from a device
                return frozenset({HostOnly(f"{last}() on the CPU")})
            if names_cpu(node, self.state.constant):
                # ``torch.linspace(0, r, n, device="cpu")``: a tensor made on the host, whose
                # ``.tolist()`` reads no device data (uploaded, it is host-built data)
                return all_args | self.recorder.built(node, f'"{dotted}()" on the host')
            return all_args | host_operands(all_args) if is_host(all_args) else EMPTY
        if self.vocab.readback_name.search(last) and "dtype" not in last.lower():
            if len(node.args) > 1:  # ``copy_to_host(buf, out)``: into the host buffer given
                copied = self.opaque_copy(node, dotted, list(node.args), args, env, wrapped=False)
                if copied is not None:
                    return copied
            first = args[0] if args else EMPTY
            if is_host(first):
                return first
            return self.recorder.readback(node, first, shown(node), codes.READBACK)
        if last in self.vocab.tensor_factories:  # mindspore.tensor(arr): a device tensor of host data
            # its data is the first argument; a shape or stride after it (``Tensor(storage, shape,
            # stride)``) is metadata; what it wraps travels with it (``wrapped``)
            data_arg: Value = args[0] if args else kwargs.get("data", EMPTY)
            return self.writes.sink(data_arg, Sink("upload_by", f"{last}()"), known_upload=False) | wrapped(data_arg)
        return self.unknown_call(node, last, all_args, kwargs, args)

    def raw_copy(self, node: ast.Call, dotted: str, last: str, args: list[Value], all_args: Value,
                 env: dict[str, Value]) -> Value:
        """``memmove(dst, src, n)``, ``queue.memcpy(dst, src)``: into host memory from a pointer
        that is tensor metadata (``t.data_ptr()``), a device-to-host read; otherwise host data
        copied to the device (a parameter there may be the user's array: not known to be read)."""
        self.writes.host_addressed(last, all_args)
        if len(args) > 1 and is_host(args[0]) and not args[1]:
            return self.d2h(node, dotted, env)
        if len(args) > 1 and is_host(args[0]) and is_host(args[1]):
            # host memory to host memory (``memmove(arr.ctypes.data, pinned, n)``): the
            # destination holds the source's data now, no upload
            destination = node.args[0]
            while isinstance(destination, ast.Call) and destination.args:
                destination = destination.args[0]
            base = base_name(destination)
            if base is not None:
                env[base] = env.get(base, EMPTY) | args[1]
            return EMPTY
        uploaded: Value = EMPTY
        for value in args[1:]:
            uploaded = uploaded | self.writes.sink(value, Sink("h2d_copy", f"{last}()"))
        return uploaded

    def host_library_call(self, node: ast.Call, dotted: str, last: str, args: list[Value], all_args: Value,
                          kwargs: dict[str | None, Value], env: dict[str, Value]) -> Value:
        module = dotted.rpartition(".")[0]
        if last in self.vocab.host_metadata_functions and module.partition(".")[0] == "numpy":
            return EMPTY
        if module.partition(".")[0] == "numpy":
            all_args = all_args | self.tensors_read(node, args)
        self.writes.out_argument(kwargs)
        if last in self.vocab.host_writing_functions and args and module.partition(".")[0] == "numpy":
            written, base = frozenset().union(*args[1:]), base_name(node.args[0])
            self.writes.write_into(args[0], base, written)
            if base is not None and host_operands(written):  # (into a copy: what it holds now)
                self.writes.contain(base, env.get(base, EMPTY), host_operands(written))
                env[base] = env.get(base, EMPTY) | host_operands(written)
        if any(module == m or module.startswith(m + ".") for m in self.vocab.host_rng_modules) or dotted in self.vocab.host_rng_modules:
            return all_args | self.recorder.built(node, f'host RNG "{dotted}()"')
        if module.partition(".")[0] == "numpy" and last in self.vocab.host_array_allocators:
            return frozenset({HostOnly(f'numpy "{last}()"')})  # host memory holding nothing yet
        if module.partition(".")[0] == "numpy" and last in self.vocab.host_array_builders:
            built = self.recorder.built(node, f'numpy "{last}()"', weak=True)
            if last in self.vocab.shape_first_builders and node.args and one_element(node.args[0]):
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
            built = frozenset(self.recorder.loop_roots(data)) | frozenset(ArrayOf(i) for i in params(data))
            all_args = frozenset(a for a in all_args if not isinstance(a, (LoopFilled, ArrayOf))) | built
        if last in self.vocab.private_copies and module.partition(".")[0] == "numpy" \
                and not any(k.arg == "copy" and isinstance(k.value, ast.Constant) and not k.value.value for k in node.keywords):
            all_args = private_copy(all_args)  # ``np.copy(arr)``, ``np.array(arr)``: a copy, no view
        if module.partition(".")[0] == "numpy" and last not in self.vocab.host_conversions and not is_host(all_args) \
                and self.given_as_data(node, args, arrays_only=last in self.vocab.index_arithmetic_functions):
            return all_args | frozenset({FromInputs(node.lineno, node.col_offset, f'numpy "{last}()"')})
        if last in self.vocab.host_conversions or not is_host(all_args):
            return all_args
        metadata_only = not any(isinstance(a, (ReadOf, HostOnly)) or (isinstance(a, Root) and not a.weak)
                                for a in all_args)
        if metadata_only and last in self.vocab.index_arithmetic_functions:
            return all_args  # offsets from strides, an index map: metadata still
        if last not in self.vocab.shape_after_data_functions and metadata_only:
            # numpy computing with data built from metadata alone (``np.cos(angles)``): what it
            # makes is computed data, no longer metadata; rearranging (``np.tile``) is not computing
            computed = frozenset(a for a in all_args if not (isinstance(a, Root) and a.weak))
            return computed | self.recorder.built(node, f'numpy "{last}()"') | frozenset({COMPUTED})
        return all_args | frozenset({COMPUTED})

    def host_library_result(self, expr: ast.expr) -> bool:
        """``expr`` is what a host library's function returned (``np.multiply(shape, reps)``,
        directly or through a local bound once): host memory, whatever it was computed from, so
        its ``.tolist()`` reads nothing from a device."""
        guards = self.state.guards
        if isinstance(expr, ast.Name) and guards is not None and expr.id in guards.bound_once:
            expr = guards.bound_once[expr.id]
        if isinstance(expr, ast.BinOp):  # ``np.atleast_1d(axis) % x.ndim``: numpy's array still
            return self.host_library_result(expr.left) or self.host_library_result(expr.right)
        if isinstance(expr, ast.Subscript):  # ``np.asarray(strides)[list(axes)]``: part of one
            return self.host_library_result(expr.value)
        if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) \
                and self.host_library_result(expr.func.value):
            return True  # ``strides.astype(np.int64)``: a method of numpy's array gives another
        if not (isinstance(expr, ast.Call) and isinstance(expr.func, (ast.Name, ast.Attribute))):
            return False
        dotted = self.resolver.resolve(self.info, self.state.scope, expr.func)
        return dotted is not None and dotted.partition(".")[0] in self.vocab.host_modules

    def given_as_data(self, node: ast.Call, args: list[Value], arrays_only: bool = False) -> bool:
        """numpy is given what the function was given, as it was (a parameter, or one made an
        array: ``np.asarray(x)``); not a number computed from one (``np.floor(i * w / size[0])``).
        ``arrays_only``: index arithmetic (``np.argsort``, ``np.cumsum``) computes with data only
        where it is given an array of it, a bare parameter being a size list as often."""
        for argument, value in zip(node.args, args):
            if any(isinstance(a, ArrayOf) for a in value) or not arrays_only and isinstance(argument, ast.Name) \
                    and argument.id in self.info.params and argument.id not in ("self", "cls") \
                    and any(isinstance(a, Param) for a in value):
                return True
        return False

    def tensors_read(self, node: ast.Call, args: list[Value]) -> Value:
        """numpy given the op's tensor as it was passed (``np.asarray(a)`` where the body uses
        ``a.device``: ``GuardReader.tensor_params``) reads its data back; ``args`` are updated."""
        guards = self.state.guards
        read: Value = EMPTY
        if guards is None:
            return read
        for index, argument in enumerate(node.args[:len(args)]):
            if isinstance(argument, ast.Name) and argument.id in guards.tensor_params \
                    and params(args[index]) and not is_host(args[index]):
                args[index] = self.recorder.readback(node, args[index], shown(node), codes.READBACK)
                read = read | args[index]
        return read

    def opaque_copy(self, node: ast.Call, dotted: str, nodes: list[ast.expr], values: list[Value],
                    env: dict[str, Value], wrapped: bool = True) -> Value | None:
        # (``wrapped``: the callee is a copy by its name, not a read by its name)
        """A copy we cannot see into (``enqueue_copy(queue, dst, src)``, ``copy_to_host(buf, out)``),
        its direction read from what it is given: into host memory (``np.empty``) from the op's
        tensors, a device-to-host read that the buffer holds after it; from host data (read
        back, built, the user's array) beside the op's tensors, an upload. Given only this
        function's parameters, it copies between them (``Facts.copy_params``: its callers
        decide). None where neither is known."""
        short = dotted.rpartition(".")[2]
        tensors = [v for n, v in zip(nodes, values) if params(v) and not is_host(v)]
        memory = [n for n, v in zip(nodes, values) if base_name(n) is not None
                  and any(isinstance(a, HostOnly) for a in v) and not roots(v)]
        if memory and tensors:
            read = self.recorder.readback(node, frozenset().union(*tensors), f'"{short}()" (device-to-host copy)',
                                          codes.READBACK, copy=True)  # (host memory of its own: no view)
            for destination in memory:
                base = base_name(destination)
                assert base is not None
                env[base] = overwritten(env.get(base, EMPTY)) | read
            return EMPTY
        if not wrapped:  # a read by its name (``map_buffer(q, buf, n)``): only into memory given
            return None
        data = [v for v in values if host_operands(v) or any(isinstance(a, (ArrayOf, FromInputs)) for a in v)]
        if data and tensors:
            for value in data:
                self.writes.sink(value, Sink("h2d_copy", f"{short}()"))
            return EMPTY
        if wrapped and values and all(params(v) and not is_host(v) for v in values if v):
            self.facts.copy_params |= set().union(*(params(v) for v in values))
        return None

    def d2h(self, node: ast.Call, dotted: str, env: dict[str, Value]) -> Value:
        """A device-to-host memcpy: its destination (first argument) now holds device data."""
        short = dotted.rpartition(".")[2]
        sources = self.writes.addressed(node.args[1:], env)  # the device pointer is metadata of a tensor: whose?
        value = self.recorder.readback(node, sources, f'"{short}()" (device-to-host copy)', codes.READBACK)
        if node.args:
            destination = node.args[0]
            while isinstance(destination, ast.Call) and destination.args:  # ctypes.addressof(buf), int(p)
                destination = destination.args[0]
            base = base_name(destination)
            if base is not None:
                current = env.get(base, EMPTY)
                for index in params(current):
                    self.facts.reads_into.add(index)
                    self.facts.escaped |= set(roots(value))
                env[base] = overwritten(current) | value
        return value

    def raw_memory(self, node: ast.Call, name: str, pointer: Value, env: dict[str, Value]) -> Value:
        """A view of raw memory (``from_address``): what the pointer holds, when that is known
        (host memory, data already read back); otherwise device memory read by the host, of
        the parameter whose buffer the pointer addresses (a readback primitive reads its own)."""
        if pointer:
            return pointer
        sources = self.writes.addressed(node.args, env)
        return self.recorder.readback(node, sources, f'"{name}()" (raw memory read)', codes.READBACK)

    def builtin_call(self, node: ast.Call, name: str, args: list[Value], all_args: Value,
                     kwargs: dict[str | None, Value]) -> Value:
        if name in self.vocab.metadata_builtins:
            return EMPTY
        if name in self.vocab.scalar_builtins:
            return as_scalar(all_args)
        if name in self.vocab.host_builtins:
            return all_args | (frozenset({COMPUTED}) if is_host(all_args) and name not in self.vocab.plain_builtins else EMPTY)
        if name == "range":  # a counter sequence: host-built index data once materialised
            for value in args:  # its bounds are counts: metadata (``for _ in range(levels - 1)``)
                self.uses.use(value, True)
            return frozenset({LoopFilled(RANGE, node.lineno, node.col_offset)})
        if name in self.vocab.inert_builtins:
            return EMPTY
        self.uses.data(all_args)
        return self.unknown_call(node, name, all_args, kwargs, args)

    def copy_direction(self, node: ast.Call, name: str) -> str | None:
        """``"d2h"``/``"h2d"`` for a copy whose direction is an argument value (``_vocabulary.CopyApi``),
        ``"other"`` for another direction written out (device to device)."""
        api = self.vocab.copy_api.get(name)
        if api is None or api.kind >= len(node.args):
            return None
        kind = node.args[api.kind]
        value = kind.value if isinstance(kind, ast.Constant) else name_text(kind) or None
        if value in api.device_to_host:
            return "d2h"
        if value in api.host_to_device:
            return "h2d"
        if isinstance(kind, ast.Constant) and isinstance(kind.value, int):
            return "other"  # another direction written out (3: device to device): neither
        return None

    def unknown_call(self, node: ast.Call, name: str, all_args: Value, kwargs: dict[str | None, Value],
                     args: list[Value]) -> Value:
        """A callee we cannot see: a device kernel, unless it names a device as its target."""
        self.writes.host_addressed(name, all_args)
        if self.vocab.upload_name.search(name):
            return self.writes.sink(all_args, Sink("upload_by", f"{name}()"))
        if targets_device(node, self.state.constant):
            return self.writes.sink(all_args, Sink("upload_by", f"{name}()") if name else Sink("upload"), known_upload=False)
        if self.vocab.conversion_name.search(name):  # re-typed raw data: what it got, as it is
            return frozenset(a for a in all_args if isinstance(a, (Root, ReadOf, HostOnly, Param)))
        if constructs(name):  # a class wraps what it is given (``Tensor(storage, shape)``)
            # memory read back that an object now holds (a storage around a mapped buffer)
            # decides nothing here: no host sync (an error raised with it validates with it)
            if not self.state.raising:
                self.facts.escaped |= {r for r in roots(all_args) if r.kind == "read"}
            return wrapped(all_args)
        # a callee we cannot see runs where its operands are: given host data, its result is
        # host data, and uploading it uploads what the host made. Whether it computes or only
        # converts (``Image.fromarray``) is not known: returned as is, it is no finding (unless
        # what it was given was computed on the host already: ``run(y.log())``)
        return host_operands(all_args) - ({COMPUTED} if COMPUTED not in all_args else set())


def private_copy(value: Value) -> Value:
    """``value``'s data read back, as a private copy (``Root.copy``): not a view of a tensor."""
    return frozenset(replace(a, copy=True) if isinstance(a, Root) and a.kind == "read" else a for a in value)


def target_written(node: ast.Call) -> str:
    """The target of a ``.to(...)`` as written (``HOST``, ``**where``, ``ref.device``), or
    ``"cpu"`` where it says so."""
    written = [*node.args[:1], *(k.value for k in node.keywords if k.arg == sem.DEVICE_PARAMETER)]
    if any(isinstance(w, ast.Constant) and w.value == "cpu" for w in written):
        return '"cpu"'
    unpacked = [f"**{ast.unparse(k.value)}" for k in node.keywords if k.arg is None]
    return ", ".join([ast.unparse(w) for w in written] + unpacked) or '"cpu"'


def factory_values(name: str, args: list[Value], kwargs: dict[str | None, Value]) -> Value:
    """What a creation factory fills its tensor with (``sem.FACTORY_VALUE_ARGUMENTS``): not its
    sizes, dtype or seed."""
    value: Value = EMPTY
    for position, keyword in sem.FACTORY_VALUE_ARGUMENTS.get(name, ()):
        value = value | (args[position] if position < len(args) else kwargs.get(keyword, EMPTY))
    return value


def legacy_cpu_type(node: ast.expr) -> bool:
    """``torch.FloatTensor`` or ``"torch.FloatTensor"``: a legacy CPU tensor type
    (``sem.LEGACY_CPU_TYPES``)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        head, _, last = node.value.rpartition(".")
        return head == "torch" and last in sem.LEGACY_CPU_TYPES
    return isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "torch" \
        and node.attr in sem.LEGACY_CPU_TYPES


def not_an_instance(path: Condition, index: int) -> bool:
    """Whether every way ``path`` holds tests parameter ``index`` not to be an instance of a
    class (``if not isinstance(factor, torch.Tensor): factor = torch.tensor(factor, ...)``):
    the user's Python data there, not the op's tensor."""
    return bool(path) and all(
        any(not test.positive and test.values is None and test.subject[0] == "c"
            and test.subject[1] == "builtins.isinstance" and test.subject[2][:1] == (("p", index, ()),)
            for test in conjunction)
        for conjunction in path)
