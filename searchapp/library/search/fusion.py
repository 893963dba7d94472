"""Fusing the dense and the lexical candidate lists into one order.

Two functions, chosen by `search.fusion` (see docs/benchmarks.md's tables for why the default is what it is):
- reciprocal rank fusion (Cormack et al., 2009), optionally weighted: score(d) = sum_i w_i / (k + rank_i(d));
- a convex combination of normalised scores (Bruch et al., 2023, "An analysis of fusion functions for hybrid
  retrieval"): score(d) = w * dense(d) + (1 - w) * lexical(d) / max lexical. Unlike RRF it keeps how far
  apart the scores are, so a weak lexical list (a few shared words) cannot outvote a confident dense one.

A candidate with no vector yet (its file is searchable by words while the meaning pass still runs) has no dense
signal to fuse; counting it as 0 buried word matches under every embedded file while meaning was unfinished
(bench_partial_meaning.py). Each fusion fuses only the signals a candidate has: RRF counts its lexical rank on
both sides, the convex sum gives it the cosine its lexical standing earns (see `convex_fusion`).
"""

from __future__ import annotations

from typing import AbstractSet, Mapping, Optional, Sequence

__all__ = ["reciprocal_rank_fusion", "convex_fusion", "FUSIONS"]

FUSIONS = ("convex", "rrf")


def reciprocal_rank_fusion(rankings: Sequence[Sequence[int]], k: int = 60,
                           weights: Optional[Sequence[float]] = None,
                           only_in: Optional[Mapping[int, int]] = None) -> list[tuple[int, float]]:
    """Fuse ranked id lists (best first) into [(id, score)] best first; ties keep first-seen order.

    `only_in`: ids that one list cannot hold (no vector yet) -> the index of the list that stands for both; its
    rank there counts with every list's weight, so lacking a signal costs nothing."""
    scores: dict[int, float] = {}
    total = float(len(rankings)) if weights is None else float(sum(weights))
    for i, ranking in enumerate(rankings):
        w = 1.0 if weights is None else float(weights[i])
        for rank, item in enumerate(ranking, start=1):
            if only_in is not None and item in only_in:
                if only_in[item] == i:
                    scores[item] = scores.get(item, 0.0) + total / (k + rank)
                continue
            scores[item] = scores.get(item, 0.0) + w / (k + rank)
    order = {item: i for i, item in enumerate(scores)}
    return sorted(scores.items(), key=lambda kv: (-kv[1], order[kv[0]]))


def convex_fusion(dense: Mapping[int, Optional[float]], lexical: Mapping[int, Optional[float]], dense_weight: float,
                  order: Sequence[int], no_vector: AbstractSet[int] = frozenset(),
                  rare: AbstractSet[int] = frozenset(), words_weight: float = 1.0,
                  exact: AbstractSet[int] = frozenset()) -> list[tuple[int, float]]:
    """[(id, w * cosine + (1 - w) * bm25 / max bm25)] best first over `order` (ties keep its order).

    Cosine is used as it is (already on a fixed scale, clipped at 0); BM25 has no fixed scale, so it is divided
    by the best BM25 among the candidates (a query's best lexical match scores 1). An id missing from a mapping
    scores 0 on that side (it shares no word with the query, or the side did not run).

    `no_vector`: ids present in `order` with no vector yet. Such an id is given the cosine its lexical standing
    earns, lexical share x the best cosine among the candidates that have one (only its words speak for it), so
    the query's best word match sits where the best meaning match sits, not below every embedded candidate.

    `rare`: ids that hold a query word few passages hold (rare_words.py, decision 0162). Such an id fuses with the
    larger of its cosine and the one its words earn, the same imputation: a word the bi-encoder does not know (a
    code, a name) is not buried under files that only sit near the query in meaning.

    `words_weight`: what the query's words can say, 0..1 (word_weight.py, decision 0169): every words share is
    multiplied by it, so a query whose only words in the library are common ones does not give its best word
    match a full share.

    `exact`: ids whose passage holds the whole of a long query as a phrase, or an amount or a code of the query
    whole (exact_phrase.py, decision 0169). Such an id fuses with at least the best cosine among the candidates and
    a full words share: it says the query, or what identifies it, as the person typed it.
    """
    top_lex = max((v for v in lexical.values() if v is not None), default=0.0)
    # Measured against two other ways to impute (bench_partial_meaning.py, docs/benchmarks.md): the best cosine
    # among embedded candidates with no more lexical share (a prefix maximum) lifted words-only answers a little
    # more (+0.7) and cost embedded answers more (-0.9); a line fitted to the embedded candidates' (lexical,
    # cosine) buried words-only answers again (-3.2).
    top_dense = max((max(0.0, v) for i, v in dense.items() if v is not None and i not in no_vector), default=1.0)
    scores: dict[int, float] = {}
    own: dict[int, float] = {}  # an exact holder's score without its lift: what orders holders that tie
    for item in order:
        lx = words_weight * max(0.0, (lexical.get(item) or 0.0) / top_lex if top_lex > 0 else 0.0)
        d = lx * top_dense if item in no_vector else max(0.0, dense.get(item) or 0.0)
        if item in rare:
            d = max(d, lx * top_dense)
        scores[item] = dense_weight * d + (1.0 - dense_weight) * lx
        if item in exact:  # it holds the query's words as typed: a full words share, whatever BM25 counted ("812"
            # and "60" apart, three times each, outscored the bill holding 812.60 once), and the best meaning
            own[item] = scores[item]
            scores[item] = dense_weight * max(d, top_dense) + (1.0 - dense_weight) * words_weight
    pos = {item: i for i, item in enumerate(order)}
    # Every exact holder scores the same, at least as high as any candidate: holders are ordered by their own
    # scores, and a tie with another candidate (holding the best cosine and the best BM25 both, of the query's words
    # apart) goes to the holder
    return sorted(scores.items(), key=lambda kv: (-kv[1], kv[0] not in exact, -own.get(kv[0], 0.0), pos[kv[0]]))
