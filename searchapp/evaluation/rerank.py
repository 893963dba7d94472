"""`searchapp eval rerank`: ranking quality before and after a cross-encoder reorders the SAME candidates.

BEIR folder: the bi-encoder retrieves the top `depth` documents of the whole corpus by exact cosine (before);
the cross-encoder rescores exactly those (after). TSV file (`label<TAB>question<TAB>candidate`, e.g. TrecQA):
the candidates are each question's own rows; before = bi-encoder cosine order, after = cross-encoder order.
Both report nDCG@10, MRR@10 and recall (equal before and after by construction: the same candidate set).
The encoder needs `encode(texts) -> unit vectors`, the reranker `score(query, passages) -> logits`.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from pathlib import Path
from typing import Any, Optional, Protocol, Sequence

import numpy as np

from ..base.errors import ConfigError
from ..base.progress import CancelToken, ProgressFn, report
from ..datasets.beir import BeirCollection, load_beir
from .metrics import evaluate_run
from ..datasets.pairs import read_labeled_pairs
from .sts import TextEncoder

__all__ = ["evaluate_rerank", "rerank_beir", "rerank_pairs", "PassageScorer"]


class PassageScorer(Protocol):
    """What is called: score(query, passages) -> (n,) logits (searchapp.models.CrossEncoder)."""

    def score(self, query: str, passages: Sequence[str]) -> np.ndarray: ...


def _doc_text(title: str, text: str) -> str:
    return f"{title}\n\n{text}" if title else text


def _rerank(reranker: PassageScorer, query: str, doc_ids: list[str], texts: Sequence[str]) -> list[str]:
    scores = np.asarray(reranker.score(query, list(texts)), dtype=np.float64)
    order = np.argsort(-scores, kind="stable")  # ties keep the bi-encoder's order
    return [doc_ids[i] for i in order]


def _summary(before: dict[str, float], after: dict[str, float], extra: dict[str, Any]) -> dict[str, Any]:
    gain = {k: after[k] - before[k] for k in before if k != "queries"}
    return {**extra, "queries": before["queries"], "before": before, "after": after, "gain": gain,
            "primary_metric": "ndcg@10"}


def rerank_beir(collection: BeirCollection, encoder: TextEncoder, reranker: PassageScorer, *, depth: int = 50,
                max_queries: Optional[int] = None, progress: Optional[ProgressFn] = None,
                cancel: Optional[CancelToken] = None) -> dict[str, Any]:
    qids = [q for q in collection.qrels if q in collection.queries]
    if max_queries:
        qids = qids[:max_queries]
    doc_ids = list(collection.corpus)
    if not doc_ids or not qids:
        raise ConfigError("the collection has no documents or no judged queries")
    depth = min(depth, len(doc_ids))
    docs = np.asarray(encoder.encode([_doc_text(*collection.corpus[d]) for d in doc_ids], progress=progress,
                                     cancel=cancel), dtype=np.float32)
    queries = np.asarray(encoder.encode([collection.queries[q] for q in qids]), dtype=np.float32)
    before: dict[str, list[str]] = {}
    after: dict[str, list[str]] = {}
    t0 = time.perf_counter()
    for i, qid in enumerate(qids):
        if cancel is not None:
            cancel.check()
        sims = docs @ queries[i]  # (n_docs,)
        top = np.argsort(-sims, kind="stable")[:depth]
        ranked = [doc_ids[j] for j in top]
        before[qid] = ranked
        after[qid] = _rerank(reranker, collection.queries[qid], ranked,
                             [_doc_text(*collection.corpus[d]) for d in ranked])
        report(progress, "reranking", i + 1, len(qids))
    seconds = time.perf_counter() - t0
    ks = (10, depth) if depth > 10 else (10,)
    judged = {q: collection.qrels[q] for q in qids}
    return _summary(evaluate_run(before, judged, ks), evaluate_run(after, judged, ks),
                    {"documents": len(doc_ids), "candidates": depth, "rerank_ms_per_query": 1000 * seconds / len(qids)})


def rerank_pairs(path: Path, encoder: TextEncoder, reranker: PassageScorer, *, max_queries: Optional[int] = None,
                 progress: Optional[ProgressFn] = None, cancel: Optional[CancelToken] = None) -> dict[str, Any]:
    pairs = read_labeled_pairs(path)
    groups: "OrderedDict[str, list[tuple[str, int]]]" = OrderedDict()
    for p in pairs:
        try:
            grade = int(float(p.label))
        except ValueError:
            raise ConfigError(f"{path}: label {p.label!r} is not a relevance grade (0/1 or a number)") from None
        groups.setdefault(p.text1, []).append((p.text2, grade))
    questions = list(groups)
    if max_queries:
        questions = questions[:max_queries]
    texts = sorted({q for q in questions} | {c for q in questions for c, _ in groups[q]})
    row = {t: i for i, t in enumerate(texts)}
    vecs = np.asarray(encoder.encode(texts, progress=progress, cancel=cancel), dtype=np.float32)
    before: dict[str, list[str]] = {}
    after: dict[str, list[str]] = {}
    qrels: dict[str, dict[str, int]] = {}
    t0 = time.perf_counter()
    for i, question in enumerate(questions):
        if cancel is not None:
            cancel.check()
        qid = f"q{i}"
        cands = groups[question]
        ids = [f"{qid}/c{j}" for j in range(len(cands))]
        qrels[qid] = {d: g for d, (_, g) in zip(ids, cands, strict=True)}
        sims = vecs[[row[c] for c, _ in cands]] @ vecs[row[question]]
        order = np.argsort(-sims, kind="stable")
        before[qid] = [ids[j] for j in order]
        after[qid] = _rerank(reranker, question, before[qid], [cands[j][0] for j in order])
        report(progress, "reranking", i + 1, len(questions))
    seconds = time.perf_counter() - t0
    depth = max(len(c) for c in groups.values())
    return _summary(evaluate_run(before, qrels, (10,)), evaluate_run(after, qrels, (10,)),
                    {"candidates": f"each question's own rows (up to {depth})", "pairs": len(pairs),
                     "rerank_ms_per_query": 1000 * seconds / max(1, len(questions))})


def evaluate_rerank(path: Path, encoder: TextEncoder, reranker: PassageScorer, *, split: str = "test", depth: int = 50,
                    max_queries: Optional[int] = None, progress: Optional[ProgressFn] = None,
                    cancel: Optional[CancelToken] = None) -> dict[str, Any]:
    """A BEIR folder or a labelled TSV file; returns {"before", "after", "gain", "primary_metric", ...}."""
    path = Path(path)
    if path.is_dir():
        result = rerank_beir(load_beir(path, split), encoder, reranker, depth=depth, max_queries=max_queries,
                             progress=progress, cancel=cancel)
    elif path.is_file():
        result = rerank_pairs(path, encoder, reranker, max_queries=max_queries, progress=progress, cancel=cancel)
    else:
        raise ConfigError(f"{path}: not found (a BEIR folder or a label<TAB>query<TAB>candidate file)")
    return {"collection": str(path), **result}
