"""Fusion functions: weighted RRF and the convex combination of normalised scores."""

from __future__ import annotations

import pytest

from searchapp.library.search.fusion import convex_fusion, reciprocal_rank_fusion


def test_rrf_unweighted_is_the_classic_formula():
    fused = dict(reciprocal_rank_fusion([[1, 2, 3], [3, 1]], k=60))
    assert fused[1] == pytest.approx(1 / 61 + 1 / 62)
    assert fused[3] == pytest.approx(1 / 63 + 1 / 61)


def test_weighted_rrf_lets_the_stronger_list_decide():
    # Dense says a > b, lexical says b > a: equal weights tie-break by first seen, a heavier dense side decides.
    dense, lexical = [10, 20], [20, 10]
    assert [i for i, _ in reciprocal_rank_fusion([dense, lexical], weights=[0.3, 0.7])][0] == 20
    assert [i for i, _ in reciprocal_rank_fusion([dense, lexical], weights=[0.7, 0.3])][0] == 10


def test_convex_keeps_score_gaps_that_rrf_throws_away():
    # One confident dense match; a weak lexical list (one shared common word) ranks another passage first.
    dense = {1: 0.82, 2: 0.31, 3: 0.30}
    lexical = {2: 1.2, 3: 1.1, 1: 1.0}
    order = [1, 2, 3]
    rrf_top = reciprocal_rank_fusion([[1, 2, 3], [2, 3, 1]])[0][0]
    convex_top = convex_fusion(dense, lexical, 0.7, order)[0][0]
    assert rrf_top == 2  # plain RRF: rank 1 + rank 2 beats rank 1 + rank 3, whatever the gap
    assert convex_top == 1


def test_convex_scales_bm25_by_the_best_candidate_and_clips_negative_cosine():
    out = dict(convex_fusion({1: -0.2, 2: 0.5}, {1: 8.0, 2: 4.0}, 0.5, [1, 2]))
    assert out[1] == pytest.approx(0.5 * 0.0 + 0.5 * 1.0)
    assert out[2] == pytest.approx(0.5 * 0.5 + 0.5 * 0.5)


def test_convex_missing_side_scores_zero_and_ties_keep_order():
    out = convex_fusion({}, {}, 0.7, [5, 4, 3])
    assert [i for i, _ in out] == [5, 4, 3] and all(s == 0.0 for _, s in out)


def test_convex_fuses_only_the_signals_a_candidate_has():
    # 9 has no vector yet but the best word match; 1 and 2 are embedded and share fewer words.
    dense = {1: 0.6, 2: 0.4, 9: None}
    lexical = {1: 2.0, 2: 1.0, 9: 8.0}
    fused = dict(convex_fusion(dense, lexical, 0.8, [1, 2, 9], no_vector={9}))
    # Its cosine is imputed from its lexical standing: share 1.0 x the best embedded cosine 0.6.
    assert fused[9] == pytest.approx(0.8 * 0.6 + 0.2 * 1.0)
    assert max(fused, key=fused.get) == 9
    # Without `no_vector` (the old rule) it counted as cosine 0 and fell below both embedded candidates.
    old = dict(convex_fusion(dense, lexical, 0.8, [1, 2, 9]))
    assert old[9] < old[2] < old[1]
    # A weak word match without a vector stays below a strong embedded one.
    weak = dict(convex_fusion({1: 0.6, 9: None}, {1: 8.0, 9: 1.0}, 0.8, [1, 9], no_vector={9}))
    assert weak[1] > weak[9]


def test_convex_lifts_a_rare_word_holder_to_what_its_words_earn_and_no_one_else():
    # 7 holds the query's rare word (cosine ~0, the best BM25); 1 and 2 sit near the query in meaning, no word.
    dense, lexical = {1: 0.31, 2: 0.25, 7: 0.02}, {7: 5.0}
    plain = dict(convex_fusion(dense, lexical, 0.8, [1, 2, 7]))
    assert plain[7] < plain[1]  # buried: the words give it at most 0.2
    lifted = dict(convex_fusion(dense, lexical, 0.8, [1, 2, 7], rare={7}))
    assert lifted[7] == pytest.approx(0.8 * 0.31 + 0.2 * 1.0) and max(lifted, key=lifted.get) == 7
    assert (lifted[1], lifted[2]) == (plain[1], plain[2])
    # Its own cosine counts where it is more than its words earn; a rare id sharing no word is not lifted.
    assert dict(convex_fusion({1: 0.31, 7: 0.6}, lexical, 0.8, [1, 7], rare={7}))[7] == pytest.approx(0.8 * 0.6 + 0.2)
    assert dict(convex_fusion(dense, {1: 2.0}, 0.8, [1, 2, 7], rare={7}))[7] == pytest.approx(0.8 * 0.02)


