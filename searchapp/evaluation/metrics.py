"""Ranking metrics over document ids, as trec_eval / BEIR compute them (pure Python).

Conventions:
- a ranking is de-duplicated before scoring: a document counts once, at its first position;
- relevance is the judged grade; a grade <= 0 or no judgment is not relevant;
- nDCG uses linear gains (the grade) and a log2(rank + 1) discount, with the ideal ranking built from
  the judgments (so relevant documents missing from the corpus still count, as in BEIR);
- a query without any positive judgment is undefined for every metric: the functions return 0 and
  `evaluate_run` leaves such queries out of the mean (trec_eval does the same).
"""

from __future__ import annotations

import math
from typing import Iterable, Mapping, Sequence

__all__ = ["ndcg_at_k", "mrr_at_k", "recall_at_k", "evaluate_run"]


def _check_k(k: int) -> int:
    if k < 0:
        raise ValueError(f"k must be >= 0, got {k}")
    return k


def _top_k(ranked_ids: Iterable[str], k: int) -> list[str]:
    """First k distinct ids, in rank order."""
    seen: set[str] = set()
    out: list[str] = []
    for doc in ranked_ids:
        if len(out) >= k:
            break
        if doc not in seen:
            seen.add(doc)
            out.append(doc)
    return out


def _gain(qrels: Mapping[str, int], doc: str) -> float:
    return float(max(qrels.get(doc, 0), 0))


def ndcg_at_k(ranked_ids: Sequence[str], qrels: Mapping[str, int], k: int = 10) -> float:
    _check_k(k)
    ideal = sorted((g for g in qrels.values() if g > 0), reverse=True)[:k]
    if not ideal:
        return 0.0
    dcg = sum(_gain(qrels, doc) / math.log2(rank + 2) for rank, doc in enumerate(_top_k(ranked_ids, k)))
    idcg = sum(g / math.log2(rank + 2) for rank, g in enumerate(ideal))
    return dcg / idcg


def mrr_at_k(ranked_ids: Sequence[str], qrels: Mapping[str, int], k: int = 10) -> float:
    _check_k(k)
    for rank, doc in enumerate(_top_k(ranked_ids, k), start=1):
        if qrels.get(doc, 0) > 0:
            return 1.0 / rank
    return 0.0


def recall_at_k(ranked_ids: Sequence[str], qrels: Mapping[str, int], k: int) -> float:
    _check_k(k)
    relevant = {doc for doc, grade in qrels.items() if grade > 0}
    if not relevant:
        return 0.0
    return len(relevant.intersection(_top_k(ranked_ids, k))) / len(relevant)


def evaluate_run(
    run: Mapping[str, Sequence[str]],
    qrels: Mapping[str, Mapping[str, int]],
    ks: Sequence[int] = (10, 100),
) -> dict[str, float]:
    """Mean metrics over the queries with at least one positive judgment.

    A judged query absent from `run` scores 0 (a system that answers nothing must not look better).
    Keys: "ndcg@K" and "mrr@K" for the smallest K, "recall@K" for every K, and "queries" (how many
    queries the means are over).
    """
    if not ks:
        raise ValueError("ks must name at least one cutoff")
    head = min(ks)
    cutoffs = sorted(set(ks))
    keys = [f"ndcg@{head}", f"mrr@{head}"] + [f"recall@{k}" for k in cutoffs]
    totals = dict.fromkeys(keys, 0.0)
    judged = [qid for qid, grades in qrels.items() if any(g > 0 for g in grades.values())]
    for qid in judged:
        ranking = run.get(qid, ())
        grades = qrels[qid]
        totals[f"ndcg@{head}"] += ndcg_at_k(ranking, grades, head)
        totals[f"mrr@{head}"] += mrr_at_k(ranking, grades, head)
        for k in cutoffs:
            totals[f"recall@{k}"] += recall_at_k(ranking, grades, k)
    n = len(judged)
    result: dict[str, float] = {key: (value / n if n else 0.0) for key, value in totals.items()}
    result["queries"] = n
    return result
