"""Fusing the dense and the lexical candidate lists into one order.

Two functions, chosen by `search.fusion` (see the README's table for why the default is what it is):
- reciprocal rank fusion (Cormack et al., 2009), optionally weighted: score(d) = sum_i w_i / (k + rank_i(d));
- a convex combination of normalised scores (Bruch et al., 2023, "An analysis of fusion functions for hybrid
  retrieval"): score(d) = w * dense(d) + (1 - w) * lexical(d) / max lexical. Unlike RRF it keeps how far
  apart the scores are, so a weak lexical list (a few shared words) cannot outvote a confident dense one.
"""

from __future__ import annotations

from typing import Mapping, Optional, Sequence

__all__ = ["reciprocal_rank_fusion", "convex_fusion", "FUSIONS"]

FUSIONS = ("convex", "rrf")


def reciprocal_rank_fusion(rankings: Sequence[Sequence[int]], k: int = 60,
                           weights: Optional[Sequence[float]] = None) -> list[tuple[int, float]]:
    """Fuse ranked id lists (best first) into [(id, score)] best first; ties keep first-seen order."""
    scores: dict[int, float] = {}
    for i, ranking in enumerate(rankings):
        w = 1.0 if weights is None else float(weights[i])
        for rank, item in enumerate(ranking, start=1):
            scores[item] = scores.get(item, 0.0) + w / (k + rank)
    order = {item: i for i, item in enumerate(scores)}
    return sorted(scores.items(), key=lambda kv: (-kv[1], order[kv[0]]))


def convex_fusion(dense: Mapping[int, float], lexical: Mapping[int, float], dense_weight: float,
                  order: Sequence[int]) -> list[tuple[int, float]]:
    """[(id, w * cosine + (1 - w) * bm25 / max bm25)] best first over `order` (ties keep its order).

    Cosine is used as it is (already on a fixed scale, clipped at 0); BM25 has no fixed scale, so it is divided
    by the best BM25 among the candidates (a query's best lexical match scores 1). An id missing from a mapping
    scores 0 on that side (it shares no word with the query, or the side did not run).
    """
    top_lex = max((v for v in lexical.values() if v is not None), default=0.0)
    scores: dict[int, float] = {}
    for item in order:
        d = max(0.0, dense.get(item) or 0.0)
        lx = (lexical.get(item) or 0.0) / top_lex if top_lex > 0 else 0.0
        scores[item] = dense_weight * d + (1.0 - dense_weight) * max(0.0, lx)
    pos = {item: i for i, item in enumerate(order)}
    return sorted(scores.items(), key=lambda kv: (-kv[1], pos[kv[0]]))
