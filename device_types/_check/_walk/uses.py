"""How a call uses this function's parameters: as metadata (a size, a dim, a device) or as
data (an operand, a receiver). A parameter only ever passed as metadata is metadata to the
function's callers (``Summary.metadata_params``): host data they pass there (sizes read back)
sizes the output, and is not computed with."""

from __future__ import annotations

import ast

from ... import _semantics as sem
from .._project import FunctionInfo
from .._values import Value, params
from .state import Part

#: Keywords that name where and as what a tensor is made, never its data.
_PLACE_KEYWORDS = sem.PLACE_ATTRIBUTES


class ArgumentUses(Part):
    def named(self, name: str, dotted: str | None, callee: FunctionInfo | None, args: list[Value],
              kwargs: dict[str | None, Value], bound_receiver: bool) -> None:
        """A call of ``dotted`` (its last part ``name``; ``callee`` when the project defines it)."""
        if not any(params(value) for value in (*args, *kwargs.values())):
            return  # most calls: no parameter of this function in what they pass
        if callee is not None:
            metadata = self.resolver.summary(callee).metadata_params
            offset = 1 if bound_receiver and callee.class_name is not None and callee.params[:1] in (("self",), ("cls",)) else 0
            kwonly = {n: len(callee.params) + 1 + i for i, n in enumerate(callee.kwonly)}
            for position, value in enumerate(args):
                self.use(value, position + offset in metadata)
            for keyword, value in kwargs.items():
                index = callee.params.index(keyword) if keyword in callee.params else kwonly.get(keyword or "")
                self.use(value, index is not None and index in metadata)
            return
        top = (dotted or "").partition(".")[0]
        host = top in self.vocab.host_modules
        for position, value in enumerate(args):
            self.use(value, self.metadata(name, position, None, host, top))
        for keyword, value in kwargs.items():
            self.use(value, self.metadata(name, None, keyword, host, top))

    def method(self, name: str, receiver: Value, args: list[Value], kwargs: dict[str | None, Value],
               tensor: bool = True) -> None:
        """``receiver.name(...)``: the receiver is the data (a metadata read, ``x.size()``, is
        not); what a container method adds flows on, used where the container is."""
        if name in self.vocab.container_add_methods:
            return
        self.use(receiver, name in sem.METADATA)
        # (``tensor``: a tensor's method; of an object holding none, the function's form)
        for position, value in enumerate(args):
            self.use(value, sem.is_metadata_argument(name, position, None, method=tensor))
        for keyword, value in kwargs.items():
            self.use(value, keyword in _PLACE_KEYWORDS or sem.is_metadata_argument(name, None, keyword, method=tensor))

    def data(self, *values: Value) -> None:
        """Values a callee we cannot see is given: data."""
        for value in values:
            self.use(value, False)

    def metadata(self, name: str, position: int | None, keyword: str | None, host: bool, top: str) -> bool:
        if host:
            return top == "numpy" and name in self.vocab.host_metadata_functions
        if keyword in _PLACE_KEYWORDS or sem.is_metadata_argument(name, position, keyword):
            return True
        if name in sem.CREATION_FACTORIES:  # its sizes; not the values it is filled with
            values = sem.FACTORY_VALUE_ARGUMENTS.get(name, ())
            return not any(position == p or keyword == k for p, k in values)
        return False

    def use(self, value: Value, as_metadata: bool) -> None:
        found = params(value)
        if found:
            if as_metadata:
                self.facts.meta_params |= found
            else:
                self.facts.data_params |= found
