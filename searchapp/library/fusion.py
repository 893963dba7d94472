"""Reciprocal rank fusion (Cormack et al., 2009): score(d) = sum over rankings of 1 / (k + rank_d)."""

from __future__ import annotations

from typing import Sequence

__all__ = ["reciprocal_rank_fusion"]


def reciprocal_rank_fusion(rankings: Sequence[Sequence[int]], k: int = 60) -> list[tuple[int, float]]:
    """Fuse ranked id lists (best first) into [(id, score)] best first; ties keep first-seen order."""
    scores: dict[int, float] = {}
    for ranking in rankings:
        for rank, item in enumerate(ranking, start=1):
            scores[item] = scores.get(item, 0.0) + 1.0 / (k + rank)
    order = {item: i for i, item in enumerate(scores)}
    return sorted(scores.items(), key=lambda kv: (-kv[1], order[kv[0]]))
