"""Passages committed for their words but not yet embedded (a zero-length `vector` BLOB, see migration 4),
and the queries that embed them later, every file's first passages first, newest-modified files first, the rest of
a huge file last. A mixin of Store."""

from __future__ import annotations

import itertools
import sqlite3
from typing import Any, Iterable, Iterator, Sequence

import numpy as np

__all__ = ["VectorQueue", "NO_VECTOR", "EMBEDDED", "HEAD_PASSAGES", "BULK_PASSAGES", "queue_order"]

NO_VECTOR = b""  # the stored value of a passage still waiting for its vector
EMBEDDED = "length(vector) > 0"  # SQL condition: the passage has its vector (finite or not)
_PENDING = "length(vector) = 0"  # must read exactly so: it is the partial index chunks_unembedded's condition
# The meaning queue: the first HEAD_PASSAGES passages of every file (its title, abstract, first page: what it is
# about), newest-modified file first, then the rest of every file in the same order. Whole files one after
# another let one 29 MB log (17,216 passages, ~30 min on 2 AVX2 cores) keep every note it was saved beside
# without meaning until it was done (a newcomer). Then the rest of the files of up to BULK_PASSAGES passages (an
# ordinary document, newest first), and only then the rest of the bigger ones, the fewest passages first: with
# heads first alone, a 48 MB log saved last (15,890 of 22,963 passages) still went before the rest of every real
# document, ~9 minutes on 2 cores (a newcomer; decision 0188). files.n_chunks is read from the file's row, so the
# order costs nothing a sort of the waiting passages did not already cost (read once a pass: pending_order).
HEAD_PASSAGES = 8
BULK_PASSAGES = 1000


def queue_order() -> str:
    """The meaning queue's ORDER BY over chunks `c` joined to their files `f` (both engines); read at each call, so
    a test may lower BULK_PASSAGES."""
    head = int(HEAD_PASSAGES)
    return (f"ORDER BY c.ordinal >= {head}, CASE WHEN c.ordinal >= {head} AND f.n_chunks > {int(BULK_PASSAGES)} "
            "THEN f.n_chunks ELSE 0 END, f.mtime_ns DESC, f.id, c.id")

