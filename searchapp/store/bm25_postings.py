"""BM25 read from FTS5's own index, bit for bit what FTS5's bm25() gives, without bm25()'s per-passage cost.

FTS5's bm25() costs ~1-2 µs for every passage holding any query word (at a million passages, 41k of them for
a median query: most of a hybrid search). Its score decomposes per phrase, in the MATCH expression's order:

    score = Σ_i idf_i · tf_i·(k1+1) / (tf_i + k1·(1 − b + b·D/avgdl)),  k1 = 1.2, b = 0.75
    idf_i = ln((N − n_i + 0.5) / (n_i + 0.5)), 1e-6 when that is ≤ 0

(N passages, n_i of them holding phrase i, D the passage's length in tokens, avgdl = all tokens / N). Each
term's postings come from the table's fts5vocab 'instance' view as one string of passage ids (one id per
occurrence: repeats are the term frequency), ~0.1 µs an occurrence. D is what costs (one docsize row per
passage), and D only lowers a score: each passage gets an upper bound with its smallest possible D, and D is
read only for the passages whose bound can still reach the k-th best exact score (rank-safe: a passage left
out scores below k passages already scored). The exact scores are computed with the same operations in the
same order as FTS5's C code, so they are the same doubles (tests/integration/library/test_bm25_postings.py).

Only phrases of one token (a word, or a word typed `word*`) are read this way; anything else (a CJK
character pair, a word the tokenizer splits) returns None and the caller runs FTS5's own MATCH. N and the
token total are FTS5's averages record; every read of one search runs in one read transaction.
"""

from __future__ import annotations

import json
import math
import re
import sqlite3
import threading
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Optional, Sequence

import numpy as np

__all__ = ["Ranked", "ranked", "TOKENIZERS", "phrases_of", "fts_averages", "read_snapshot", "bm25_idf"]

K1, B = 1.2, 0.75  # FTS5's bm25() constants
# The tokenizer of each FTS5 table this module reads (migrations.py); a table whose CREATE statement does not
# name its tokenizer this way is left to FTS5's MATCH.
TOKENIZERS = {"chunks_fts": "porter unicode61 remove_diacritics 2", "chunks_cjk": "unicode61 remove_diacritics 0"}
FIRST_SHARE = 2  # passages scored exactly in the first round: this many × the limit, + 64
_PHRASE = re.compile(r'"((?:[^"]|"")*)"( \*)?')
_LAST_CHAR = "\U0010ffff"  # above every character a token can hold: the end of a prefix's range of terms


@dataclass
class Ranked:
    """A search's lexical top and the scores of the passages asked for; how much of the work was skipped."""

    top: list[tuple[int, float]]
    scores: dict[int, float]
    matched: int = 0  # passages holding any phrase (inside `allowed` when given)
    examined: int = 0  # of those, passages whose length was read and score computed exactly
    phrases: list[int] = field(default_factory=list)  # passages holding each phrase (n_i)


def phrases_of(expr: str) -> Optional[list[tuple[str, bool]]]:
    """[(text, typed as a prefix)] of an expression made of quoted phrases OR'ed (fts_query's shape), else None."""
    out: list[tuple[str, bool]] = []
    for part in expr.split(" OR ") if expr else []:
        m = _PHRASE.fullmatch(part)
        if m is None:
            return None
        out.append((m.group(1).replace('""', '"'), m.group(2) is not None))
    return out or None


def ranked(conn: sqlite3.Connection, table: str, expr: str, limit: int, *, also: Sequence[int] = (),
           allowed: Optional[np.ndarray] = None) -> Optional[Ranked]:
    """The top `limit` passages by BM25 over `expr` (in `allowed`, sorted chunk ids, when given), best first,
    ties by lower id, and {id: score} for the passages of `also` that match (wherever they are). None when
    this table or expression cannot be read this way (the caller runs FTS5's MATCH instead)."""
    spec = TOKENIZERS.get(table)
    phrases = phrases_of(expr)
    if spec is None or phrases is None:
        return None
    terms = [_tokens(spec, text) for text, _ in phrases]
    if any(len(t) != 1 for t in terms):
        return None
    try:
        with read_snapshot(conn):
            if not _readable(conn, table, spec):
                return None
            totals = fts_averages(conn, table)
            if totals is None:
                return None
            postings = [_postings(conn, table, t[0], prefix) for t, (_, prefix) in zip(terms, phrases, strict=True)]
            return _rank(conn, table, totals, postings, limit, also, allowed)
    except sqlite3.DatabaseError:  # anything unexpected here: FTS5's MATCH answers (or reports the damage)
        return None


