"""`searchapp eval sts`: how well a bi-encoder's cosine similarity orders sentence pairs like people do.

The Sentence-BERT papers report Spearman's rank correlation ×100 between cosine(u, v) and the gold scores
(primary metric); Pearson ×100 is printed beside it. The encoder is any object with
`encode(texts) -> (n, dim) unit vectors` (searchapp.models.BiEncoder), so this layer never loads a model.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Optional, Protocol, Sequence

import numpy as np

from ..base.progress import CancelToken, ProgressFn
from .correlation import pearson, spearman
from ..datasets.pairs import ScoredPair, read_scored_pairs

__all__ = ["evaluate_sts", "evaluate_sts_file", "cosine_scores"]


class _Encoder(Protocol):
    """What is called: encode(texts, progress=, cancel=) (searchapp.models.BiEncoder takes more, all optional)."""

    def encode(self, texts: Sequence[str], *, progress: Optional[ProgressFn] = None,
               cancel: Optional[CancelToken] = None) -> np.ndarray: ...


def cosine_scores(encoder: _Encoder, pairs: Sequence[ScoredPair], *, progress: Optional[ProgressFn] = None,
                  cancel: Optional[CancelToken] = None) -> np.ndarray:
    """(n,) cosine similarity of each pair; every distinct sentence is encoded once."""
    texts = sorted({p.text1 for p in pairs} | {p.text2 for p in pairs})
    row = {t: i for i, t in enumerate(texts)}
    vecs = np.asarray(encoder.encode(texts, progress=progress, cancel=cancel), dtype=np.float32)
    norms = np.linalg.norm(vecs, axis=1, keepdims=True)
    vecs = vecs / np.maximum(norms, 1e-12)
    a = vecs[[row[p.text1] for p in pairs]]
    b = vecs[[row[p.text2] for p in pairs]]
    return (a * b).sum(axis=1)


def evaluate_sts(encoder: _Encoder, pairs: Sequence[ScoredPair], *, progress: Optional[ProgressFn] = None,
                 cancel: Optional[CancelToken] = None) -> dict:
    """{"spearman", "pearson" (both ×100), "pairs", "seconds", "primary_metric": "spearman"}."""
    t0 = time.perf_counter()
    sims = cosine_scores(encoder, pairs, progress=progress, cancel=cancel)
    gold = [p.score for p in pairs]
    return {
        "spearman": 100.0 * spearman(sims, gold),
        "pearson": 100.0 * pearson(sims, gold),
        "pairs": len(pairs),
        "seconds": time.perf_counter() - t0,
        "primary_metric": "spearman",
    }


def evaluate_sts_file(encoder: _Encoder, path: Path, **kw) -> dict:
    result = evaluate_sts(encoder, read_scored_pairs(Path(path)), **kw)
    return {"file": str(path), **result}
