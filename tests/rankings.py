"""Comparing two rankings of scored items made by different arithmetic (an HNSW graph's SIMD distance and NumPy's
matmul, a fused forward and transformers'): float32 sums in another order differ in the last bits, so scores are
equal within a tolerance and the order is equal except between items whose scores lie within it (a near-tie
may come out either way). Never compare such scores after rounding to a fixed digit: 0.601615 rounds to 0.60162
on one CPU and 0.60161 on another."""

from __future__ import annotations

from typing import Hashable, Sequence

# float32 cosines of unit vectors: each of the 384 products carries ~6e-8 relative error, summed in another
# order the two results differ by a few 1e-7 at most; 1e-5 leaves room without hiding a wrong score (a wrong
# vector, a wrong normalisation or an off-by-one id moves a cosine by 1e-2 and more).
SCORE_TOLERANCE = 1e-5


def assert_same_ranking(a: Sequence[tuple[Hashable, float]], b: Sequence[tuple[Hashable, float]],
                        tol: float = SCORE_TOLERANCE) -> None:
    """`a` and `b`: (item, score) best first. The same scores position by position within `tol`, the same item
    at each position except where items tie within `tol`, and each item's two scores within `tol`."""
    assert len(a) == len(b), (a, b)
    for (ia, sa), (ib, sb) in zip(a, b, strict=True):
        assert abs(sa - sb) <= tol, (ia, sa, ib, sb)
        if ia != ib:  # only a near-tie may swap: both items' scores lie within tol of this position's
            score_b = dict(b).get(ia)
            assert abs((sa if score_b is None else score_b) - sa) <= tol, (ia, sa, ib, sb)
    tail_a = min(s for _, s in a) if a else 0.0
    for item, sa in a:
        sb = dict(b).get(item)
        # an item in one list only may be one tied with the last place, cut by the other
        assert (sb is not None and abs(sa - sb) <= tol) or (sb is None and abs(sa - tail_a) <= tol), (item, sa, sb)
