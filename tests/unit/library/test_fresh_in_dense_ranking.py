"""pipeline._with_fresh: passages embedded on the spot join the dense ranking where their cosine puts them."""

from __future__ import annotations

from searchapp.library.search.pipeline import _with_fresh


def test_fresh_passages_go_where_their_cosine_puts_them_keeping_the_index_s_order():
    dense = [(1, 0.9), (2, 0.7), (3, 0.5)]
    fresh = {10: 0.8, 11: 0.95, 12: 0.1}
    # the index's list holds every vector in scope: a low cosine still ranks, last
    assert [c for c, _ in _with_fresh(dense, fresh, cut=False)] == [11, 1, 10, 2, 3, 12]
    # the list stops short of the vectors in scope: below its last, the index would not have returned it
    assert [c for c, _ in _with_fresh(dense, fresh, cut=True)] == [11, 1, 10, 2, 3]
    assert _with_fresh([], {5: 0.2, 6: 0.3}, cut=False) == [(6, 0.3), (5, 0.2)]  # no vectors anywhere yet
    assert _with_fresh(dense, {}, cut=True) is dense
