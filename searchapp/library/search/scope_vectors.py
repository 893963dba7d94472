"""The stored vectors of a filter's allowed passages, kept between searches.

A filter with few allowed passages has them scored exactly from their stored vectors (filter_scope.py). Reading the
10,000 vectors of "PDFs only" at a million passages took 18 ms of a 35 ms hybrid search on an idle machine and
66-96 ms at load 6-7, and a person with a filter set searches those same passages query after query. So the
last few filters' vectors stay in memory and only the difference is read again. That is exact because a
passage's vector is written once (waiting -> embedded, never changed: store/vector_queue.py) and a chunk id is
never reused (AUTOINCREMENT): a kept row is right for as long as its id is still allowed; allowed ids that are
new, or were still waiting for their vector (or unusable) when kept, are read again each time.

Not from the HNSW index: hnswlib 0.8's get_items builds a Python list of floats per vector (190 ms for those
10,000, ten times SQLite), and its knn_query filter runs Python per candidate (59 ms) and is approximate.
"""

from __future__ import annotations

import threading
import weakref
from collections import OrderedDict
from dataclasses import dataclass
from typing import Hashable

import numpy as np

from ...store import Store

__all__ = ["ScopeVectors", "scope_vectors", "KEPT_BYTES", "KEPT_SCOPES"]

# A 1% filter at 1M x 384 floats is 15 MB; EXACT_SUBSET_MAX (20,000) is 30 MB at 384 dimensions.
KEPT_BYTES = 64 << 20
KEPT_SCOPES = 4


@dataclass(frozen=True)
class _Kept:
    allowed: np.ndarray  # the allowed ids when read, sorted
    ids: np.ndarray  # those of them with a usable vector, ascending
    vectors: np.ndarray  # (len(ids), dim) float32, as stored


class ScopeVectors:
    """Per reader connection (one thread): the vectors of the last KEPT_SCOPES filters, at most KEPT_BYTES."""

    def __init__(self, max_bytes: int = KEPT_BYTES, max_scopes: int = KEPT_SCOPES) -> None:
        self.max_bytes, self.max_scopes = max_bytes, max_scopes
        self._kept: OrderedDict[Hashable, _Kept] = OrderedDict()
        self.last_read = 0  # rows asked of SQLite by the last call (filter stats; tests)

    def vectors(self, store: Store, key: Hashable, allowed: np.ndarray, dim: int) -> tuple[np.ndarray, np.ndarray]:
        """(ids ascending, float32 vectors) of the passages of `allowed` (sorted, distinct) that have a usable
        stored vector: what store.vectors(allowed) returns, read only where not kept."""
        key = (key, dim)
        kept = self._kept.pop(key, None)
        if kept is not None and len(kept.ids) == len(allowed) and np.array_equal(kept.allowed, allowed):
            ids, vecs, self.last_read = kept.ids, kept.vectors, 0  # the usual case: nothing changed
        elif kept is not None:
            still = np.isin(kept.ids, allowed, assume_unique=True)  # a passage deleted, or out of the filter now
            missing = np.setdiff1d(allowed, kept.ids[still], assume_unique=True)
            new_ids, new_vecs = store.vectors(missing.tolist(), dim)
            ids = np.concatenate([kept.ids[still], new_ids])
            order = np.argsort(ids, kind="stable")
            ids, vecs = ids[order], np.concatenate([kept.vectors[still], new_vecs.reshape(-1, dim)])[order]
            self.last_read = len(missing)
        else:
            ids, vecs = store.vectors(allowed.tolist(), dim)
            order = np.argsort(ids, kind="stable")
            ids, vecs, self.last_read = ids[order], vecs.reshape(-1, dim)[order], len(allowed)
        entry = _Kept(allowed, ids, vecs)
        if self._size(entry) <= self.max_bytes:
            self._kept[key] = entry  # most recent last
            while len(self._kept) > self.max_scopes or sum(map(self._size, self._kept.values())) > self.max_bytes:
                self._kept.popitem(last=False)
        return ids, vecs

    @staticmethod
    def _size(entry: _Kept) -> int:
        return entry.allowed.nbytes + entry.ids.nbytes + entry.vectors.nbytes


_BY_STORE: "weakref.WeakKeyDictionary[Store, ScopeVectors]" = weakref.WeakKeyDictionary()
_GUARD = threading.Lock()


def scope_vectors(store: Store) -> ScopeVectors:
    """The kept vectors of `store`'s connection (a library's reader is one per thread, so no two threads share
    one); they go with the connection."""
    with _GUARD:
        memo = _BY_STORE.get(store)
        if memo is None:
            memo = _BY_STORE[store] = ScopeVectors()
        return memo
