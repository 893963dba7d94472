"""Hybrid search's one-pass lexical side (Store.search_lexical_and_score, store/lexical.py) gives exactly the
scores of the two passes it replaced: the lexical top of `Store.search_lexical`, and the BM25 of dense-only
hits from a second MATCH."""

from __future__ import annotations

import random

import pytest

WORDS = ("harbour lantern orchard meadow copper violet station quarry ember willow falcon granite river summit "
         "canyon beacon thistle cobalt invoice ledger").split()
CJK = ["北京是中国的首都", "東京は日本の首都です", "今天的天气很好"]
QUERIES = ["harbour lantern", "copper violet station", "river", "falcon granite summit canyon", "首都", "天气 river",
           "nothing matches this", "the of and"]


@pytest.fixture
def library(tiny_library, tmp_path):
    rng = random.Random(7)
    docs = tmp_path / "docs"
    docs.mkdir()
    for i in range(60):  # passages of varied length and word overlap, so BM25 scores spread and tie
        words = [rng.choice(WORDS) for _ in range(rng.randint(3, 40))]
        extra = CJK[i % 3] if i % 5 == 0 else ""
        (docs / f"note{i:02d}.txt").write_text(" ".join(words) + extra + "\n", encoding="utf-8")
    tiny_library.add_folder(docs)
    return tiny_library


def test_one_pass_gives_the_two_passes_scores(library):
    store = library.reader()
    all_ids = [cid for cid, in store.conn.execute("SELECT id FROM chunks").fetchall()]
    rng = random.Random(3)
    for query in QUERIES:
        also = rng.sample(all_ids, 25)
        for limit in (5, 20, 1000):
            top, scores = store.search_lexical_and_score(query, limit, also)
            expected = store.search_lexical(query, limit)
            assert [round(s, 9) for _, s in top] == [round(s, 9) for _, s in expected], query
            assert {c for c, s in top if s > min(s for _, s in top)} == \
                   {c for c, s in expected if s > min(s for _, s in expected)}  # equal up to ties at the cut
            second = dict(store.search_lexical(query, len(also), within=also))
            assert scores.keys() == second.keys(), query
            assert all(scores[c] == pytest.approx(second[c], abs=1e-9) for c in second), query


def test_hybrid_hits_carry_the_bm25_a_second_pass_would_give(library):
    store = library.reader()
    dense_only = 0
    for query in QUERIES[:6]:
        for group in ("passage", "file"):
            res = library.search(query, mode="hybrid", group=group, k=200, candidates=20)
            assert res.hits
            # A hit the lexical side ranked has its score from that list (the first test); the others had theirs
            # from a second MATCH over exactly them before the one pass.
            only = [h for h in res.hits if h.ranks.lexical is None]
            dense_only += len(only)
            second = dict(store.search_lexical(query, len(only), within=[h.chunk_id for h in only])) if only else {}
            for h in only:
                assert h.scores.lexical == pytest.approx(second.get(h.chunk_id, 0.0), abs=1e-12), (query, h.path)
    assert dense_only > 10  # the case the one pass exists for is exercised