def test_a_rare_word_holders_score_only_rises_as_the_others_get_vectors():
    """Decision 0109's rule for a lifted row: as meaning fills (candidates gain vectors, in any order), its score
    never falls. A lift that shrinks as the best cosine grows (words share x (1 - best)) fails here."""
    final = {1: 0.45, 2: 0.31, 3: 0.12, 7: 0.02}
    lexical = {7: 5.0, 3: 1.0}
    for order in ([1, 2, 3, 7], [7, 3, 2, 1], [2, 7, 1, 3]):
        shown, have = [], set()
        for item in order:
            have.add(item)
            dense = {i: (final[i] if i in have else None) for i in final}
            no_vector = {i for i in final if i not in have}
            shown.append(dict(convex_fusion(dense, lexical, 0.8, list(final), no_vector, rare={7}))[7])
        assert shown == sorted(shown), (order, shown)
        if order[0] == 7:  # its own vector first: the best cosine, so its lift, grows as the others come
            assert shown[-1] > shown[0], shown


def test_rrf_counts_a_vectorless_candidates_lexical_rank_on_both_sides():
    # 9 is lexical #1 but cannot be in the dense list; 1 is dense #1 and lexical #2.
    ranked = dict(reciprocal_rank_fusion([[1, 2], [9, 1, 2]], k=60, weights=[0.8, 0.2], only_in={9: 1}))
    assert ranked[9] == pytest.approx(1.0 / 61)
    assert ranked[9] > ranked[1]


def test_convex_weighs_every_words_share_by_what_the_words_can_say():
    # decision 0169: a query whose words the library holds are all common gives its best word match no full share
    dense, lexical = {1: 0.40, 2: 0.30}, {1: 0.0, 2: 1e-6}
    full = dict(convex_fusion(dense, lexical, 0.8, [1, 2]))
    assert full[2] == pytest.approx(0.8 * 0.30 + 0.2 * 1.0) and full[2] > full[1]  # BM25 ~0 made a share of 1
    weighed = dict(convex_fusion(dense, lexical, 0.8, [1, 2], words_weight=0.05))
    assert weighed[2] == pytest.approx(0.8 * 0.30 + 0.2 * 0.05) and weighed[1] > weighed[2]
    # a file with no vector yet: its imputed cosine follows its weighed share
    nov = dict(convex_fusion({1: 0.5, 9: None}, {1: 1.0, 9: 2.0}, 0.8, [1, 9], no_vector={9}, words_weight=0.5))
    assert nov[9] == pytest.approx(0.8 * (0.5 * 0.5) + 0.2 * 0.5)


def test_convex_gives_a_passage_saying_the_query_word_for_word_the_best_cosine():
    # decision 0169: 3 holds a long query as a phrase; meaning put a paraphrase (1) nearer
    dense, lexical = {1: 0.83, 2: 0.59, 3: 0.33}, {1: 2.0, 2: 0.0, 3: 6.0}
    plain = dict(convex_fusion(dense, lexical, 0.8, [1, 2, 3]))
    assert max(plain, key=plain.get) == 1
    lifted = dict(convex_fusion(dense, lexical, 0.8, [1, 2, 3], exact={3}))
    assert lifted[3] == pytest.approx(0.8 * 0.83 + 0.2 * 1.0) and max(lifted, key=lifted.get) == 3
    assert lifted[1] == plain[1] and lifted[2] == plain[2]


def test_exact_holders_keep_their_own_order():
    """A reviewer's case: every exact holder scores the same after the lift, and the tie fell back to the first
    stage's order, putting B (worse on both signals) before A."""
    dense = {"C": 0.60, "B": 0.30, "A": 0.29}
    lexical = {"C": None, "B": 1.0, "A": 10.0}
    order = ["C", "B", "A"]  # first-stage order: the dense list first, then the lexical-only ones
    plain = [i for i, _ in convex_fusion(dense, lexical, 0.5, order)]
    assert plain.index("A") < plain.index("B")  # A beats B without the lift
    lifted = convex_fusion(dense, lexical, 0.5, order, exact={"A", "B"})
    assert dict(lifted)["A"] == dict(lifted)["B"] and [i for i, _ in lifted][:2] == ["A", "B"], lifted
