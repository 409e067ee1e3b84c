"""Orders of roots are total: two roots at one site never tie, so what a finding names does
not depend on a set's iteration order (which changes from process to process on Python
3.11, where ``hash(None)`` does)."""

from __future__ import annotations

import itertools

from device_types._check._values import root_rank as _root_rank
from device_types._check._solver import root_order
from device_types._check._values import Root

SITE = dict(kind="read", code="device-readback", what='"_to_host(lengths)"', path="ops.py", line=10, column=11,
            chain=("loss_op.<locals>._to_host",))

#: The same call site, from a helper that returns either of two reads (and variants of them).
AT_ONE_SITE = [
    Root(**SITE, origin=("ops.py", 7, '".tolist()"')),
    Root(**SITE, origin=("ops.py", 8, '".tolist()"')),
    Root(**SITE, origin=("ops.py", 7, '".tolist()"'), scalar=True),
    Root(**SITE, origin=("ops.py", 7, '".tolist()"'), steps=(("ops.py", 7, 4, '"f()"'),)),
    Root(**SITE, origin=None, param=0),
]


def test_roots_at_one_site_sort_the_same_from_any_order() -> None:
    for key in (root_order, _root_rank):
        orders = {tuple(sorted(permutation, key=key)) for permutation in itertools.permutations(AT_ONE_SITE)}
        assert len(orders) == 1, key.__name__
        ranked = [key(root) for root in AT_ONE_SITE]
        assert len(set(ranked)) == len(AT_ONE_SITE), key.__name__  # no two roots share a rank
