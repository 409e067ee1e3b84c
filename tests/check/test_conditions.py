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
