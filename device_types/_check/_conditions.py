"""When a path is taken: conditions over a function's parameters, in disjunctive normal form.

A fallback path in a summary carries the condition under which the function takes it, as far
as the function's own ``if``/``assert``/early ``return`` tests can say it over its parameters:
comparisons with literals and membership in literal tuples, ``is None``, the truth of a flag,
an equality of two parameters' attributes (``x.shape == y.shape``: ``("eq", one, other)``, decided
where a caller passes one tensor for both), an order of a size with 0 or 1 (``n > 0``: ``n != 0``),
dtype and device predicates of a tensor parameter (``a.dtype == float32``,
``x.device.type == "npu"``), and calls of framework predicates (``_can_use_gpu(x)``, a chip
test such as ``_use_soc_fallback("gather")``). A caller evaluates that condition with what it
passes (literals, the callee's literal defaults, its own guards on the same values): a path
whose condition is then false is not reached from that call.

Soundness first: a test we cannot translate constrains nothing (the path counts as reached),
and a condition that grows past a bound widens to "always". Nothing is ever negated after
widening: an ``if`` test is translated into the pair (body condition, else condition) at once,
each an over-approximation of its own. Only parameters the function never
rebinds, and locals bound once to such a predicate, are subjects: their value is the same at
every test of one call.

Shapes (all hashable, so summaries stay comparable and cacheable):
- a subject: ``("p", index, attrs)`` a parameter (``attrs``: ``("dtype",)``, ``("dim()",)``);
  bound by a caller to ``("from", subject, kept, direct)`` where it passes a tensor made from
  its subject (a view ``a.transpose(0, 1)``, a copy ``zeros_like(a)``, a device op's result
  ``_gpu_mul(a, 2.0)``): that subject for what the ops kept of it (``kept``: ``"device"`` and
  ``"dtype"`` attributes, ``"shape"`` attributes, the project's ``"predicates"`` of it, builtin
  ``"type"`` tests, the ``"value"`` itself), unknown for the rest; a test of the value itself
  reads ``direct``, the call that made it, where that is a subject;
  ``("g", dotted, attrs)`` a module-level name; ``("c", dotted, args)`` a call of a resolvable
  function, each argument a subject or ``("lit", value)``; ``("eq", one, other)`` two subjects
  equal (a truth test);
- a ``Test``: the subject's value is in (``positive``) or outside a set of literal values, or,
  with ``values=None``, the subject is truthy (``positive``) or falsy;
- a conjunction: a frozenset of tests; a ``Condition``: a frozenset of conjunctions.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Union

from .. import _semantics as sem

__all__ = ["ALWAYS", "NEVER", "Condition", "Conjunction", "Sym", "Test", "conjoin", "disjoin", "narrowed",
           "relation", "render", "satisfiable", "substitute"]


@dataclass(frozen=True, order=True)
class Sym:
    """A literal named in code rather than written out (``float32_dtype``), by dotted name."""

    dotted: str

    def __repr__(self) -> str:
        return self.dotted.rpartition(".")[2]


Subject = tuple[Any, ...]  # see the module docstring
Value = Union[str, int, float, bool, None, Sym]


@dataclass(frozen=True)
class Test:
    """A test of one subject against literal values (or of its truth), or its negation."""

    subject: Subject
    #: The literal values tested (``None`` for a truth test).
    values: frozenset[Value] | None
    positive: bool = True

    def negated(self) -> Test:
        return Test(self.subject, self.values, not self.positive)


Conjunction = frozenset[Test]
Condition = frozenset[Conjunction]

ALWAYS: Condition = frozenset({frozenset()})
NEVER: Condition = frozenset()

#: Bounds: past them a condition widens (to ALWAYS), which only ever adds reached paths.
_MAX_CONJUNCTIONS = 12
_MAX_TESTS = 8
_FALSY: frozenset[Value] = frozenset({None, False, 0, ""})


def _bounded(condition: Condition) -> Condition:
    if len(condition) > _MAX_CONJUNCTIONS or any(len(c) > _MAX_TESTS for c in condition):
        return ALWAYS
    if frozenset() in condition:  # one unconstrained way in: always
        return ALWAYS
    return condition


def narrowed(condition: Condition, known: Condition) -> Condition:
    """``condition`` less its ways that contradict ``known`` (one conjunction), ``known`` itself
    unsaid: what runs in ``for t in tensors`` cannot run on a way in where ``not tensors``, and
    a finding there need not print that the list is not empty. An over-approximation of
    ``conjoin(condition, known)``, so only ever more reached."""
    if len(known) != 1 or known == ALWAYS:
        return condition
    (extra,) = known
    return frozenset(c for c in condition if satisfiable(c | extra))


def satisfiable(conjunction: Conjunction) -> bool:
    """False when the tests of ``conjunction`` contradict each other on some subject, or a
    tensor's dtype is held to names of one kind and tested to be of the other
    (``a.dtype in (bool, int32) and a.dtype.is_floating_point``: ``_dtype_kinds_agree``)."""
    by_subject: dict[Subject, list[Test]] = {}
    for test in conjunction:
        by_subject.setdefault(test.subject, []).append(test)
    for tests in by_subject.values():
        if len(tests) > 1 and not _consistent(tests):
            return False
    return _dtype_kinds_agree(by_subject)


def _dtype_kinds_agree(by_subject: dict[Subject, list[Test]]) -> bool:
    for subject, tests in by_subject.items():
        if subject[0] not in ("p", "g") or subject[2][-2:] != ("dtype", "is_floating_point"):
            continue
        wanted = {test.positive for test in tests if test.values is None}
        allowed = _allowed(by_subject.get((subject[0], subject[1], subject[2][:-1]), []))
        if len(wanted) != 1 or allowed is None:
            continue
        kinds = {sem.FLOATING_DTYPES.get(sem.dtype_name(v.dotted) or "") if isinstance(v, Sym) else None
                 for v in allowed}
        if None not in kinds and wanted.pop() not in kinds:
            return False
    return True


def _allowed(tests: list[Test]) -> frozenset[Value] | None:
    """The values a subject is held to by its tests, or None where they leave it open."""
    allowed: frozenset[Value] | None = None
    for test in tests:
        if test.values is not None and test.positive:
            allowed = _canonical(test.values) if allowed is None else allowed & _canonical(test.values)
    if allowed is None:
        return None
    return frozenset(allowed - {v for t in tests if t.values is not None and not t.positive
                                for v in _canonical(t.values)})


def _canonical(values: frozenset[Value]) -> frozenset[Value]:
    """One dtype however a module names it (``float32_dtype`` imported as ``float32``: one
    object under two names), so two spellings neither agree nor differ by name alone."""
    if not any(isinstance(v, Sym) for v in values):
        return values
    return frozenset(Sym(f"<dtype>.{name}") if isinstance(v, Sym) and (name := sem.dtype_name(v.dotted)) else v
                     for v in values)


def _consistent(tests: list[Test]) -> bool:
    allowed: frozenset[Value] | None = None
    excluded: set[Value] = set()
    truth: set[bool] = set()
    for test in tests:
        if test.values is None:
            truth.add(test.positive)
        elif test.positive:
            values = _canonical(test.values)
            allowed = values if allowed is None else allowed & values
        else:
            excluded |= _canonical(test.values)
    if len(truth) > 1:
        return False
    if allowed is not None:
        allowed = frozenset(v for v in allowed if v not in excluded)
        if not allowed:
            return False
        if any(isinstance(v, Sym) for v in allowed):  # a named value's truth is not known here
            return True
        if truth == {True} and all(_is_falsy(v) for v in allowed):
            return False
        if truth == {False} and not any(_is_falsy(v) for v in allowed):
            return False
    elif truth == {False} and _FALSY <= excluded:
        return False
    return True


def _is_falsy(value: Value) -> bool:
    return not isinstance(value, Sym) and not value


def conjoin(left: Condition, right: Condition) -> Condition:
    """Both hold: every pair of conjunctions merged, contradictions dropped."""
    if left == ALWAYS:
        return right
    if right == ALWAYS:
        return left
    merged = {a | b for a in left for b in right}
    return _bounded(frozenset(c for c in merged if satisfiable(c)))


def disjoin(left: Condition, right: Condition) -> Condition:
    if left == ALWAYS or right == ALWAYS:
        return ALWAYS
    if not left or left == right:
        return right
    if not right:
        return left
    return _bounded(_simplified(left | right))


def _simplified(condition: Condition) -> Condition:
    """Absorption (``A or A and B`` is ``A``) and resolution (``A and t or A and not t`` is
    ``A``), to a fixpoint: equivalent, and short enough to print."""
    current = {_tidied(c) for c in condition}
    changed = True
    while changed and len(current) > 1:
        changed = False
        # in a fixed order: which pairs merge first decides the form printed, and a set's
        # order changes from process to process
        ordered = sorted(current, key=_conjunction_key)
        for a in ordered:
            for b in ordered:
                if a is b or a not in current or b not in current:
                    continue
                if a < b:
                    current.discard(b)
                    changed = True
                elif len(a) == len(b):
                    diff_a, diff_b = a - b, b - a
                    if len(diff_a) != 1:
                        continue
                    test_a, test_b = next(iter(diff_a)), next(iter(diff_b))
                    if test_a.negated() == test_b:
                        merged = a & b
                    elif test_a.subject == test_b.subject and test_a.positive and test_b.positive \
                            and test_a.values is not None and test_b.values is not None:
                        # op is "a" or op is "b": one test, op in ("a", "b")
                        merged = (a & b) | {Test(test_a.subject, test_a.values | test_b.values)}
                    else:
                        continue
                    current.discard(a)
                    current.discard(b)
                    current.add(_tidied(frozenset(merged)))
                    changed = True
    return frozenset(current)


def _conjunction_key(conjunction: Conjunction) -> list[tuple[str, bool, tuple[object, ...]]]:
    return sorted((repr(t.subject), t.positive, (0,) if t.values is None else (1, *sorted(map(repr, t.values))))
                  for t in conjunction)


def _tidied(conjunction: Conjunction) -> Conjunction:
    """Drop the tests another test of the same subject implies: ``op is "nuc"`` makes
    ``op is not "fro"`` redundant."""
    known = {t.subject: t.values for t in conjunction if t.positive and t.values is not None}
    kept = [t for t in conjunction
            if not (not t.positive and t.values is not None and t.subject in known and not (known[t.subject] & t.values))]
    excluded: dict[Subject, frozenset[Value]] = {}
    for test in kept:  # n != 1 and n != 2: n not in (1, 2)
        if not test.positive and test.values is not None:
            excluded[test.subject] = excluded.get(test.subject, frozenset()) | test.values
    return frozenset([t for t in kept if t.positive or t.values is None]
                     + [Test(subject, values, False) for subject, values in excluded.items()])


# --- a callee's condition, seen from a call site -----------------------------------------

#: How a call binds one callee parameter: ("lit", value), a caller subject, or absent (unknown).
Binding = tuple[Any, ...]


def substitute(condition: Condition, bindings: dict[int, Binding]) -> Condition:
    """``condition`` over the callee's parameters, rewritten over what the caller passes.

    A test on a parameter bound to a literal is decided on the spot; a test on a parameter bound
    to one of the caller's subjects becomes a test on that subject; a test we cannot rewrite
    (an expression argument, an attribute of a literal) constrains nothing."""
    result: set[Conjunction] = set()
    for conjunction in condition:
        rewritten: set[Test] = set()
        for test in conjunction:
            outcome = _substitute_test(test, bindings)
            if outcome is False:
                break
            if isinstance(outcome, Test):
                rewritten.add(outcome)
        else:
            if satisfiable(frozenset(rewritten)):
                result.add(frozenset(rewritten))
    return _bounded(frozenset(result))


def _substitute_test(test: Test, bindings: dict[int, Binding]) -> Test | bool | None:
    subject: Subject | None
    bound = bindings.get(test.subject[1], ("",)) if test.subject[0] == "p" and not test.subject[2] else ("",)
    if bound[0] == "one" and len(bound) > 2 and bound[2] and test.values is None:
        return test.positive  # the truth of a list a loop filled at least once
    if bound[0] == "from" and "value" not in bound[2]:
        # a test of the value itself (``t is None``, ``m == "image"``) of a value made from the
        # caller's: a test of the call that made it, where that is a subject
        subject = bound[3]
        if subject is None or subject[0] not in ("p", "g", "c"):
            return None
    else:
        subject = _substitute_subject(test.subject, bindings)
    if subject is None or subject[0] in ("one", "v"):  # (a value of the caller's: only its identity is known)
        return None
    decided = decide_call(subject)
    if decided is not None:
        subject = ("lit", decided[0])
    if subject[0] == "lit":
        value = subject[1]
        if test.values is None:
            return bool(value) == test.positive if not isinstance(value, Sym) else None
        if isinstance(value, Sym) and not any(isinstance(v, Sym) for v in test.values):
            return None
        return (value in test.values) == test.positive
    return Test(subject, test.values, test.positive)


def relation(one: Subject, other: Subject) -> Subject:
    """``("eq", one, other)``: the two are equal (a truth test), in one order whichever way it
    was written; the same subject twice is equal (``("lit", True)``)."""
    if one == other:
        return ("lit", True)
    first, second = sorted((one, other), key=repr)
    return ("eq", first, second)


def _substitute_subject(subject: Subject, bindings: dict[int, Binding]) -> Subject | None:
    kind = subject[0]
    if kind == "eq":
        one, other = (_substitute_subject(side, bindings) for side in subject[1:])
        if one is not None and one[0] == "v" and one == other:
            return ("lit", True)  # one value the caller made, on both sides
        if one is None or other is None or one[0] not in ("p", "g", "lit") or other[0] not in ("p", "g", "lit"):
            return None
        if one[0] == "lit" and other[0] == "lit":
            return ("lit", one[1] == other[1]) if not isinstance(one[1], Sym) and not isinstance(other[1], Sym) else None
        if one[0] == "lit" or other[0] == "lit":
            return None
        return relation(one, other)
    if kind == "p":
        bound = bindings.get(subject[1])
        if bound is None:
            return None
        if any(attr.startswith("[$") for attr in subject[2]):  # ``a.shape[dim]``: ``dim`` as passed
            attrs = _indices_passed(subject[2], bindings)
            if attrs is None:
                return None
            subject = (kind, subject[1], attrs)
        if bound[0] == "lit":
            return bound if not subject[2] else None
        if bound[0] == "p" or bound[0] == "g":
            return (bound[0], bound[1], bound[2] + subject[2])
        if bound[0] == "from":
            # a tensor made from the caller's subject (a view, a copy, a device op's result): that
            # subject for what the ops that made it keep of it (``GuardReader._made_from``); its
            # shape, where that is lost, that of a value the caller made (``_shape_identity``)
            inner, kept = bound[1], bound[2]
            attrs = subject[2]
            identity = bound[4] if len(bound) > 4 else None
            if attrs and attrs[0] in sem.SHAPE_ATTRIBUTES and "shape" not in kept and identity is not None:
                return (identity[0], identity[1], attrs)
            if attrs == ("is_contiguous()",) and "contiguous" in kept:
                return ("lit", True)  # a fresh allocation (``_guards.CONTIGUOUS``)
            if attrs == ("is_contiguous()",) and "layout" in kept:
                return (inner[0], inner[1], inner[2] + attrs)  # given its shape and strides
            if not attrs:
                if not kept & {"predicates", "type", "value"}:
                    return None
            elif not (attrs[0] in sem.PLACE_ATTRIBUTES and attrs[0] in kept
                      or attrs[0] in sem.SHAPE_ATTRIBUTES and "shape" in kept):
                return None
            return (inner[0], inner[1], inner[2] + attrs)
        return bound if not subject[2] else None  # ("one", ...): read by a test of its elements only
    if kind == "c":
        args = []
        for arg in subject[2]:
            if arg[0] == "lit":
                args.append(arg)
                continue
            bound = bindings.get(arg[1], ("",)) if arg[0] == "p" and not arg[2] else ("",)
            if bound[0] == "from" and not bound[2] & {"value", "type" if subject[1].startswith("builtins.") else "predicates"}:
                return None  # ``isinstance(t, Tensor)``, ``_can_use_gpu(t)`` of what the ops did not keep
            replaced = _substitute_subject(arg, bindings)
            if replaced is None or replaced[0] == "v":
                return None
            args.append(replaced)
        if any(arg[0] == "one" for arg in args):
            return _of_one(subject[1], args)
        return ("c", subject[1], tuple(args))
    if kind == "one":
        return None
    return subject


def _indices_passed(attrs: tuple[str, ...], bindings: dict[int, Binding]) -> tuple[str, ...] | None:
    """``("shape", "[$1]")`` with parameter 1 bound by the caller: a literal index, or the
    caller's own parameter; None where it is anything else."""
    rewritten = []
    for attr in attrs:
        if attr.startswith("[$") and attr.endswith("]") and attr[2:-1].isdigit():
            bound = bindings.get(int(attr[2:-1]))
            if bound is not None and bound[0] == "lit" and type(bound[1]) is int:
                attr = f"[{bound[1]!r}]"
            elif bound is not None and bound[0] == "p" and not bound[2]:
                attr = f"[${bound[1]}]"
            else:
                return None
        rewritten.append(attr)
    return tuple(rewritten)


