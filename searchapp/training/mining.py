"""Hard negatives mined with a bi-encoder from a BEIR-layout collection.

Every judged query is searched exactly (cosine over the whole corpus); its negatives are drawn at random
from the top `pool` documents that are not judged relevant for it. Drawing from a pool rather than taking
the very top ones lowers the chance of picking an unjudged relevant document (a false negative).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Optional, Protocol, Sequence

import numpy as np

from ..base.progress import CancelToken, ProgressFn, report
from ..datasets.beir import BeirCollection

__all__ = ["MinedExample", "TextEncoder", "mine_hard_negatives", "doc_text"]


class TextEncoder(Protocol):
    """What is called: encode(texts, progress=, cancel=) (searchapp.models.BiEncoder takes more, all optional)."""

    def encode(self, texts: Sequence[str], *, progress: Optional[ProgressFn] = None,
               cancel: Optional[CancelToken] = None) -> np.ndarray: ...


@dataclass(frozen=True)
class MinedExample:
    query: str
    positive: str
    negatives: tuple[str, ...]


def doc_text(title: str, text: str) -> str:
    """A document as the app indexes it (eval ir writes title, blank line, text)."""
    return f"{title}\n\n{text}" if title else text


def mine_hard_negatives(encoder: TextEncoder, collection: BeirCollection, *, negatives: int = 1, pool: int = 30,
                        seed: int = 42, query_ids: Optional[Sequence[str]] = None,
                        progress: Optional[ProgressFn] = None, cancel: Optional[CancelToken] = None) -> list[MinedExample]:
    """One example per (query, relevant document) with `negatives` mined negatives each."""
    if negatives < 0 or pool < 1:
        raise ValueError("negatives must be >= 0 and pool >= 1")
    doc_ids = list(collection.corpus)
    qids = [q for q in (query_ids if query_ids is not None else collection.qrels)
            if q in collection.queries and any(g > 0 for g in collection.qrels.get(q, {}).values())]
    if not qids or not doc_ids:
        return []
    texts = [doc_text(*collection.corpus[d]) for d in doc_ids]
    report(progress, "mining: embedding documents", 0, len(texts))
    docs = np.asarray(encoder.encode(texts, progress=progress, cancel=cancel), dtype=np.float32)  # (n_docs, dim)
    queries = np.asarray(encoder.encode([collection.queries[q] for q in qids]), dtype=np.float32)  # (n_q, dim)
    rng = random.Random(seed)
    depth = min(len(doc_ids), pool + max(len(collection.qrels[q]) for q in qids))
    out: list[MinedExample] = []
    for start in range(0, len(qids), 256):
        if cancel is not None:
            cancel.check()
        sims = queries[start : start + 256] @ docs.T  # (chunk, n_docs)
        top = np.argpartition(-sims, depth - 1, axis=1)[:, :depth] if depth < len(doc_ids) else np.tile(
            np.arange(len(doc_ids)), (len(sims), 1))
        for row, qid in enumerate(qids[start : start + 256]):
            judged = collection.qrels[qid]
            ranked = top[row][np.argsort(-sims[row, top[row]], kind="stable")]
            candidates = [doc_ids[i] for i in ranked if judged.get(doc_ids[i], 0) <= 0][:pool]
            for doc_id, grade in judged.items():
                if grade <= 0 or doc_id not in collection.corpus:
                    continue
                picked = rng.sample(candidates, min(negatives, len(candidates)))
                out.append(MinedExample(collection.queries[qid], doc_text(*collection.corpus[doc_id]),
                                        tuple(doc_text(*collection.corpus[d]) for d in picked)))
    return out
