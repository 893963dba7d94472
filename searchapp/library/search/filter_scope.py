"""Search filters applied (what they say: query/filters.py): a folder subtree, file types and a modified-date
range, applied before the top k are cut.

A filter becomes a set of allowed chunk ids (one SQL query over files ⋈ chunks). The dense side then
either scores the allowed passages' stored vectors exactly (small sets: cheaper and exact; the vectors are kept
between searches, scope_vectors.py), or widens
the vector-index search until k allowed passages are found; the lexical side joins FTS5 to the files
table. `FilterScope.stats` says which way was taken and how far it went.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional, Protocol, Sequence, TypedDict

import numpy as np

from ...ann import VectorIndex
from ...store import Store, fts_query
from ..resources.blas_limit import one_blas_thread
from .scope_vectors import scope_vectors

__all__ = ["FilterScope", "FilterStats", "ScopeFilters", "EXACT_SUBSET_MAX"]

# At or below this many allowed passages the dense side reads their stored vectors and scores them all
# (1% of 100k = 1,000 vectors: ~2 MB, a few ms); above it, the vector index is searched ever wider.
EXACT_SUBSET_MAX = 20_000
WIDEN_FACTOR = 4


class ScopeFilters(Protocol):
    """What FilterScope reads of its filters: SearchFilters, or a query's constraints (constraints.py)."""

    def where(self) -> tuple[str, list[Any]]: ...

    def to_json(self) -> dict[str, Any]: ...


class FilterStats(TypedDict, total=False):
    """FilterScope.stats: the filter, and which way each side took and how far it went (a search's
    SearchResult.filter_stats, shown among its timings)."""

    filter: dict[str, Any]  # the filters' to_json
    allowed_passages: int
    dense_strategy: str
    dense_vectors_read: int
    dense_examined: int
    dense_rounds: int
    lexical_strategy: str


@dataclass
class FilterScope:
    """The passages a filtered search may return, and the two retrievers restricted to them."""

    store: Store
    filters: ScopeFilters
    ids: np.ndarray = field(init=False)  # allowed chunk ids, sorted int64
    stats: FilterStats = field(init=False)
    # The last exact scoring (query bytes, ids, similarities): a search by file asks again with a larger k
    # until enough files are found, and reading every allowed vector again cost most of a filtered search.
    _scored: Optional[tuple[bytes, np.ndarray, np.ndarray]] = field(init=False, default=None, repr=False)

    def __post_init__(self) -> None:
        self.ids = self.store.chunk_ids_where(self.filters.where())
        self.stats = {"filter": self.filters.to_json(), "allowed_passages": int(len(self.ids))}

    def allows(self, chunk_ids: np.ndarray) -> np.ndarray:
        return np.isin(chunk_ids, self.ids, assume_unique=False)

    def dense(self, index: VectorIndex, queries: np.ndarray, k: int, dim: int,
              ef: Optional[int] = None) -> tuple[np.ndarray, np.ndarray]:
        """Top min(k, allowed) allowed labels and similarities per query row, best first (like index.search)."""
        q = np.atleast_2d(np.asarray(queries, dtype=np.float32))
        n_allowed = len(self.ids)
        k = min(int(k), n_allowed)
        if k <= 0:
            self.stats["dense_strategy"] = "none"
            return np.empty((len(q), 0), np.int64), np.empty((len(q), 0), np.float32)
        if n_allowed <= EXACT_SUBSET_MAX or index is None:
            return self._exact(q, k, dim)
        return self._widened(index, q, k, ef)

    def _exact(self, q: np.ndarray, k: int, dim: int) -> tuple[np.ndarray, np.ndarray]:
        key = q.tobytes() + dim.to_bytes(4, "little")
        if self._scored is not None and self._scored[0] == key:
            ids, scores = self._scored[1], self._scored[2]
        else:
            # The allowed passages' vectors as stored, kept between searches (scope_vectors.py)
            kept = scope_vectors(self.store)
            ids, vecs = kept.vectors(self.store, repr(self.filters.where()), self.ids, dim)
            self.stats["dense_vectors_read"] = kept.last_read  # from SQLite; the rest were kept
            with one_blas_thread():
                scores = q @ vecs.T  # stored vectors are unit rows
            self._scored = (key, ids, scores)
        top = np.argsort(-scores, axis=1, kind="stable")[:, :k]
        self.stats.update({"dense_strategy": "exact over the allowed passages", "dense_examined": int(len(ids))})
        return ids[top], np.clip(np.take_along_axis(scores, top, axis=1), -1.0, 1.0).astype(np.float32)

    def _widened(self, index: VectorIndex, q: np.ndarray, k: int, ef: Optional[int]) -> tuple[np.ndarray, np.ndarray]:
        """Ask the index for k / selectivity (x2) neighbours, keep the allowed ones, and widen x4 until each
        query row has k of them or the whole index was read."""
        share = max(len(self.ids) / max(len(index), 1), 1e-6)
        depth = min(len(index), int(k / share * 2) + k)
        rounds = 0
        while True:
            rounds += 1
            labels, sims = index.search(q, depth, ef=ef)  # hnsw: ef is raised to depth
            ok = self.allows(labels.reshape(-1)).reshape(labels.shape)
            if (ok.sum(axis=1) >= k).all() or depth >= len(index):
                break
            depth = min(len(index), depth * WIDEN_FACTOR)
        out_ids = np.zeros((len(q), k), np.int64)
        out_sims = np.full((len(q), k), -1.0, np.float32)
        for r in range(len(q)):
            keep_l, keep_s = labels[r][ok[r]][:k], sims[r][ok[r]][:k]
            out_ids[r, : len(keep_l)], out_sims[r, : len(keep_s)] = keep_l, keep_s
        self.stats.update({"dense_strategy": "vector index, widened", "dense_examined": int(depth), "dense_rounds": rounds})
        if not (ok.sum(axis=1) >= k).all():  # fewer than k allowed were reachable: trim to the shortest row
            n = int(ok.sum(axis=1).min())
            out_ids, out_sims = out_ids[:, :n], out_sims[:, :n]
        return out_ids, out_sims

    def lexical(self, query: str, limit: int, prefixes: Sequence[str] = ()) -> list[tuple[int, float]]:
        """BM25 over the allowed files' passages: FTS5 joined to files, so no id list is sent to SQLite
        (Store.search_lexical_where; its scores and order are those of Store.search_lexical). `prefixes`: words
        of `query` typed as `word*`."""
        if fts_query(query) is None or not len(self.ids):
            return []
        found = self.store.search_lexical_where(query, limit, self.filters.where(), prefixes, allowed=self.ids)
        self.stats["lexical_strategy"] = "BM25 inside the filtered files"
        return found

    def lexical_and_score(self, query: str, limit: int, also: Sequence[int],
                          prefixes: Sequence[str] = ()) -> tuple[list[tuple[int, float]], dict[int, float]]:
        """(`lexical(query, limit, prefixes)`, {id: BM25} for each passage of `also` that matches) from one
        reading of the lexical index (hybrid: the dense hits' BM25 without a second pass)."""
        if fts_query(query) is None:
            return [], {}
        top, scores = self.store.search_lexical_and_score(query, limit, also, prefixes, where=self.filters.where(),
                                                          allowed=self.ids)
        self.stats["lexical_strategy"] = "BM25 inside the filtered files"
        return (top if len(self.ids) else []), scores