def _rank(conn: sqlite3.Connection, table: str, totals: tuple[int, int], postings: list[np.ndarray], limit: int,
          also: Sequence[int], allowed: Optional[np.ndarray]) -> Optional[Ranked]:
    n_rows, n_tokens = totals
    per_phrase = [_runs(p) for p in postings]
    counts = [len(docs) for docs, _ in per_phrase]
    if n_rows <= 0 or any(c > n_rows for c in counts):
        return None  # the averages record and the postings disagree: leave it to FTS5
    avgdl = float(n_tokens) / float(n_rows)
    idf = [bm25_idf(n_rows, c) for c in counts]
    docs = np.sort(np.concatenate([d for d, _ in per_phrase]))
    docs = docs[np.concatenate(([True], docs[1:] != docs[:-1]))] if len(docs) else docs
    tf = np.zeros((len(per_phrase), len(docs)))
    for i, (d, c) in enumerate(per_phrase):
        tf[i, np.searchsorted(docs, d)] = c
    out = Ranked([], {}, phrases=counts)
    pool = None if allowed is None else np.flatnonzero(_members(docs, allowed))
    ptf = tf if pool is None else tf[:, pool]  # the passages a top may come from
    out.matched = ptf.shape[1]
    length = np.full(len(docs), np.nan)
    if out.matched and limit > 0:
        # A passage holding a phrase tf times is at least tf tokens long; shorter only raises the score.
        bound = _scores(ptf, np.maximum(ptf.max(axis=0), 1.0), idf, avgdl) * (1 + 1e-9) + 1e-12
        first = min(out.matched, FIRST_SHARE * limit + 64)
        pick = np.argpartition(-bound, first - 1)[:first] if first < out.matched else np.arange(out.matched)
        at = pick if pool is None else pool[pick]
        exact = _exact(conn, table, docs, at, tf, idf, avgdl, length)
        if len(exact) >= limit and first < out.matched:
            theta = float(np.partition(exact, len(exact) - limit)[len(exact) - limit])  # the k-th best so far
            more = bound >= theta  # every other passage scores below k already scored
            more[pick] = False
            rest = np.flatnonzero(more)
            if len(rest):
                at = np.concatenate([at, rest if pool is None else pool[rest]])
                exact = np.concatenate([exact, _exact(conn, table, docs, at[len(pick):], tf, idf, avgdl, length)])
        order = np.lexsort((docs[at], -exact))[:limit]
        out.top = list(zip(docs[at][order].tolist(), exact[order].tolist(), strict=True))
        out.examined = len(at)
    also_ids = np.asarray(sorted(set(also)), dtype=np.int64)
    also_at = np.searchsorted(docs, also_ids)
    found = also_at < len(docs)
    found[found] = docs[also_at[found]] == also_ids[found]
    if found.any():
        also_at = also_at[found]
        s = _exact(conn, table, docs, also_at, tf, idf, avgdl, length)
        out.scores = dict(zip(docs[also_at].tolist(), s.tolist(), strict=True))
    return out


