"""Meaning on the spot: passages a search or Similar needs that have no vector yet, embedded for this answer.

While the meaning pass is unfinished, a hybrid search's best word matches may have no vector: they would be
ranked on their words alone. The search embeds the passages of its top word candidates first (at most
`search.embed_on_search` a search, counted in passages: 16 by default, decision 0139), and
Similar embeds the file it was asked about, so both answer by meaning too.

A search only reads the library: these vectors are never written from here (decision record 0109). They go to
the answer, and to FreshVectors, a small store in this process that its own meaning pass takes from before it
encodes (so the window's sync writes them, on its own thread, in its own transactions, without encoding them
again); the files are also recorded as wanted (sync/wanted.py), so a sync in another process embeds them next.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Callable, Iterable, Optional, Sequence

import numpy as np

from ...ingest.passage_context import model_input
from ...store import Store

__all__ = ["FreshVectors", "PassageEmbedder", "FRESH_MAX"]

FRESH_MAX = 4096  # vectors kept for the meaning pass (384 floats each: 6 MB for MiniLM), oldest dropped first


class FreshVectors:
    """Vectors embedded on the spot, by model input hash, for this process's meaning pass to write. Each belongs
    to the model that made it (`model`: the bi-encoder's fingerprint): another model's are never handed out."""

    def __init__(self, cap: int = FRESH_MAX) -> None:
        self._cap = cap
        self._lock = threading.Lock()
        self._vectors: OrderedDict[tuple[str, str], np.ndarray] = OrderedDict()

    def __len__(self) -> int:
        return len(self._vectors)

    def put(self, model: str, vectors: dict[str, np.ndarray]) -> None:
        with self._lock:
            for h, v in vectors.items():
                self._vectors[(model, h)] = v
                self._vectors.move_to_end((model, h))
            while len(self._vectors) > self._cap:
                self._vectors.popitem(last=False)

    def get(self, model: str, hashes: Iterable[str]) -> dict[str, np.ndarray]:
        with self._lock:
            return {h: self._vectors[(model, h)] for h in hashes if (model, h) in self._vectors}

    def take(self, model: str, hashes: Iterable[str]) -> dict[str, np.ndarray]:
        """The vectors of `hashes` made by `model`, removed from here (the meaning pass writes them now)."""
        with self._lock:
            return {h: v for h in hashes if (v := self._vectors.pop((model, h), None)) is not None}

    def clear(self) -> None:
        with self._lock:
            self._vectors.clear()


class PassageEmbedder:
    """Vectors for waiting passages, for one answer: from FreshVectors when this process made them already, else
    encoded (`encode`: model inputs -> (n, dim) unit vectors), at most a budget of passages per call."""

    def __init__(self, encode: Callable[[list[str]], np.ndarray], fresh: Optional[FreshVectors] = None,
                 model: Optional[str] = None) -> None:
        self._encode = encode
        self._fresh = fresh if model is not None else None  # vectors of an unnamed path are for this answer only
        self._model = model or ""
        self.encoded = 0  # passages encoded by this embedder (what its budget counts)

    def vectors(self, store: Store, chunk_ids: Sequence[int], budget: int) -> dict[int, np.ndarray]:
        """chunk id -> vector for those of `chunk_ids` (best first) still waiting: every one FreshVectors has, and
        the first `budget` others encoded now. Passages with a vector already are left to the caller."""
        rows = store.pending_rows(chunk_ids)
        if not rows:
            return {}
        inputs = {h: model_input(title, text) for _cid, h, text, title in rows}
        known = self._fresh.get(self._model, inputs) if self._fresh is not None else {}
        todo = [h for h in inputs if h not in known][:max(0, int(budget))]
        if todo:
            vecs = np.asarray(self._encode([inputs[h] for h in todo]), dtype=np.float32)
            fresh = {h: v for h, v in zip(todo, vecs, strict=True) if np.isfinite(v).all()}  # a broken one: no score
            self.encoded += len(todo)
            if self._fresh is not None:
                self._fresh.put(self._model, fresh)
            known.update(fresh)
        return {cid: known[h] for cid, h, _text, _title in rows if h in known}

