"""BM25 over the two FTS5 tables (words: chunks_fts; CJK character pairs: chunks_cjk) and the one merge of
their scores. Store's lexical methods (db.py) turn a query into MATCH expressions and come here.

A passage found in both tables scores the sum of its two BM25s (library score: -bm25, higher is better).
Tie order, everywhere: higher score first, then the lower chunk id. Each table's SQL orders `s, rowid` so
its LIMIT cuts ties the same way the merge orders them; a search is then the same list whichever way it ran
(plain, restricted to ids, joined to the filtered files, or in one pass with the scores of given passages).

Why a one-pass variant: hybrid search shows (and fuses) both first-stage scores for every candidate, so a
passage found only by the dense side needs its BM25 too. Asked as a second MATCH restricted to those ids,
FTS5 computes BM25 for every matching passage again; at a million passages that second pass was 45% of a
hybrid query (~50 ms of ~115). `ranked_and_scored` gives both from one reading.

Each table's scores come first from bm25_postings.py (the same doubles as FTS5's bm25(), read from the
index's postings and only the lengths that can matter: ~3x cheaper at a million passages); where it cannot
read an expression (a CJK character pair, a word the tokenizer splits) FTS5's MATCH runs, keeping one
MATCH's scores in a temporary table read twice (tests/integration/library/test_bm25_pair.py and
test_bm25_postings.py compare the ways).
"""

from __future__ import annotations

import sqlite3
from typing import TYPE_CHECKING, Any, Iterable, Optional, Sequence

from ..base.errors import StoreError

if TYPE_CHECKING:
    import numpy as np

__all__ = ["merge_bm25", "ranked", "ranked_and_scored", "Match", "Fragment", "STOP_WORDS"]

# Dropped from lexical queries: they match nearly every passage and drown BM25 in noise. Kept here, beside
# the ranking and away from numpy, so a query can be checked without loading the store.
STOP_WORDS = frozenset(
    """a an and are as at be been but by can could did do does for from had has have how i if in into is it its
    me my no not of on or our she so than that the their them then there these they this those to was we were what
    when where which who whom why will with would you your""".split()
)

Match = tuple[str, str]  # (FTS5 table: a constant of this package, MATCH expression: a parameter)
Fragment = tuple[str, list[Any]]  # a WHERE fragment over `files f` / `chunks c` and its parameters (scope.py)
Scored = list[tuple[int, float]]


def merge_bm25(parts: Iterable[Scored], limit: int) -> Scored:
    """The one merge: [(chunk id, summed score)] over every part, best first, ties by chunk id; the top `limit`."""
    scores: dict[int, float] = {}
    for part in parts:
        for cid, s in part:
            scores[cid] = scores.get(cid, 0.0) + s
    return sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))[: max(0, int(limit))]


def ranked(conn: sqlite3.Connection, matches: Sequence[Match], limit: int, *,
           within: Optional[Sequence[int]] = None, where: Optional[Fragment] = None,
           allowed: Optional[np.ndarray] = None) -> Scored:
    """The top `limit` passages by BM25 over `matches` ([] when none). `within`: only these chunk ids;
    `where`: only passages of the files the fragment allows (FTS5 joined to files, no id list sent);
    `allowed`: the chunk ids `where` allows, sorted, when the caller has them (read without the join)."""
    if within is not None and not within:
        return []
    return merge_bm25((_table_top(conn, table, expr, limit, within, where, allowed) for table, expr in matches),
                      limit)