def _of_one(dotted: str, args: list[Subject]) -> Subject | None:
    """A test of a list the caller wrote out from one tensor of its own (``("one", a)``:
    ``[a, a.contiguous()]``, each element on ``a``'s device with its dtype): ``all(p(t) for t
    in ts)`` is ``p(a)``, and the elements agree on their device and dtype. Any other test of
    such a list (its length, its truth, another function of it) is not read."""
    if len(args) != 1:
        return None
    one = args[0][1]
    if dotted.startswith("all:"):
        predicate, _, attrs = dotted[len("all:"):].partition("|")
        return ("c", predicate, ((one[0], one[1], tuple(attrs.split("."))) if attrs else one,))
    if dotted.startswith("same:"):
        return ("lit", True)
    return None


#: Builtin types a literal can be tested against, by their dotted names.
_BUILTIN_TYPES: dict[str, type] = {f"builtins.{t.__name__}": t for t in (
    int, float, bool, complex, str, bytes, tuple, list, dict, set, frozenset, type(None), slice)}


def decide_call(subject: Subject) -> tuple[object] | None:
    """``(value,)`` of a builtin predicate whose arguments are all literals, where Python
    decides it without running project code: ``isinstance(1.0, Tensor)`` is False (a literal
    is no instance of a project class), ``isinstance(2, int)`` is True, ``hasattr(None, "x")``,
    ``callable(1)``, ``len((1, 2))``. None when it is not decided so."""
    if subject[0] != "c" or not subject[1].startswith("builtins.") or \
            not all(arg[0] == "lit" for arg in subject[2]):
        return None
    name, args = subject[1], [arg[1] for arg in subject[2]]
    if any(isinstance(a, Sym) for a in args[:1]):
        return None  # a named value (``float32``): what it is, is not known here
    if name == "builtins.isinstance" and len(args) == 2:
        classes = args[1] if isinstance(args[1], tuple) else (args[1],)
        known = []
        for cls in classes:
            if not isinstance(cls, Sym):
                return None
            if cls.dotted in _BUILTIN_TYPES:
                known.append(_BUILTIN_TYPES[cls.dotted])
            elif cls.dotted.startswith("builtins."):
                return None  # another builtin class (an exception type, ``object``): not decided
        return (isinstance(args[0], tuple(known)),)
    if name == "builtins.hasattr" and len(args) == 2 and isinstance(args[1], str):
        return (hasattr(args[0], args[1]),)
    if name == "builtins.callable" and len(args) == 1:
        return (callable(args[0]),)
    if name == "builtins.len" and len(args) == 1 and isinstance(args[0], (str, tuple)):
        return (len(args[0]),)
    return None


