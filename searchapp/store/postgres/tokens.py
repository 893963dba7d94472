"""The words of a passage exactly as the SQLite library's full-text index reads them (decision 0119).

SQLite's FTS5 table tokenizes with `porter unicode61 remove_diacritics 2` (store/migrations.py); PostgreSQL's
own text search stems with Snowball and ranks with ts_rank, neither of which gives today's BM25. So the terms
are made here by an in-memory FTS5 table with the same tokenizer (the way store/bm25_postings.py tokenizes a
query), and PostgreSQL stores them as postings: the same terms, the same passage lengths, the same BM25.
"""

from __future__ import annotations

import sqlite3
import threading
from collections import Counter
from typing import Sequence

from ..bm25_postings import TOKENIZERS

__all__ = ["passage_terms", "word_terms", "SPEC"]

SPEC = TOKENIZERS["chunks_fts"]
_LOCK = threading.Lock()
_DB: list[sqlite3.Connection] = []  # one in-memory FTS5 table for the process, used under _LOCK


def _table() -> sqlite3.Connection:
    if not _DB:
        db = sqlite3.connect(":memory:", check_same_thread=False, isolation_level=None)
        db.execute(f"CREATE VIRTUAL TABLE t USING fts5(x, tokenize='{SPEC}')")  # SPEC: a constant of store
        db.execute("CREATE VIRTUAL TABLE v USING fts5vocab(t, instance)")
        _DB.append(db)
    return _DB[0]


def passage_terms(texts: Sequence[str]) -> list[tuple[Counter[str], int]]:
    """For each text: (term -> how many times it occurs, its length in tokens), as FTS5 counts them."""
    out: list[tuple[Counter[str], int]] = [(Counter(), 0) for _ in texts]
    if not texts:
        return out
    with _LOCK:
        db = _table()
        db.execute("BEGIN")
        try:
            db.executemany("INSERT INTO t(rowid, x) VALUES (?, ?)", ((i + 1, t) for i, t in enumerate(texts)))
            for doc, term, n in db.execute("SELECT doc, term, count(*) FROM v GROUP BY doc, term"):
                counts, length = out[doc - 1]
                counts[term] = n
                out[doc - 1] = (counts, length + n)
        finally:
            db.execute("ROLLBACK")  # the table is only a tokenizer: nothing is kept
    return out


def word_terms(word: str) -> tuple[str, ...]:
    """The terms FTS5 makes of one query word (one, almost always; none or several for a few)."""
    with _LOCK:
        db = _table()
        db.execute("BEGIN")
        try:
            db.execute("INSERT INTO t(rowid, x) VALUES (1, ?)", (word,))
            return tuple(term for term, in db.execute("SELECT term FROM v ORDER BY offset"))
        finally:
            db.execute("ROLLBACK")
