"""The character postings of CJK text on a shared library (decision 0133): written with each batch's passages,
and made once for the passages a library held before schema 6.

The desktop indexes the CJK characters of a passage one per token in a second FTS5 table (store/cjk.py) and
matches a query's character pairs there as phrases. Here each passage with CJK text gets the same table's
terms as postings (tokens.cjk_passage_terms: each character and each pair side by side, with the passage's
length in that table), so BM25 reads them as it reads the words' postings, and chunks.n_cjk keeps that length
for the per-root totals (schema.py's triggers).
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Optional, Sequence

from ..cjk import CJK_CLASS
from .sql_shim import Runs

__all__ = ["write_cjk_postings", "backfill_cjk", "BACKFILL_BATCH"]

BACKFILL_BATCH = 2_000  # passages read, tokenized and written at a time by the one-off backfill
CjkTerms = Optional[tuple[Counter[str], int]]


def write_cjk_postings(cur: Any, ids: Sequence[int], cjk: Sequence[CjkTerms]) -> None:
    """COPY the character postings of passages `ids` (a psycopg cursor inside the batch's transaction), in the
    primary key's order (term, passage: `ids` ascending and a stable sort), as the words' (decision 0136)."""
    if not any(c for c in cjk):
        return
    rows = sorted(((term, cid, tf, got[1]) for cid, got in zip(ids, cjk, strict=True) if got is not None
                   for term, tf in got[0].items()), key=lambda r: r[0].encode())  # "C": byte order of UTF-8
    with cur.copy("COPY cjk_postings (term, chunk_id, tf, dl) FROM STDIN") as copy:
        for row in rows:
            copy.write_row(row)


# Passages and their character postings, as the desktop keeps them and as a kept Remove's copy keeps them (decision
# 0135): an Undo after the migration puts a removal made before it back with its characters too. Constants.
_BACKFILLED = (("chunks", "cjk_postings"), ("removed_chunks", "removed_cjk_postings"))


def backfill_cjk(store: Runs) -> int:
    """Inside the migration's transaction: the character postings and lengths of every passage with a CJK
    character, a kept removal's included, and the roots' character totals; how many passages got them. Runs once
    (schema 5 -> 6)."""
    done = [_backfill(store, chunks, postings) for chunks, postings in _BACKFILLED]
    if done[0]:  # an UPDATE fires no totals trigger: the roots' character totals are counted once, here
        store.rows("UPDATE chunk_totals t SET n_cjk_rows = g.n, n_cjk_tokens = g.t FROM (SELECT f.root_id, "
                   "count(c.n_cjk) AS n, coalesce(sum(c.n_cjk), 0) AS t FROM chunks c JOIN files f ON f.id = c.file_id "
                   "GROUP BY f.root_id) g WHERE t.root_id = g.root_id")
    return sum(done)


def _backfill(store: Runs, chunks: str, postings: str) -> int:
    """backfill_cjk over one pair of tables (_BACKFILLED's constants, never a user's text)."""
    from .tokens import cjk_passage_terms

    done, after = 0, 0
    store.rows(f"DELETE FROM {postings}")  # noqa: S608 (made whole here: none yet, unless a test rolled the version back)
    while True:
        rows = store.rows(f"SELECT id, text FROM {chunks} WHERE id > %s AND text ~ %s ORDER BY id LIMIT %s",  # noqa: S608
                          (after, f"[{CJK_CLASS}]", BACKFILL_BATCH))
        if not rows:
            break
        ids, texts = [int(r[0]) for r in rows], [str(r[1]) for r in rows]
        cjk = cjk_passage_terms(texts)
        store.run_many(f"UPDATE {chunks} SET n_cjk = %s WHERE id = %s",  # noqa: S608
                       [(got[1], cid) for cid, got in zip(ids, cjk, strict=True) if got is not None])
        store.run_many(f"INSERT INTO {postings} (term, chunk_id, tf, dl) VALUES (%s, %s, %s, %s)",  # noqa: S608
                       [(term, cid, tf, got[1]) for cid, got in zip(ids, cjk, strict=True) if got is not None
                        for term, tf in got[0].items()])
        done += sum(1 for got in cjk if got is not None)
        after = ids[-1]
    return done
