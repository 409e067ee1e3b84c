"""Where host data goes: an upload (``sink``), an element write into a device tensor, a write
into host data that views a tensor, and a host loop that drives device copies."""

from __future__ import annotations

import ast
from dataclasses import replace
from typing import TYPE_CHECKING, Callable

from .._values import EMPTY, ArrayOf, FromInputs, Param, Root, Value, params, pending_of, roots, writes_back
from .events import Sink
from .state import Part
from .syntax import base_name


if TYPE_CHECKING:
    from .recorder import Recorder


class Writes(Part):
    #: What this part uses of the others (``Walk`` gives them).
    expr: Callable[[ast.expr | None, dict[str, Value]], Value]
    recorder: Recorder

    def sink(self, value: Value, how: Sink, known_upload: bool = True) -> Value:
        """Host data uploaded to a device. A Python scalar staged as a kernel operand is not
        a result computed on the host: it stays a host-sync candidate."""
        for root in roots(value):
            if not root.scalar:
                self.recorder.upload(root, how)
        for atom in value:
            if isinstance(atom, FromInputs):  # numpy's work on what it was given, uploaded here
                self.recorder.upload(self.recorder.root_at(atom.line, atom.column, "built", atom.what), how)
        if known_upload:
            self.facts.uploaded_params |= params(value)
            self.facts.array_uploads |= {a.index for a in value if isinstance(a, ArrayOf)}
        else:
            self.facts.maybe_uploaded_params |= params(value)
        return pending_of(value)

    def addresses(self, index: ast.expr, env: dict[str, Value]) -> Value:
        """What an index addresses elements with: its plain parts (``idx[i]``), not its slice
        bounds (``:actual_len``: a size, read back only to decide how much is copied)."""
        parts = index.elts if isinstance(index, ast.Tuple) else [index]
        found: Value = EMPTY
        for part in parts:
            if not isinstance(part, ast.Slice):
                found = found | self.expr(part, env)
        return found

    def write_element(self, target: ast.Subscript, container: Value, value: Value,
                      env: dict[str, Value], source: ast.expr | None = None, copies: bool = False,
                      index: Value = EMPTY) -> None:
        """``target = value`` (or ``+=``) into ``container``: host data written into a tensor
        made on the device is uploaded (``dev = torch.eye(4, device=d); dev[0, 2] = xs.tolist()[0]``);
        into host data, it is ``write_into``. Only a name bound to a call that names a device
        is known to be a tensor there: a parameter or another call's result may be a list."""
        base = base_name(target.value)
        if isinstance(target.value, ast.Name) and target.value.id in self.state.on_device:
            self.element_copy(target, source, env)
            outer, self.state.pending = self.state.pending, EMPTY
            if self.state.loops and self.is_item(source):
                # scalars read back, written one by one by a host loop (``out[0, 2] = cx`` for
                # ``cx`` in ``cxs.tolist()``): the tensor's data, through the host
                value = frozenset(replace(a, scalar=False) if isinstance(a, Root) and a.kind == "read" else a
                                  for a in value)
            self.sink(value, Sink("device_write"))
            written, self.state.pending = self.state.pending, outer
            if written:  # the tensor now holds data the host built: a finding if it is returned
                env[target.value.id] = env.get(target.value.id, EMPTY) | written
            return
        self.write_into(container, base, value, copies, index)

    def element_copy(self, target: ast.Subscript, source: ast.expr | None, env: dict[str, Value]) -> None:
        """An element of a device tensor written from ``source`` (``out[i] = a[int(idx[i])]``,
        ``out[pos].copy_(a[j])``): in a host loop, addresses read back are the host computing
        the op's result, one element copy at a time."""
        if not self.state.loops:
            return
        moved = self.addresses(target.slice, env)
        if source is not None:
            for sub in ast.walk(source):
                if isinstance(sub, ast.Subscript):
                    moved = moved | self.addresses(sub.slice, env)
        for root in roots(moved):
            if root.kind == "read":
                self.recorder.sunk(replace(root, scalar=False), Sink("drives_copies"))

    def is_item(self, source: ast.expr | None) -> bool:
        """``source`` is a value as it was read, not something computed from it: a name, or
        a scalar conversion of one (``float(v)``)."""
        if isinstance(source, ast.Call) and isinstance(source.func, ast.Name) and len(source.args) == 1 \
                and source.func.id in self.vocab.scalar_builtins:
            source = source.args[0]
        return isinstance(source, ast.Name)

    def contain(self, base: str, current: Value, value: Value) -> None:
        """``value`` is written into (or appended to) what ``base`` holds (``current``): its
        roots are data ``base`` contains, not memory it views (``out[i] = arr`` copies)."""
        own = frozenset(roots(current)) - self.state.contained.get(base, EMPTY)
        added = frozenset(roots(value)) - own
        if added:
            self.state.contained[base] = self.state.contained.get(base, EMPTY) | added

    def write_into(self, container: Value, base: str | None, value: Value = EMPTY, copies: bool = False,
                   index: Value = EMPTY) -> None:
        """A write into host data: when that data is a view of a device tensor, it is the tensor
        (and whatever host data is written lands in it, at the addresses ``index`` holds: data
        read back there picks what the host writes). ``base``: the name written through; data
        it holds only because it was written into it (``contain``) is not what it views."""
        # a Python scalar read back is a value, not a view of the tensor's memory
        # (``magnitude *= -1.0`` rebinds it)
        held = self.state.contained.get(base, EMPTY) if base is not None else EMPTY
        # a private copy (``.cpu()``) is no view: writing into it writes into no tensor
        read = [r for r in roots(container) if r.kind == "read" and not r.scalar and not r.copy and r not in held]
        if not read:
            return
        if copies and writes_back(read, value) and self.state.guards is not None and not self.state.guards.returns_result:
            # a helper that returns nothing copies its caller's data into its caller's tensor
            # (``_write_back(t, arr)``): an upload the caller makes, as with ``_from_numpy``
            self.sink(value, Sink("write_back"))
            self.facts.escaped |= set(read)
            return
        for root in (*read, *roots(value), *(r for r in roots(index) if r.kind == "read")):
            self.recorder.sunk(root, Sink("host_view"))

    def out_argument(self, kwargs: dict[str | None, Value]) -> None:
        """``out=`` of a host computation: a write into that host data (a view of a tensor?).
        (``out=`` a device tensor is an upload of the operands: ``call``.)"""
        out = kwargs.get("out")
        if out is not None:
            self.write_into(out, None)

    def device_index(self, index: Value) -> None:
        """A device tensor indexed with host data (``a[i]``, ``a[idx_array]``): the elements are
        picked on the device. In a loop, a read-back index picks an operand (control flow, a
        host sync) unless the loop collects what it picks (``picked``); outside one, an index
        array is uploaded as the gather's operand (a read-back scalar only chooses: a host sync)."""
        if not self.state.loops:
            self.sink(index, Sink("upload"), known_upload=False)

    def picked(self, index: Value) -> None:
        """An element of a device tensor at ``index``, collected by a host loop (``rows.append(a[i])``,
        ``[a[i] for i in ...]``): indices read back are addresses the host assembles the op's
        result from, one element at a time."""
        for root in roots(index):
            if root.kind == "read":
                self.recorder.sunk(replace(root, scalar=False), Sink("drives_copies"))

    def addressed(self, nodes: list[ast.expr], env: dict[str, Value], depth: int = 0) -> Value:
        """The parameters a pointer expression is metadata of (``t.data_ptr()``,
        ``ptr = buffer_contents(t._storage._metal_buffer)``), through locals bound once: whose
        memory a raw read or a device-to-host copy reads."""
        found: Value = EMPTY
        for node in nodes:
            for name in ast.walk(node):
                if isinstance(name, ast.Name):
                    found = found | frozenset(a for a in env.get(name.id, EMPTY) if isinstance(a, Param))
                    bound = self.state.constant(name.id) if depth < 3 and name.id in env else None
                    if bound is not None:
                        found = found | self.addressed([bound], env, depth + 1)
        return found

    def host_addressed(self, name: str, all_args: Value) -> None:
        """A device copy issued from a host loop with addresses computed from data read back
        (``memcpy_d2d(out + i, src + int(idx[i]) * n)``): the host computes the op's result."""
        if self.state.loops and self.vocab.device_copy.search(name):
            for root in roots(all_args):
                if root.kind == "read":  # the data read back, whether or not it was made a scalar
                    self.recorder.sunk(replace(root, scalar=False), Sink("drives_call", f"{name}()"))
