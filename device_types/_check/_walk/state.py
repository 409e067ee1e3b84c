"""What every part of one function's walk shares: the function, the project's answers, and
the state of the walk at the statement being walked."""

from __future__ import annotations

import ast
from typing import Protocol

from ..._vocabulary import HostVocabulary
from .._conditions import ALWAYS, Condition, Test
from .._guards import GuardReader
from .._project import FunctionInfo
from .._summary import Summary
from .._values import EMPTY, Value
from .events import Facts



class Resolver(Protocol):
    """What the walk asks of the project (``_solver`` answers)."""

    def resolve(self, info: FunctionInfo, scope: dict[str, str], expr: ast.expr) -> str | None:
        """Dotted name of a callee expression: ``numpy.zeros``, ``pkg.mod.func``, ``pkg.mod.Class.meth``."""

    def function(self, dotted: str) -> FunctionInfo | None: ...

    def method(self, class_dotted: str, attr: str) -> str | None:
        """Dotted name of the method ``attr`` of the project class ``class_dotted`` (or of one of
        its project bases); None when ``class_dotted`` names no project class."""

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

    def constant_in(self, module_name: str, name: str) -> ast.expr | None:
        """The same, of a name of module ``module_name``."""

    @property
    def vocabulary(self) -> HostVocabulary:
        """The host vocabulary: built in, plus the project's extension."""


class WalkState:
    """The function walked, what the project answers about it, and where the walk is."""

    def __init__(self, info: FunctionInfo, resolver: Resolver, guards: GuardReader | None) -> None:
        self.info = info
        self.resolver = resolver
        self.vocab = resolver.vocabulary
        self.guards = guards
        self.facts = Facts()
        #: local imports and nested defs: name -> dotted target
        self.scope: dict[str, str] = {}
        #: How many loops enclose the statement being walked.
        self.loops = 0
        #: The condition under which the statement being walked runs.
        self.path: Condition = ALWAYS
        #: id of a test expression -> what it reads as (``test``)
        self.tests: dict[int, tuple[Condition, Condition]] = {}
        #: Loop variables over containers (``for item in keys``): appending them collects, not computes.
        self.items: set[str] = set()
        #: Names bound to a call that names a device (``torch.eye(4, device=d)``): tensors there.
        self.on_device: set[str] = set()
        #: Local functions written as lambdas (``to_host = lambda t: t.cpu()``): a call runs their body.
        self.lambdas: dict[str, ast.Lambda] = {}
        #: Names bound to a call of a project class (``s = Staging(dev)``): name -> the class, dotted.
        self.instances: dict[str, str] = {}
        #: Data read back that decides whether the statement being walked runs, inside a host
        #: loop (``decided_by``): what the loop adds to a container there depends on it.
        self.control: Value = frozenset()
        #: name -> roots it holds only because they were written into it (``Writes.contain``)
        self.contained: dict[str, Value] = {}
        #: Uploads of data built from metadata alone, made by the call being evaluated (``Recorder.upload``)
        self.pending: Value = EMPTY
        #: The function's preconditions: the tests its top-level validations leave true
        #: (``if a.dim() not in (1, 2): raise``): said of no path, since every run that goes on
        #: satisfies them.
        self.assumed: set[Test] = set()
        #: Whether the expression walked is a ``raise``'s or an ``assert``'s (``Calls.unknown_call``).
        self.raising = False
        #: id of a loop -> what its body reads before assigning, and only writes into (``loop_reads``)
        self.loop_reads: dict[int, tuple[frozenset[str], frozenset[str]]] = {}

    def constant(self, name: str) -> ast.expr | None:
        """What ``name`` is bound to where it is a constant here: a local bound once, else a
        constant of this function's module (``CPU = "cpu"``, imported or not)."""
        if self.guards is not None:
            bound = self.guards.bound_once.get(name)
            if bound is not None:
                return bound
            if name in self.guards.local_names:
                return None
        if "." in name:  # ``dx.cpu``, ``devices.HOST``: a module's name, where it resolves
            try:
                expr = ast.parse(name, mode="eval").body
            except SyntaxError:
                return None
            dotted = self.resolver.resolve(self.info, self.scope, expr)
            if dotted is None or "." not in dotted:
                return None
            module_name, _, attr = dotted.rpartition(".")
            return self.resolver.constant_in(module_name, attr)
        if name in self.scope:
            return None
        return self.resolver.constant(self.info, name)

    def classes_tested(self, test: ast.expr) -> dict[str, str]:
        """The names ``test`` holds to be instances of a class, by the class's dotted name
        (``isinstance(x, DeviceArray)``, in an ``and`` too): where it is true, ``x.device_get()``
        is that class's method."""
        found: dict[str, str] = {}
        tests = test.values if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And) else [test]
        for one in tests:
            if isinstance(one, ast.Call) and isinstance(one.func, ast.Name) and one.func.id == "isinstance" \
                    and len(one.args) == 2 and isinstance(one.args[0], ast.Name) \
                    and isinstance(one.args[1], (ast.Name, ast.Attribute)):
                dotted = self.resolver.resolve(self.info, self.scope, one.args[1])
                if dotted is not None:
                    found[one.args[0].id] = dotted
        return found

    def test(self, test: ast.expr) -> tuple[Condition, Condition]:
        """When ``test`` holds and when it does not, over the parameters (``_guards``). An
        ``if``'s test is read for its arms and again for the rest of its block (and a loop's
        body may be walked more than once): read once per walk."""
        known = self.tests.get(id(test))
        if known is None:
            known = self.tests[id(test)] = self.guards.test(test) if self.guards is not None else (ALWAYS, ALWAYS)
        return known


class Part:
    """One part of a walk (statements, expressions, calls, ...): the shared state, and what it
    reads of it most."""

    def __init__(self, state: WalkState) -> None:
        self.state = state
        self.info = state.info
        self.resolver = state.resolver
        self.vocab = state.vocab
        self.facts = state.facts
