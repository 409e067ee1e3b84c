"""The condition algebra behind reached paths (``device_types._check._conditions``)."""

from __future__ import annotations

from device_types._check._conditions import ALWAYS, NEVER, Sym, conjoin, disjoin, render, satisfiable, substitute
from device_types._check._conditions import Test as T

OP = ("p", 0, ())
DTYPE = ("p", 1, ("dtype",))
GPU = ("c", "pkg.can_use_gpu", (("p", 1, ()),))


def one(*tests: T) -> frozenset:
    return frozenset({frozenset(tests)})


def test_contradictions_are_found_and_nothing_else() -> None:
    assert not satisfiable(frozenset({T(OP, frozenset({"argmax"})), T(OP, frozenset({"mean"}))}))
    assert not satisfiable(frozenset({T(OP, frozenset({"a"})), T(OP, frozenset({"a"}), False)}))
    assert not satisfiable(frozenset({T(GPU, None), T(GPU, None, False)}))
    assert not satisfiable(frozenset({T(OP, frozenset({None})), T(OP, None)}))  # None is falsy
    assert satisfiable(frozenset({T(OP, frozenset({"a", "b"})), T(OP, frozenset({"a"}), False)}))
    # a named constant's truth is not known here: no conclusion
    assert satisfiable(frozenset({T(DTYPE, frozenset({Sym("pkg.float32")})), T(DTYPE, None, False)}))


def test_a_literal_argument_decides_the_callee_test() -> None:
    host_path = one(T(OP, frozenset({"argmax", "argmin"})))
    assert substitute(host_path, {0: ("lit", "mean")}) == NEVER
    assert substitute(host_path, {0: ("lit", "argmax")}) == ALWAYS
    assert substitute(host_path, {}) == ALWAYS  # unknown argument: reached
    caller_op = ("p", 2, ())
    assert substitute(host_path, {0: caller_op}) == one(T(caller_op, frozenset({"argmax", "argmin"})))


def test_the_callers_guard_rules_out_the_callees_branch() -> None:
    callee = one(T(("c", "pkg.can_use_gpu", (("p", 0, ()),)), None, False))
    residual = substitute(callee, {0: ("p", 1, ())})
    assert conjoin(one(T(GPU, None)), residual) == NEVER
    assert conjoin(one(T(GPU, None, False)), residual) == residual


def test_conditions_simplify_for_display() -> None:
    either = disjoin(one(T(OP, frozenset({"nuc"}))), one(T(OP, frozenset({2}))))
    assert render(either, ("ord",)) == 'ord in ("nuc", 2)'
    covered = disjoin(one(T(GPU, None)), one(T(GPU, None, False)))
    assert covered == ALWAYS and render(covered, ("a", "x")) == ""
    implied = one(T(OP, frozenset({"nuc"})), T(OP, frozenset({"fro"}), False))
    assert render(implied, ("ord",)) == 'ord == "nuc"'
    assert render(one(T(("p", 0, ("shape", "[-1]")), frozenset({1, 2}), False)), ("a",)) == "a.shape[-1] not in (1, 2)"


def test_a_list_agreeing_on_a_place_attribute_is_rewritten_over_the_callers_list() -> None:
    """``all(t.dtype == ts[0].dtype for t in ts)`` (``_guards``): a caller passing views of its own
    list carries its own test of that list, and its guard rules the callee's branch out."""
    callee = one(T(("c", "same:dtype", (("p", 0, ()),)), None, False))
    caller = ("c", "same:dtype", (("p", 1, ()),))
    residual = substitute(callee, {0: ("p", 1, ())})
    assert residual == one(T(caller, None, False))
    assert conjoin(one(T(caller, None)), residual) == NEVER
    assert render(callee, ("tensors",)) == "not all(t.dtype == tensors[0].dtype for t in tensors)"
    every = one(T(("c", "all:pkg.supported|dtype", (("p", 0, ()),)), None))
    assert render(every, ("tensors",)) == "all(supported(t.dtype) for t in tensors)"


def test_a_list_written_out_from_one_tensor_has_its_place_in_every_element() -> None:
    """``cat([a, a.contiguous()])`` binds the callee's list to ``("one", a)``."""
    a = ("p", 0, ())
    bound = {0: ("one", a)}
    assert substitute(one(T(("c", "same:dtype", (("p", 0, ()),)), None, False)), bound) == NEVER
    gpu = one(T(("c", "all:pkg.can_use_gpu", (("p", 0, ()),)), None, False))
    assert substitute(gpu, bound) == one(T(("c", "pkg.can_use_gpu", (a,)), None, False))
    supported = one(T(("c", "all:pkg.supported|dtype", (("p", 0, ()),)), None))
    assert substitute(supported, bound) == one(T(("c", "pkg.supported", (("p", 0, ("dtype",)),)), None))
    # nothing else about such a list is read (its truth, its length): unknown, so reached
    assert substitute(one(T(("p", 0, ()), None, False)), bound) == ALWAYS
    assert substitute(one(T(("c", "builtins.len", (("p", 0, ()),)), frozenset({1}))), bound) == ALWAYS
