"""BM25 read from FTS5's postings (store/bm25_postings.py) ranks exactly as FTS5's own bm25() does: the same
passages, the same order (ties by lower id), the same scores to the last bit, while reading the lengths of
only some of the matching passages (the rest provably score below the k-th).

A real SQLite library of a few thousand passages: words of very different frequencies (so some query words are
common and some rare), repeated words, exact copies (ties), Porter variants, CJK text, and deleted and re-added
files (the FTS5 index then holds deletions)."""

from __future__ import annotations

import random

import numpy as np
import pytest

from searchapp.store import bm25_postings, lexical
from searchapp.store.cjk import CJK_TABLE, cjk_query
from searchapp.store.lexical_queries import fts_query
from searchapp.store.scope import files_where
from store_files import new_store, put_file

COMMON = "man woman playing people three".split()
MIDDLE = "guitar horse riding dancing cutting onion board child".split()
RARE = "flute cricket chalk silencer pistol panda".split()
FILLER = "a the is on with and of in to".split()
CJK = ["北京是中国的首都", "東京は日本の首都です", "今天的天气很好", "北方的天气"]
QUERIES = ["A man is playing a flute.", "woman riding a horse", "three people cutting onion chalk",
           "man woman playing people three", "panda", "plays played", "nothing-here zzz", "the of and"]


def _passage(rng: random.Random) -> str:
    words = []
    # Lengths spread (BM25's length normalisation matters); some past 127 tokens, stored in two varint bytes.
    for _ in range(rng.randint(2, 60) if rng.random() < 0.9 else rng.randint(120, 400)):
        r = rng.random()
        pool = COMMON if r < 0.25 else MIDDLE if r < 0.35 else RARE if r < 0.37 else FILLER
        words.append(rng.choice(pool))
    return " ".join(words)


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    rng = random.Random(11)
    store, root = new_store(tmp_path_factory.mktemp("postings"))
    fids = []
    for f in range(40):
        passages = [_passage(rng) for _ in range(80)]
        passages[0] = "man playing a flute"  # the very same passage in every file: equal scores, tie order
        if f % 4 == 0:
            passages[1] = rng.choice(CJK) + " man"
        if f % 5 == 0:
            passages[2] = "playing plays played player flute flute flute"
        fids.append(put_file(store, root, f"/r/d{f % 4}/f{f:02d}.txt", passages))
    for fid in fids[3:12:2]:  # deletions inside the index; then the same paths again with new text
        store.delete_file(fid)
    for f in range(5):
        put_file(store, root, f"/r/again/f{f}.txt", [_passage(rng) for _ in range(60)])
    yield store
    store.close()


def _fts5(conn, table, expr, limit, ids=None):
    sql = f"SELECT rowid, bm25({table}) AS s FROM {table} WHERE {table} MATCH ?"  # noqa: S608 (table: a constant; values are ?)
    params: list = [expr]
    if ids is not None:
        sql += f" AND rowid IN ({','.join('?' * len(ids))})"
        params += list(ids)
    return [(int(r[0]), -float(r[1])) for r in conn.execute(sql + " ORDER BY s, rowid LIMIT ?", [*params, limit])]


def _all_ids(store):
    return [cid for cid, in store.conn.execute("SELECT id FROM chunks ORDER BY id")]


@pytest.mark.parametrize("query", QUERIES)
def test_the_top_and_the_asked_scores_are_fts5s_to_the_bit(store, query):
    conn = store.conn
    long = conn.execute("SELECT count(*) FROM chunks_fts_docsize WHERE length(sz) > 1").fetchone()[0]
    assert long > 100  # lengths of two varint bytes are read too
    expr = fts_query(query)
    ids = _all_ids(store)
    also = random.Random(query).sample(ids, 60)
    for limit in (1, 3, 10, 50, 400):
        got = bm25_postings.ranked(conn, "chunks_fts", expr, limit, also=also)
        assert got is not None, query  # read from the postings, not handed back to FTS5
        assert got.top == _fts5(conn, "chunks_fts", expr, limit), (query, limit)  # same ids, order, doubles
        expected = dict(_fts5(conn, "chunks_fts", expr, len(also), also))
        assert got.scores == expected, query


def test_ties_at_every_cut_come_in_id_order(store):
    expr = fts_query("man playing flute")
    full = _fts5(store.conn, "chunks_fts", expr, 80)
    ties = sum(a[1] == b[1] for a, b in zip(full, full[1:], strict=False))
    assert ties >= 20  # the passages every file (or every fifth) has: cuts fall inside groups of equal scores
    for limit in range(1, len(full) + 1):
        got = bm25_postings.ranked(store.conn, "chunks_fts", expr, limit)
        assert got is not None and got.top == full[:limit], limit