# --- text -------------------------------------------------------------------------------


#: A condition longer than this is not printed: a finding stays one or two lines.
_MAX_SHOWN_CONJUNCTIONS = 2
_MAX_SHOWN_TESTS = 3


def render(condition: Condition, names: tuple[str, ...]) -> str:
    """``op in ("argmax", "argmin")``; ``not _can_use_gpu(a)``; "" when always (or too long to say)."""
    if condition == ALWAYS or not condition:
        return ""
    condition = _simplified(condition)
    if len(condition) > _MAX_SHOWN_CONJUNCTIONS or any(len(c) > _MAX_SHOWN_TESTS for c in condition) \
            or frozenset() in condition:
        return ""
    parts = sorted(" and ".join(sorted(_render_test(t, names) for t in c)) for c in condition)
    return "; or ".join(parts)


def _render_test(test: Test, names: tuple[str, ...]) -> str:
    """One test as a backend engineer writes it: ``a.dtype == float16``, ``op in ("sum", "mean")``,
    ``dim is None``, ``not _can_use_gpu(a)``, ``x.shape != y.shape``."""
    if test.subject[0] == "eq" and test.values is None:
        one, other = (_render_subject(side, names) for side in test.subject[1:])
        return f"{one} {'==' if test.positive else '!='} {other}"
    subject = _render_subject(test.subject, names)
    if test.values is None:
        return subject if test.positive else f"not {subject}"
    values = sorted(test.values, key=repr)
    if values == [None]:
        return f"{subject} is {'' if test.positive else 'not '}None"
    if len(values) == 1:
        return f"{subject} {'==' if test.positive else '!='} {_render_value(values[0])}"
    shown = ", ".join(_render_value(v) for v in values)
    return f"{subject} {'in' if test.positive else 'not in'} ({shown})"


