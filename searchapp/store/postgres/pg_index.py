"""The vector index of a shared library: pgvector's HNSW index (cosine) in the database itself.

The search pipeline asks a VectorIndex for `search(q, k, ef=)`, `len()` and `dim`; this answers from the
`chunks.vector` column, so there is no index file beside the library and nothing to follow: every desktop reads
what the last committed batch wrote. The sync's writes need no index of their own (NoIndexWriter): the rows are
the index.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

import numpy as np

if TYPE_CHECKING:
    from .pg_store import PgStore

__all__ = ["PgVectorIndex", "NoIndexWriter", "MAX_EF"]

MAX_EF = 1000  # pgvector's ceiling on hnsw.ef_search


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
        row = self.store.one("SELECT count(*) FROM chunks WHERE vector IS NOT NULL")
        return int(row[0]) if row else 0

    def search(self, queries: np.ndarray, k: int, *, ef: Optional[int] = None) -> tuple[np.ndarray, np.ndarray]:
        """(n, k) ids and cosine similarities, best first, one row per query (`similar` asks one per passage of
        its file). pgvector's iterative scan goes on past ef until k rows come back (relaxed order: the rows are
        sorted again here by the distance they carry); a row with fewer is padded with id -1, similarity -2."""
        qs = np.asarray(queries, dtype=np.float32).reshape(-1, self.dim)
        breadth = min(MAX_EF, max(int(ef or 40), int(k)))
        ids = np.full((len(qs), int(k)), -1, dtype=np.int64)
        sims = np.full((len(qs), int(k)), -2.0, dtype=np.float32)
        with self.store.atomic():
            self.store.rows("SELECT set_config('hnsw.ef_search', %s, true)", (str(breadth),))
            self.store.rows("SELECT set_config('hnsw.iterative_scan', 'relaxed_order', true)")
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
