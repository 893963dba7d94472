"""The vector index of a shared library: pgvector's HNSW index (cosine) in the database itself.

The search pipeline asks a VectorIndex for `search(q, k, ef=)`, `len()` and `dim`; this answers from the
`chunks.vector` column, so there is no index file beside the library and nothing to follow: every desktop reads
what the last committed batch wrote. The sync's writes need no index of their own (NoIndexWriter): the rows are
the index.
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Optional

import numpy as np

from ...base.errors import StoreError

if TYPE_CHECKING:
    from .pg_store import PgStore

__all__ = ["PgVectorIndex", "NoIndexWriter", "MAX_EF"]

MAX_EF = 1000  # pgvector's ceiling on hnsw.ef_search
# Stored passages a statement of `neighbours` asks about: one round trip for a few hundred index scans, and a
# reply of at most this many times k rows (a statement cannot be cancelled from here: it must stay short).
NEIGHBOURS_PER_STATEMENT = 256
# Whether `neighbours` shares its statements with the store's second connection (PgStore.sibling, on the same
# snapshot): PostgreSQL runs no HNSW scan in a parallel worker, so one statement uses one server core and the
# second connection the second (a 2-core machine's). More cores would want more connections: not built.
TWO_LANES = True
# Each listed passage's k nearest, its vector read on the server: the HNSW index scan runs once per outer row
# inside the LATERAL (EXPLAIN: Nested Loop -> Index Scan using chunks_hnsw, Order By: vector <=> q.vector).
_NEIGHBOURS_SQL = ("SELECT q.id, n.id, n.d FROM chunks q CROSS JOIN LATERAL (SELECT c.id, c.vector <=> q.vector AS d "
                   "FROM chunks c WHERE c.vector IS NOT NULL ORDER BY c.vector <=> q.vector LIMIT %s) n "
                   "WHERE q.id = ANY(%s) AND q.vector IS NOT NULL")


class NoIndexWriter:
    """IndexWriter of a sync over a PgStore: the committed rows are pgvector's index already."""

    def add(self, ids: np.ndarray, vectors: np.ndarray) -> None:
        return None

    def remove(self, ids: list[int]) -> None:
        return None


