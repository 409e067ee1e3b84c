"""One checked backend function as the rules see it: its facts, where it is, and the
registry's words for what they find."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from ... import _codes
from ... import _semantics as sem
from ..._finding import Finding, Hop
from .._conditions import ALWAYS, Condition, render
from .._guards import parameter_names
from .._project import FunctionInfo, Project
from .._solver import Analysis, FunctionResult, root_order
from .._values import Root
from .._walk import Facts


@dataclass
class FunctionFacts:
    """What a rule reads of one backend function: its facts, its project and its device."""

    info: FunctionInfo
    facts: Facts
    project: Project
    #: The backend's device, and its package (the messages' ``{device}`` and ``{prefix}``).
    device: str
    prefix: str

    @classmethod
    def of(cls, result: FunctionResult, analysis: Analysis, project: Project) -> FunctionFacts | None:
        """The function of ``result``, if it is a backend function the rules look at."""
        info = result.info
        device = analysis.backends.device_of(info.module)
        if device is None or sem.is_host_copy_op(info.short):
            return None
        prefix = analysis.backends.backend_prefix_of(info.module) or info.module
        return cls(info, result.facts, project, device, prefix)

    @property
    def path(self) -> str:
        return self.project.display(self.info.path)

    @cached_property
    def own_roots(self) -> list[Root]:
        """Host data this function itself sends to the device or returns as its result, in
        root order; a root under a condition that cannot hold (``if x.device.type == "mps":``
        in the cuda backend) is on no path."""
        facts = self.facts
        return sorted({root for root, _ in facts.sunk if facts.when.get(root, ALWAYS)}, key=root_order)

    def condition(self, condition: Condition) -> str:
        """When a path is taken, as code is written over the parameters ("" for always); the
        function's preconditions (its validations that raise) hold on every path: not said."""
        assumed = self.facts.assumed
        if assumed:
            condition = frozenset(frozenset(t for t in c if t not in assumed) for c in condition)
            if frozenset() in condition:
                condition = ALWAYS
        return render(condition, parameter_names(self.info))

    def message(self, code: str, **fields: str) -> str:
        """The registry's check template for ``code``, filled, and the explain tail."""
        entry = _codes.BY_NAME[code]
        return f"{entry.messages[_codes.CHECK].format(device=self.device, prefix=self.prefix, **fields)}; " \
               f"{_codes.explain_tail(entry)}"

    def finding(self, code: str, line: int, column: int, message: str, chain: tuple[str, ...], anchor: str,
                hops: tuple[Hop, ...] = (), condition: str | None = None) -> Finding:
        shown = tuple(Hop(self.project.display(h.path), h.line, h.column, h.function, h.what) for h in hops)
        return Finding(self.path, line, column, code, message, self.info.qualname, self.device, chain, anchor, shown,
                       condition)


def when_text(condition: str) -> str:
    """`` when op == "argmax"`` (with its leading space), or "" for a path always taken."""
    return f" when {condition}" if condition else ""