def _render_value(value: Value) -> str:
    if isinstance(value, str):
        return f'"{value}"'
    return repr(value)


def _render_subject(subject: Subject, names: tuple[str, ...]) -> str:
    kind = subject[0]
    if kind == "lit":
        return _render_value(subject[1])
    if kind == "p":
        index = subject[1]
        base = names[index] if 0 <= index < len(names) else f"arg{index}"
        return _dotted(base, tuple(_name_index(attr, names) for attr in subject[2]))
    if kind == "g":
        return _dotted(subject[1].rpartition(".")[2], subject[2])
    args = ", ".join(_render_subject(a, names) for a in subject[2])
    if subject[1].startswith("all:"):  # every element: ``all(_can_use_gpu(t) for t in tensors)``
        predicate, _, attrs = subject[1].partition("|")  # ``all(supported(t.dtype) for t in ts)``
        element = f"t.{attrs}" if attrs else "t"
        return f"all({predicate.rpartition('.')[2]}({element}) for t in {args})"
    if subject[1].startswith("same:"):  # every element agrees: ``all(t.dtype == ts[0].dtype for t in ts)``
        attrs = subject[1][len("same:"):]
        return f"all(t.{attrs} == {args}[0].{attrs} for t in {args})"
    return f"{subject[1].rpartition('.')[2]}({args})"


def _name_index(attr: str, names: tuple[str, ...]) -> str:
    """``[$1]`` as written: ``[dim]``."""
    if attr.startswith("[$") and attr.endswith("]") and attr[2:-1].isdigit():
        index = int(attr[2:-1])
        return f"[{names[index] if 0 <= index < len(names) else f'arg{index}'}]"
    return attr


def _dotted(base: str, attrs: tuple[str, ...]) -> str:
    """``a.shape[-1]``: attributes joined by dots, subscripts appended as written."""
    return base + "".join(a if a.startswith("[") else f".{a}" for a in attrs)