def ranked_and_scored(conn: sqlite3.Connection, matches: Sequence[Match], limit: int, also: Sequence[int], *,
                      where: Optional[Fragment] = None,
                      allowed: Optional[np.ndarray] = None) -> tuple[Scored, dict[int, float]]:
    """(`ranked(conn, matches, limit, where=, allowed=)`, {id: score} for each passage of `also` that matches,
    inside the allowed files or not); a passage of `also` missing from the dict shares no word with the query
    (its BM25 is 0)."""
    from . import bm25_postings  # NumPy: loaded by the first search, not by importing the store

    tops: list[Scored] = []
    scores: dict[int, float] = {}
    for table, expr in matches:
        fast = (bm25_postings.ranked(conn, table, expr, limit, also=also, allowed=allowed if where else None)
                if where is None or allowed is not None else None)
        if fast is not None:
            top, part = fast.top, fast.scores
        elif where is None:
            top, part = _one_pass(conn, table, expr, limit, also)
        else:  # filtered, without the postings: the top inside the files, then the asked passages' scores
            top = _bm25(conn, table, expr, limit, None, where)
            part = dict(_bm25(conn, table, expr, len(also), list(also), None)) if also else {}
        tops.append(top)
        for cid, s in part.items():
            scores[cid] = scores.get(cid, 0.0) + s
    return merge_bm25(tops, limit), scores


def _table_top(conn: sqlite3.Connection, table: str, expr: str, limit: int, within: Optional[Sequence[int]],
               where: Optional[Fragment], allowed: Optional[np.ndarray]) -> Scored:
    """One table's top: from the postings when they can be read (and, filtered, the allowed ids are known),
    else FTS5's MATCH."""
    from . import bm25_postings

    if where is None or (allowed is not None and within is None):
        fast = bm25_postings.ranked(conn, table, expr, 0 if within is not None else limit,
                                    also=within or (), allowed=allowed if where is not None else None)
        if fast is not None:
            if within is None:
                return fast.top
            return sorted(fast.scores.items(), key=lambda kv: (-kv[1], kv[0]))[: max(0, int(limit))]
    return _bm25(conn, table, expr, limit, within, where)


def _bm25(conn: sqlite3.Connection, table: str, expr: str, limit: int, within: Optional[Sequence[int]],
          where: Optional[Fragment]) -> Scored:
    sql = f"SELECT {table}.rowid, bm25({table}) AS s FROM {table} "  # noqa: S608 (table: one of two constants; values are ?)
    params: list[Any] = []
    if where is not None:
        sql += f"JOIN chunks c ON c.id = {table}.rowid JOIN files f ON f.id = c.file_id "
    sql += f"WHERE {table} MATCH ?"
    params.append(expr)
    if where is not None:
        sql += f" AND {where[0]}"
        params += where[1]
    if within is not None:
        sql += f" AND {table}.rowid IN ({','.join('?' * len(within))})"
        params += list(within)
    sql += f" ORDER BY s, {table}.rowid LIMIT ?"
    params.append(int(limit))
    return [(int(r[0]), -float(r[1])) for r in _rows(conn, sql, params)]


def _one_pass(conn: sqlite3.Connection, table: str, expr: str, limit: int,
              also: Sequence[int]) -> tuple[Scored, dict[int, float]]:
    ids = list(dict.fromkeys(int(i) for i in also))
    # table: one of two constants; every value is a parameter.
    sql = (f"WITH m AS MATERIALIZED (SELECT rowid AS id, bm25({table}) AS s FROM {table} WHERE {table} MATCH ?) "  # noqa: S608 (table: one of two constants; values are ?)
           "SELECT id, s, 0 FROM (SELECT id, s FROM m ORDER BY s, id LIMIT ?)")
    params: list[Any] = [expr, int(limit)]
    if ids:
        sql += f" UNION ALL SELECT id, s, 1 FROM m WHERE id IN ({','.join('?' * len(ids))})"  # noqa: S608 (table: one of two constants; values are ?)
        params += ids
    rows = _rows(conn, sql, params)
    # bm25() is lower-is-better; the library's lexical score is its negation.
    top = [(int(r[0]), -float(r[1])) for r in rows if r[2] == 0]
    return top, {int(r[0]): -float(r[1]) for r in rows if r[2] == 1}


def _rows(conn: sqlite3.Connection, sql: str, params: list[Any]) -> list[tuple[Any, ...]]:
    try:
        return conn.execute(sql, params).fetchall()
    except sqlite3.OperationalError as exc:
        raise StoreError(f"lexical search failed: {exc}") from exc