def _runs(ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(distinct ids, how many times each occurs) of a sorted array."""
    if not len(ids):
        return ids, np.empty(0, np.int64)
    starts = np.flatnonzero(np.concatenate(([True], ids[1:] != ids[:-1])))
    return ids[starts], np.diff(np.append(starts, len(ids)))


def _members(ids: np.ndarray, sorted_set: np.ndarray) -> np.ndarray:
    """For each of `ids`, whether it is in `sorted_set` (ascending)."""
    if not len(sorted_set):
        return np.zeros(len(ids), dtype=bool)
    at = np.minimum(np.searchsorted(sorted_set, ids), len(sorted_set) - 1)
    return np.asarray(sorted_set[at] == ids, dtype=bool)


def _scores(tf: np.ndarray, dl: np.ndarray, idf: list[float], avgdl: float) -> np.ndarray:
    """FTS5's sum, phrase by phrase in the expression's order, with its operations in its order (fts5_aux.c):
    a passage without a phrase adds 0.0, which changes nothing, as in C."""
    score = np.zeros(tf.shape[1])
    for i in range(tf.shape[0]):
        f = tf[i]
        score = score + idf[i] * ((f * (K1 + 1.0)) / (f + K1 * (1 - B + B * dl / avgdl)))
    return score


def _exact(conn: sqlite3.Connection, table: str, docs: np.ndarray, at: np.ndarray, tf: np.ndarray,
           idf: list[float], avgdl: float, length: np.ndarray) -> np.ndarray:
    """Exact scores of the passages at positions `at` of `docs`; their lengths are read once (`length`: NaN
    until read)."""
    need = at[np.isnan(length[at])]
    if len(need):
        need = np.sort(need)  # positions in `docs`, each once: `at` never repeats one
        length[need] = _lengths(conn, table, docs[need])
    return _scores(tf[:, at], length[at], idf, avgdl)


def bm25_idf(n_rows: int, n_hit: int) -> float:
    """FTS5's BM25 IDF of a term `n_hit` of `n_rows` passages hold: 1e-6 where it is not above 0 (more than half
    hold it; or, asked of a count larger than the rows, as search/word_weight.py's reference can be, not a log of
    a number ≤ 0)."""
    ratio = (n_rows - n_hit + 0.5) / (n_hit + 0.5)
    return math.log(ratio) if ratio > 1.0 else 1e-6


def _postings(conn: sqlite3.Connection, table: str, term: str, prefix: bool) -> np.ndarray:
    """One chunk id per occurrence of `term` (of every term starting with it when `prefix`), sorted."""
    vocab = _vocab(table)
    if prefix:
        sql = f"SELECT group_concat(doc, ' ') FROM temp.{vocab} WHERE term >= ? AND term < ?"  # noqa: S608 (a name made from one of two constants; values are ?)
        params: tuple[Any, ...] = (term, term + _LAST_CHAR)
    else:
        sql = f"SELECT group_concat(doc, ' ') FROM temp.{vocab} WHERE term = ?"  # noqa: S608 (as above)
        params = (term,)
    text = conn.execute(sql, params).fetchone()[0]
    ids = np.fromstring(text, dtype=np.int64, sep=" ") if text else np.empty(0, np.int64)
    return np.sort(ids) if prefix else ids


def _lengths(conn: sqlite3.Connection, table: str, ids: np.ndarray) -> np.ndarray:
    """The length in tokens of each of `ids` (ascending), from FTS5's docsize records (a varint per column;
    these tables have one column); 0 for an id without one. The records come back as one hex string: one
    varint after the other, decoded in NumPy (a row per passage cost ~4 µs in Python)."""
    sql = (f"SELECT group_concat(id, ' '), group_concat(hex(sz), '') FROM {table}_docsize "  # noqa: S608 (one of two constants; the ids are one parameter)
           "WHERE id IN (SELECT value FROM json_each(?))")
    got_ids, sizes = conn.execute(sql, (json.dumps(ids.tolist()),)).fetchone()
    out = np.zeros(len(ids))
    if not got_ids:
        return out
    got = np.fromstring(got_ids, dtype=np.int64, sep=" ")
    size = _varint_stream(np.frombuffer(bytes.fromhex(sizes), dtype=np.uint8))
    if len(size) != len(got):
        raise sqlite3.DatabaseError("unexpected FTS5 docsize records")
    order = np.argsort(got)
    got, size = got[order], size[order]
    at = np.minimum(np.searchsorted(got, ids), len(got) - 1)
    ok = got[at] == ids
    out[ok] = size[at[ok]]
    return out


def _varint_stream(b: np.ndarray) -> np.ndarray:
    """SQLite varints laid end to end (each record here is one), as float64; a varint ends at a byte < 0x80."""
    ends = np.flatnonzero(b < 0x80)
    starts = np.concatenate(([0], ends[:-1] + 1))
    value = np.zeros(len(ends), dtype=np.int64)
    longest = int((ends - starts).max()) + 1 if len(ends) else 0
    if longest > 8 or (len(ends) and ends[-1] != len(b) - 1):
        raise sqlite3.DatabaseError("unexpected FTS5 docsize records")
    for j in range(longest):  # byte j of each varint long enough to have one
        has = starts + j <= ends
        value[has] = (value[has] << 7) | (b[starts[has] + j] & 0x7F)
    return value.astype(np.float64)


def fts_averages(conn: sqlite3.Connection, table: str) -> Optional[tuple[int, int]]:
    """(rows, tokens) from FTS5's averages record (%_data row 1: varint rows, then a varint per column)."""
    row = conn.execute(f"SELECT block FROM {table}_data WHERE id = 1").fetchone()  # noqa: S608 (one of two constants)
    if row is None or not isinstance(row[0], bytes):
        return None
    values = _varints(row[0])
    return (values[0], sum(values[1:])) if len(values) >= 2 else None


