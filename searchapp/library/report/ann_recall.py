"""How often the approximate vector index returns the true nearest passages: recall@k against exact search.

Queries are a random sample of the library's own distinct stored vectors (each query's own passage is left
out of both lists); the index searched and the exact ground truth hold every vector, duplicates included. Drawn
from all vectors, a library where 4,000 passages share one vector would be queried almost only with that
vector, find a copy every time and report recall 1.0 while the graph no longer reaches the other passages.
Ties are forgiven: an approximate hit counts when its exact similarity reaches the k-th exact similarity, since
equal vectors (the same text indexed twice) may be returned in either order.
"""

from __future__ import annotations

import time
from typing import Any, Optional

import numpy as np

from ...ann import VectorIndex
from ...base.config import IndexConfig
from ...store import Store

__all__ = ["measure_ann_recall", "library_ann_recall"]

_TIE = 1e-6


def measure_ann_recall(index: VectorIndex, ids: np.ndarray, vectors: np.ndarray, *, k: int = 10, sample: int = 200,
                       ef: int, seed: int = 0) -> dict[str, Any]:
    """{"recall@k", "k", "queries", "vectors", "distinct_vectors", "ef_search", "backend", "ms_per_query_ann",
    "ms_per_query_exact"}."""
    if k < 1 or sample < 1:
        raise ValueError("k and sample must be >= 1")
    n = len(ids)
    key = f"recall@{k}"
    base = {"k": k, "vectors": int(n), "ef_search": int(ef), "backend": index.name, "primary_metric": key}
    if n < 2:
        return {**base, key: None, "queries": 0, "ms_per_query_ann": None, "ms_per_query_exact": None}
    kk = min(k, n - 1)
    rng = np.random.default_rng(seed)
    _, first = np.unique(np.ascontiguousarray(vectors).view(np.dtype((np.void, vectors.dtype.itemsize * vectors.shape[1]))),
                         return_index=True)
    distinct = np.sort(first)  # one row per distinct vector
    base["distinct_vectors"] = int(len(distinct))
    rows = np.sort(rng.choice(distinct, size=min(sample, len(distinct)), replace=False))
    queries = vectors[rows]  # (q, dim) unit vectors
    t0 = time.perf_counter()
    sims = queries @ vectors.T  # (q, n) exact cosine
    sims[np.arange(len(rows)), rows] = -np.inf  # the query's own passage is not a neighbour
    top = np.argpartition(-sims, kk - 1, axis=1)[:, :kk]
    kth = np.take_along_axis(sims, top, axis=1).min(axis=1)  # (q,) the k-th exact similarity
    t_exact = time.perf_counter() - t0
    row_of = {int(i): r for r, i in enumerate(ids)}

    t0 = time.perf_counter()
    found, _ = index.search(queries, kk + 1, ef=ef)  # +1: the query itself usually comes back first
    t_ann = time.perf_counter() - t0
    hits = 0
    for q, (row, labels) in enumerate(zip(rows, found, strict=True)):
        got = [row_of[int(x)] for x in labels if int(x) in row_of and row_of[int(x)] != row][:kk]
        hits += sum(1 for r in got if sims[q, r] >= kth[q] - _TIE)
    return {**base, key: hits / (kk * len(rows)), "queries": int(len(rows)),
            "ms_per_query_ann": 1000 * t_ann / len(rows), "ms_per_query_exact": 1000 * t_exact / len(rows)}


def library_ann_recall(reader: Store, index: Optional[VectorIndex], dim: Optional[int], config: IndexConfig, *,
                       k: int, sample: int, ef: Optional[int], seed: int) -> dict[str, Any]:
    """measure_ann_recall over a library's stored vectors; recall None when it has no vectors yet."""
    if index is None or dim is None:
        return {f"recall@{k}": None, "k": k, "queries": 0, "vectors": 0, "primary_metric": f"recall@{k}",
                "ef_search": ef or config.ef_search, "backend": config.backend}
    ids, vectors = reader.vectors(None, dim)
    return measure_ann_recall(index, ids, vectors, k=k, sample=sample, ef=ef or config.ef_search, seed=seed)