def test_lengths_are_read_only_where_they_can_change_the_top(store):
    expr = fts_query("a man is playing a flute")  # two common words, one rare
    got = bm25_postings.ranked(store.conn, "chunks_fts", expr, 5)
    assert got is not None and got.top == _fts5(store.conn, "chunks_fts", expr, 5)
    assert got.matched > 1000
    assert got.examined < got.matched / 4  # most passages were left out, and the top is still FTS5's


def test_prefixes_read_every_term_they_start(store):
    for typed, prefixes in (("play*", ["play"]), ("flute* man", ["flute"]), ("pl*", ["pl"])):
        expr = fts_query(typed.replace("*", ""), prefixes)
        assert " *" in expr
        got = bm25_postings.ranked(store.conn, "chunks_fts", expr, 30)
        assert got is not None and got.top == _fts5(store.conn, "chunks_fts", expr, 30), typed
        assert got.top  # something matched: the comparison is not of two empty lists


def test_cjk_single_characters_are_read_and_pairs_are_left_to_fts5(store):
    one = cjk_query("北")
    got = bm25_postings.ranked(store.conn, CJK_TABLE, one, 20)
    assert got is not None and got.top == _fts5(store.conn, CJK_TABLE, one, 20) and got.top
    pair = cjk_query("首都")
    assert bm25_postings.ranked(store.conn, CJK_TABLE, pair, 20) is None  # a two-token phrase
    assert store.search_lexical("首都", 20)  # FTS5's MATCH answers it


def test_a_word_the_tokenizer_splits_is_left_to_fts5(store):
    assert bm25_postings.ranked(store.conn, "chunks_fts", fts_query("man_playing"), 10) is None


def test_inside_allowed_passages(store):
    conn = store.conn
    ids = _all_ids(store)
    allowed = np.array(sorted(random.Random(5).sample(ids, len(ids) // 7)), dtype=np.int64)
    for query in QUERIES[:4]:
        expr = fts_query(query)
        got = bm25_postings.ranked(conn, "chunks_fts", expr, 25, allowed=allowed)
        inside = [(c, s) for c, s in _fts5(conn, "chunks_fts", expr, 100_000) if c in set(allowed.tolist())][:25]
        assert got is not None and got.top == inside, query


@pytest.fixture
def fts5_only(monkeypatch):
    """The store's lexical reads as they were: every table through FTS5's MATCH."""
    def use_fts5():
        monkeypatch.setattr(bm25_postings, "ranked", lambda *a, **k: None)
    return use_fts5


def test_the_stores_searches_are_the_same_either_way(store, fts5_only):
    ids = _all_ids(store)
    also = random.Random(2).sample(ids, 80)
    where = files_where(("/r/d1",), (), None, None)
    allowed = store.chunk_ids_where(where)
    assert 0 < len(allowed) < len(ids) / 2
    queries = QUERIES + ["北京 man", "首都 playing"]

    def run():
        out = []
        for q in queries:
            out.append(store.search_lexical(q, 40))
            out.append(store.search_lexical(q, 40, within=also))
            out.append(store.search_lexical_and_score(q, 40, also))
            out.append(store.search_lexical_where(q, 40, where))
            out.append(store.search_lexical_where(q, 40, where, allowed=allowed))
            out.append(store.search_lexical_and_score(q, 40, also, where=where, allowed=allowed))
        return out

    postings = run()
    fts5_only()
    assert postings == run()


def test_merge_still_adds_the_two_tables(store):
    words_and_cjk = store.search_lexical("北 man", 10)  # 北 alone: read from the CJK table's postings
    matches = [("chunks_fts", fts_query("北 man")), (CJK_TABLE, cjk_query("北"))]
    parts = [_fts5(store.conn, t, e, 10) for t, e in matches]
    assert words_and_cjk == lexical.merge_bm25(parts, 10)


def test_an_unreadable_record_hands_the_search_to_fts5(store, monkeypatch):
    expected = store.search_lexical("man playing flute", 20)

    def broken(*a, **k):
        raise bm25_postings.sqlite3.DatabaseError("unexpected FTS5 docsize records")

    monkeypatch.setattr(bm25_postings, "_lengths", broken)
    assert bm25_postings.ranked(store.conn, "chunks_fts", fts_query("man playing flute"), 20) is None
    assert store.search_lexical("man playing flute", 20) == expected
    assert not store.conn.in_transaction  # the read transaction was closed