def _varints(blob: bytes) -> list[int]:
    """SQLite's varints (big-endian 7 bits a byte, the ninth byte whole), as FTS5 writes its records."""
    out: list[int] = []
    i = 0
    while i < len(blob):
        value = 0
        for j in range(9):
            c = blob[i]
            i += 1
            if j == 8:
                value = (value << 8) | c
                break
            value = (value << 7) | (c & 0x7F)
            if not c & 0x80 or i >= len(blob):
                break
        out.append(value)
    return out


def _readable(conn: sqlite3.Connection, table: str, spec: str) -> bool:
    """Whether `table` uses the tokenizer this module tokenizes with, and its fts5vocab view exists (a temp
    table of this connection, made on its first search; checked each time: ~20 µs)."""
    row = conn.execute("SELECT sql FROM sqlite_master WHERE name = ?", (table,)).fetchone()
    if row is None or f"tokenize='{spec}'" not in (row[0] or ""):
        return False
    try:
        conn.execute(f"CREATE VIRTUAL TABLE IF NOT EXISTS temp.{_vocab(table)} "  # table: one of two constants
                     f"USING fts5vocab(main, {table}, instance)")
    except sqlite3.OperationalError:  # an SQLite without fts5vocab
        return False
    return True


def _vocab(table: str) -> str:
    return f"{table}_instances"


class read_snapshot:
    """One read transaction around a search's reads, so the counts, postings and lengths are of one state of
    the library (a sync may commit between two statements otherwise); nothing when one is already open."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        self.began = False

    def __enter__(self) -> None:
        if not self.conn.in_transaction:
            self.conn.execute("BEGIN")
            self.began = True

    def __exit__(self, *exc: object) -> None:
        if self.began:
            self.conn.commit()


_TOKENIZER_LOCK = threading.Lock()
_TOKENIZER_DB: dict[str, sqlite3.Connection] = {}


@lru_cache(maxsize=4096)
def _tokens(spec: str, text: str) -> tuple[str, ...]:
    """The terms FTS5 indexes `text` as with tokenizer `spec`: an in-memory FTS5 table with the same
    tokenizer tokenizes it, so the terms are FTS5's own (case folding, diacritics, Porter stems)."""
    with _TOKENIZER_LOCK:
        db = _TOKENIZER_DB.get(spec)
        if db is None:
            db = sqlite3.connect(":memory:", check_same_thread=False, isolation_level=None)
            db.execute(f"CREATE VIRTUAL TABLE t USING fts5(x, tokenize='{spec}')")  # spec: a constant of this module
            db.execute("CREATE VIRTUAL TABLE v USING fts5vocab(t, instance)")
            _TOKENIZER_DB[spec] = db
        db.execute("DELETE FROM t")
        db.execute("INSERT INTO t(rowid, x) VALUES (1, ?)", (text,))
        return tuple(term for term, in db.execute("SELECT term FROM v ORDER BY offset"))
