"""`searchapp eval sts`: how well a bi-encoder's cosine similarity orders sentence pairs like people do.

The Sentence-BERT papers report Spearman's rank correlation ×100 between cosine(u, v) and the gold scores
(primary metric); Pearson ×100 is printed beside it. The encoder is any object with
`encode(texts) -> (n, dim) unit vectors` (searchapp.models.BiEncoder), so this layer never loads a model.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Optional, Protocol, Sequence, TypedDict, cast

import numpy as np

from ..base.progress import CancelToken, ProgressFn
from .correlation import pearson, spearman
from ..datasets.pairs import ScoredPair, read_scored_pairs

__all__ = ["evaluate_sts", "evaluate_sts_file", "cosine_scores", "TextEncoder", "StsResult", "StsFileResult"]


class TextEncoder(Protocol):
    """What is called: encode(texts, progress=, cancel=) (searchapp.models.BiEncoder takes more, all optional)."""

    def encode(self, texts: Sequence[str], *, progress: Optional[ProgressFn] = None,
               cancel: Optional[CancelToken] = None) -> np.ndarray: ...


class StsResult(TypedDict):
    """What `searchapp eval sts` prints or writes as JSON (the command adds the model's name)."""

    spearman: float
    pearson: float
    pairs: int
    seconds: float
    primary_metric: str


class StsFileResult(StsResult):
    file: str


def cosine_scores(encoder: TextEncoder, pairs: Sequence[ScoredPair], *, progress: Optional[ProgressFn] = None,
                  cancel: Optional[CancelToken] = None) -> np.ndarray:
    """(n,) cosine similarity of each pair; every distinct sentence is encoded once."""
    texts = sorted({p.text1 for p in pairs} | {p.text2 for p in pairs})
    row = {t: i for i, t in enumerate(texts)}
    vecs = np.asarray(encoder.encode(texts, progress=progress, cancel=cancel), dtype=np.float32)
    norms = np.linalg.norm(vecs, axis=1, keepdims=True)
    vecs = vecs / np.maximum(norms, 1e-12)
    a = vecs[[row[p.text1] for p in pairs]]
    b = vecs[[row[p.text2] for p in pairs]]
    # numpy's stubs type a reduction with axis= as Any; the product of two (n, dim) arrays summed over axis 1 is (n,).
    return cast(np.ndarray, (a * b).sum(axis=1))


def evaluate_sts(encoder: TextEncoder, pairs: Sequence[ScoredPair], *, progress: Optional[ProgressFn] = None,
                 cancel: Optional[CancelToken] = None) -> StsResult:
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


def evaluate_sts_file(encoder: TextEncoder, path: Path, *, progress: Optional[ProgressFn] = None,
                      cancel: Optional[CancelToken] = None) -> StsFileResult:
    result = evaluate_sts(encoder, read_scored_pairs(Path(path)), progress=progress, cancel=cancel)
    return {"file": str(path), **result}
