"""tests/rankings.py, the suite's one way to compare scores made by two code paths: tolerant where float
arithmetic may differ, strict everywhere else."""

from __future__ import annotations

import pytest

from rankings import assert_same_ranking


A = [("x", 0.601615), ("y", 0.5), ("z", 0.499999)]


def test_the_last_bits_and_near_ties_pass():
    assert_same_ranking(A, [("x", 0.6016149), ("y", 0.5), ("z", 0.499999)])  # 0.60162 vs 0.60161 rounded
    assert_same_ranking(A, [("x", 0.601615), ("z", 0.4999995), ("y", 0.4999996)])  # a near-tie swapped
    assert_same_ranking(A, [("x", 0.601615), ("y", 0.5), ("w", 0.4999992)])  # another item tied at the cut


SPREAD = [("x", 0.6), ("y", 0.5), ("z", 0.4)]


@pytest.mark.parametrize("b", [
    [("y", 0.6), ("x", 0.5), ("z", 0.4)],  # a swap that is no tie
    [("x", 0.6001), ("y", 0.5), ("z", 0.4)],  # a score off by 1e-4
    [("x", 0.6), ("y", 0.5)],  # an item missing
    [("x", 0.6), ("w", 0.5), ("z", 0.4)],  # another item in the middle: y, tied with nothing, missing
])
def test_a_wrong_order_score_or_item_fails(b):
    with pytest.raises(AssertionError):
        assert_same_ranking(SPREAD, b)
