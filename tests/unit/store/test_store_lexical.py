"""BM25 over the word and CJK tables (store/lexical.py) on a real SQLite file: one merge, one tie order
(higher score first, then the lower chunk id) whichever way a lexical search runs."""

from __future__ import annotations

import pytest

from searchapp.store.lexical import merge_bm25
from searchapp.store.scope import files_where
from store_files import new_store, put_file


def test_merge_sums_a_passages_scores_and_breaks_ties_by_id():
    words = [(7, 2.0), (3, 1.0), (9, 1.0)]
    cjk = [(5, 1.5), (3, 0.5), (1, 1.0)]
    assert merge_bm25([words, cjk], 10) == [(7, 2.0), (3, 1.5), (5, 1.5), (1, 1.0), (9, 1.0)]
    assert merge_bm25([words, cjk], 2) == [(7, 2.0), (3, 1.5)]
    assert merge_bm25([], 5) == [] and merge_bm25([words], 0) == []


@pytest.fixture
def store(tmp_path):
    store, root = new_store(tmp_path)
    # Five files with the very same passage (equal BM25), inserted in an order unlike their ids' meaning.
    for name in ("e", "b", "d", "a", "c"):
        put_file(store, root, f"/r/{name}.txt", ["harbour lantern 天气很好"])
    put_file(store, root, "/r/sub/f.txt", ["harbour harbour harbour lantern"])
    for i in range(8):  # files without the words: BM25's IDF then tells the words apart from noise
        put_file(store, root, f"/r/sub/g{i}.txt", [f"nothing to see {i}"])
    yield store
    store.close()


def test_ties_come_in_chunk_id_order_at_every_cut(store):
    full = store.search_lexical("lantern", 10)
    tied = [cid for cid, s in full if s == full[0][1]]
    assert len(full) == 6 and len(tied) == 5 and tied == sorted(tied)
    for limit in (1, 2, 3, 4):
        assert store.search_lexical("lantern", limit) == full[:limit]


def test_words_and_cjk_pairs_add_up_with_the_same_tie_order(store):
    words = dict(store.search_lexical("harbour", 10))
    cjk = dict(store.search_lexical("天气", 10))
    both = store.search_lexical("harbour 天气", 10)
    assert {cid: pytest.approx(words.get(cid, 0) + cjk.get(cid, 0)) for cid, _ in both} == dict(both)
    assert set(cjk) < set(words)  # the file without CJK is found by its words only
    tied = max(([cid for cid, s in both if s == score] for score in {s for _, s in both}), key=len)
    assert len(tied) == 5 and tied == sorted(tied)  # the five copies, next to each other, by id


def test_within_where_and_one_pass_give_the_plain_searchs_list(store):
    for query in ("harbour lantern", "天气", "lantern 天气"):
        plain = store.search_lexical(query, 4)
        ids = [cid for cid, _ in store.search_lexical(query, 100)]
        assert store.search_lexical(query, 4, within=ids) == plain
        assert store.search_lexical_where(query, 4, files_where(["/r"])) == plain
        top, scores = store.search_lexical_and_score(query, 4, ids[-2:])
        assert top == plain and scores == dict(store.search_lexical(query, 100, within=ids[-2:]))
    assert store.search_lexical("harbour", 10, within=[]) == []
    assert store.search_lexical("the of and", 10) == store.search_lexical("", 10) == []


def test_where_keeps_to_the_allowed_files(store):
    found = store.search_lexical_where("harbour", 10, files_where(["/r/sub"]))
    assert len(found) == 1 and store.chunks([found[0][0]])[found[0][0]].path == "/r/sub/f.txt"
    assert store.search_lexical_where("harbour", 10, files_where(types=["pdf"])) == []
