"""Hybrid search's lexical side in one pass: the top passages by BM25, and the BM25 of given passages.

Why: hybrid search shows (and fuses) both first-stage scores for every candidate, so a passage found only by
the dense side needs its BM25 too. Asked as a second MATCH restricted to those ids, FTS5 computes BM25 for
every matching passage again; at a million passages that second pass was 45% of a hybrid query (~50 ms of
~115). Here the one MATCH's scores are kept in a temporary table and read twice. The scores are exactly those
of `Store.search_lexical`, and so is the order up to ties (tests/integration/library/test_bm25_pair.py compares them).
"""

from __future__ import annotations

import sqlite3
from typing import Sequence

from ..base.errors import StoreError
from .cjk import CJK_TABLE, cjk_query
from .db import Store, fts_query

__all__ = ["search_lexical_and_score"]


def search_lexical_and_score(store: Store, query: str, limit: int,
                             also: Sequence[int]) -> tuple[list[tuple[int, float]], dict[int, float]]:
    """(`store.search_lexical(query, limit)`, {id: score} for each passage of `also` that matches the query);
    a passage of `also` missing from the dict shares no word with the query (its BM25 is 0)."""
    expr = fts_query(query)
    if expr is None:
        return [], {}
    top, scores = _one_pass(store, "chunks_fts", expr, limit, also)
    cjk = cjk_query(query)
    if cjk is not None:  # as in search_lexical: a passage's scores from the two tables add up
        top_cjk, scores_cjk = _one_pass(store, CJK_TABLE, cjk, limit, also)
        merged = dict(top)
        for cid, s in top_cjk:
            merged[cid] = merged.get(cid, 0.0) + s
        top = sorted(merged.items(), key=lambda kv: -kv[1])[: int(limit)]
        for cid, s in scores_cjk.items():
            scores[cid] = scores.get(cid, 0.0) + s
    return top, scores


def _one_pass(store: Store, table: str, expr: str, limit: int,
              also: Sequence[int]) -> tuple[list[tuple[int, float]], dict[int, float]]:
    ids = list(dict.fromkeys(int(i) for i in also))
    # table: one of two constants; every value is a parameter.
    sql = (f"WITH m AS MATERIALIZED (SELECT rowid AS id, bm25({table}) AS s FROM {table} WHERE {table} MATCH ?) "
           "SELECT id, s, 0 FROM (SELECT id, s FROM m ORDER BY s, id LIMIT ?)")
    params: list = [expr, int(limit)]
    if ids:
        sql += f" UNION ALL SELECT id, s, 1 FROM m WHERE id IN ({','.join('?' * len(ids))})"
        params += ids
    try:
        rows = store.conn.execute(sql, params).fetchall()
    except sqlite3.OperationalError as exc:
        raise StoreError(f"lexical search failed: {exc}") from exc
    # bm25() is lower-is-better; the library's lexical score is its negation, as in Store.search_lexical.
    top = [(int(r[0]), -float(r[1])) for r in rows if r[2] == 0]
    return top, {int(r[0]): -float(r[1]) for r in rows if r[2] == 1}