class VectorQueue:
    """Needs `conn`, `db` and `select_in` of Store."""

    conn: sqlite3.Connection

    def select_in(self, sql: str, values: Iterable[Any]) -> Iterator[tuple[Any, ...]]:
        raise NotImplementedError  # Store's

    def pending_count(self) -> int:
        return int(self.conn.execute(f"SELECT count(*) FROM chunks WHERE {_PENDING}").fetchone()[0])  # noqa: S608 (a constant condition)

    def pending_here_count(self) -> int:
        """What this writer's meaning pass embeds: every waiting passage, on the desktop (a shared library's writer
        embeds its own roots' alone: PgStore.pending_here_count)."""
        return self.pending_count()

    def embedded_ids(self) -> np.ndarray:
        """Ids of passages that have a vector (what the vector index should hold, NaN rows aside), sorted.

        Every id less the waiting ones: SQLite reads the ids alone from a covering index (chunks_file, ~20 MB at
        a million passages) and the waiting ones from the partial index chunks_unembedded, where asking for
        EMBEDDED reads every row's record from the table itself (text and vector: GBs at a million; 0.9 s with
        its pages cached, 6 s from disk, each time a reader follows another process's commit)."""
        every = self._chunk_ids("")
        every.sort()
        waiting = self._chunk_ids(f"WHERE {_PENDING}")
        if not len(waiting):
            return every
        return np.setdiff1d(every, waiting, assume_unique=True)

    def _chunk_ids(self, where: str) -> np.ndarray:
        """The ids of the chunks `where` selects (a constant condition), in SQLite's order, as int64: joined into
        one text by SQLite and parsed by NumPy (60 ms at a million, a cursor's row tuples 230 ms); read row by
        row when they are too many for one text (SQLite's length limit, past ~100M ids)."""
        try:
            text = self.conn.execute(f"SELECT group_concat(id) FROM chunks {where}").fetchone()[0]  # noqa: S608 (a constant condition)
        except (sqlite3.DataError, sqlite3.OperationalError):
            return np.fromiter(itertools.chain.from_iterable(self.conn.execute(f"SELECT id FROM chunks {where}")),  # noqa: S608 (a constant condition)
                               dtype=np.int64)
        return np.fromstring(text, dtype=np.int64, sep=",") if text else np.empty(0, np.int64)

    def pending_batch(self, limit: int) -> list[tuple[int, str, str, str]]:
        """Up to `limit` waiting passages, newest-modified file first (what a person just saved is what they
        look for): (chunk id, text hash, text, title its file's passages are embedded with)."""
        return self.pending_rows(self.pending_order()[:max(0, int(limit))])  # never "all" for -1

    def pending_order(self) -> np.ndarray:
        """The ids of every waiting passage, every file's first ones first, newest-modified file first (what a
        person just saved is what they look for; the rest of a huge file last: queue_order), read once for a whole meaning pass: sorting every
        waiting passage again for each batch took a first sync of 20,000 passages in batches of 256 1.1 s of its
        3.2 s besides the encoder, and grows with the square."""
        return np.fromiter(itertools.chain.from_iterable(self.conn.execute(
            f"SELECT c.id FROM chunks c JOIN files f ON f.id = c.file_id WHERE length(c.vector) = 0 {queue_order()}"  # noqa: S608 (constants)
        )), dtype=np.int64)

    def pending_of_files(self, keys: Sequence[str], per_file: int) -> np.ndarray:
        """The ids of the waiting passages of the files keyed `keys` (files.path), the files in the order of
        `keys`, at most `per_file` of each (its first ones): what the person is looking at (sync/wanted.py)."""
        of: dict[str, list[int]] = {}
        for key, cid in self.select_in(
                "SELECT f.path, c.id FROM files f JOIN chunks c ON c.file_id = f.id WHERE f.path IN ({}) "
                "AND length(c.vector) = 0 ORDER BY c.id", dict.fromkeys(keys)):
            got = of.setdefault(key, [])
            if len(got) < per_file:
                got.append(int(cid))
        return np.fromiter(itertools.chain.from_iterable(of.get(k, ()) for k in dict.fromkeys(keys)), dtype=np.int64)

    def pending_of_file_ids(self, file_ids: Iterable[int]) -> np.ndarray:
        """The ids of the waiting passages of the files `file_ids` (files.id)."""
        return np.fromiter((int(r[0]) for r in self.select_in(
            f"SELECT id FROM chunks WHERE {_PENDING} AND file_id IN ({{}})", dict.fromkeys(file_ids))),  # noqa: S608 (a constant condition)
            dtype=np.int64)

    def pending_rows(self, ids: Iterable[int]) -> list[tuple[int, str, str, str]]:
        """(chunk id, text hash, text, title its file's passages are embedded with) of those of `ids` still
        waiting, in the order of `ids`."""
        ids = [int(i) for i in ids]
        got = {int(a): (int(a), b, c, d) for a, b, c, d in self.select_in(
            "SELECT c.id, c.text_hash, c.text, coalesce(f.embed_title, '') FROM chunks c "
            "JOIN files f ON f.id = c.file_id WHERE length(c.vector) = 0 AND c.id IN ({})", ids)}
        return [got[i] for i in ids if i in got]

    def pending_with_hashes(self, hashes: Iterable[str]) -> dict[int, str]:
        """chunk id -> text hash of every waiting passage with one of `hashes` (in any file)."""
        return {int(i): h for i, h in self.select_in(
            f"SELECT id, text_hash FROM chunks WHERE {_PENDING} AND text_hash IN ({{}})", dict.fromkeys(hashes))}  # noqa: S608 (a constant condition)

    def set_vectors(self, ids: Sequence[int], vectors: np.ndarray) -> None:
        """Fill waiting passages (call inside `atomic()`); a passage that got a vector meanwhile keeps it."""
        vecs = np.ascontiguousarray(vectors, dtype=np.float32)
        self.conn.executemany(f"UPDATE chunks SET vector = ? WHERE id = ? AND {_PENDING}",  # noqa: S608 (a constant condition)
                              [(vecs[i].tobytes(), int(cid)) for i, cid in enumerate(ids)])