class PgVectorIndex:
    """Cosine top-k through pgvector's HNSW index, with a per-search breadth (hnsw.ef_search, SET LOCAL)."""

    name = "pgvector-hnsw"

    def __init__(self, store: "PgStore", dim: int) -> None:
        self.store, self.dim = store, int(dim)

    def __len__(self) -> int:
        return self.store.vector_count()

    def ids(self) -> np.ndarray:
        """The ids of the passages with a vector, ascending (what `duplicates` asks of an index)."""
        return np.array([r[0] for r in self.store.rows("SELECT id FROM chunks WHERE vector IS NOT NULL ORDER BY id")],
                        dtype=np.int64)

    def search(self, queries: np.ndarray, k: int, *, ef: Optional[int] = None) -> tuple[np.ndarray, np.ndarray]:
        """(n, k) ids and cosine similarities, best first, one row per query (`similar` asks one per passage of
        its file). pgvector's iterative scan goes on past ef until k rows come back (relaxed order: the rows are
        sorted again here by the distance they carry); a row with fewer is padded with id -1, similarity -2."""
        qs = np.asarray(queries, dtype=np.float32).reshape(-1, self.dim)
        breadth = min(MAX_EF, max(int(ef or 40), int(k)))
        ids = np.full((len(qs), int(k)), -1, dtype=np.int64)
        sims = np.full((len(qs), int(k)), -2.0, dtype=np.float32)
        with self.store.atomic():
            self._breadth(breadth, self.store)
            for i, q in enumerate(qs):
                rows = self.store.rows("SELECT id, vector <=> %s AS d FROM chunks WHERE vector IS NOT NULL "
                                       "ORDER BY vector <=> %s LIMIT %s", (q, q, int(k)))
                rows.sort(key=lambda r: (float(r[1]), int(r[0])))
                ids[i, : len(rows)] = [int(r[0]) for r in rows]
                sims[i, : len(rows)] = [1.0 - float(r[1]) for r in rows]
        if len(qs) == 1:  # one query: as many columns as rows came back (the search pipeline reads them all)
            n = int((ids[0] >= 0).sum())
            return ids[:, :n], sims[:, :n]
        return ids, sims

    def neighbours(self, ids: np.ndarray, k: int, *, ef: Optional[int] = None) -> tuple[np.ndarray, np.ndarray]:
        """As `search` with the stored vectors of passages `ids` as the queries (`duplicates` asks every passage):
        the vectors never leave the server, and one statement asks NEIGHBOURS_PER_STATEMENT passages, the
        statements shared with a second connection that reads the same snapshot (TWO_LANES). A passage without a vector
        (deleted, or waiting for the meaning pass) gets a row of padding (id -1, similarity -2)."""
        ids = np.asarray(ids, dtype=np.int64)
        breadth = min(MAX_EF, max(int(ef or 40), int(k)))
        out = (np.full((len(ids), int(k)), -1, dtype=np.int64), np.full((len(ids), int(k)), -2.0, dtype=np.float32))
        starts = list(range(0, len(ids), NEIGHBOURS_PER_STATEMENT))
        with self.store.atomic():
            lane = self._second_lane() if len(starts) > 1 and self.store.transaction_depth() == 1 else None
            if lane is None:  # one statement, a caller's transaction of its own, or no second connection
                self._breadth(breadth, self.store)
                self._ask(self.store, ids, starts, int(k), out, threading.Event())
                return out
            snapshot = self.store.share_snapshot()
            self._breadth(breadth, self.store)
            stop = threading.Event()  # either lane failing (or Ctrl+C here) stops the other at its next statement
            with ThreadPoolExecutor(1) as pool:
                other = pool.submit(self._lane, lane, snapshot, breadth, ids, starts[1::2], int(k), out, stop)
                try:
                    self._ask(self.store, ids, starts[0::2], int(k), out, stop)
                except BaseException:
                    stop.set()
                    raise
                other.result()  # the other lane's error is this call's
        return out

    def _second_lane(self) -> Optional["PgStore"]:
        """The sibling connection, made on this thread; None where none can be made (the server's connection
        limit, say): then one lane does it all."""
        if not TWO_LANES:
            return None
        try:
            return self.store.sibling()
        except StoreError:
            return None

    def _lane(self, lane: "PgStore", snapshot: str, breadth: int, ids: np.ndarray, starts: list[int], k: int,
              out: tuple[np.ndarray, np.ndarray], stop: threading.Event) -> None:
        """Statements of `neighbours` on the sibling connection, reading the caller's snapshot."""
        try:
            with lane.atomic():
                lane.use_snapshot(snapshot)
                self._breadth(breadth, lane)
                self._ask(lane, ids, starts, k, out, stop)
        except BaseException:
            stop.set()
            raise

    @staticmethod
    def _ask(store: "PgStore", ids: np.ndarray, starts: list[int], k: int, out: tuple[np.ndarray, np.ndarray],
             stop: threading.Event) -> None:
        """The neighbours of ids[start:start + NEIGHBOURS_PER_STATEMENT] for each start, into their rows of `out`,
        until `stop` is set."""
        out_ids, sims = out
        for start in starts:
            if stop.is_set():
                return
            part = ids[start:start + NEIGHBOURS_PER_STATEMENT]
            got = store.rows(_NEIGHBOURS_SQL, (k, part.tolist()))
            if not got:
                continue
            q = np.array([r[0] for r in got], dtype=np.int64)
            n = np.array([r[1] for r in got], dtype=np.int64)
            d = np.array([r[2] for r in got], dtype=np.float64)
            # Relaxed order within each passage's rows, as in `search`: sorted here by (distance, id).
            by = np.lexsort((n, d, q))
            q, n, d = q[by], n[by], d[by]
            sort_part = np.argsort(part, kind="stable")
            row = start + sort_part[np.searchsorted(part[sort_part], q)]
            col = np.arange(len(q)) - np.searchsorted(q, q)  # rank within the passage's rows
            out_ids[row, col], sims[row, col] = n, 1.0 - d

    @staticmethod
    def _breadth(breadth: int, store: "PgStore") -> None:
        """hnsw.ef_search for the transaction (SET LOCAL), with iterative scans so filtered rows never cut k short."""
        store.rows("SELECT set_config('hnsw.ef_search', %s, true)", (str(breadth),))
        store.rows("SELECT set_config('hnsw.iterative_scan', 'relaxed_order', true)")
