"""Retrieve and rerank: dense (bi-encoder + vector index) and lexical (FTS5 BM25) candidates, fused by RRF,
reranked by the cross-encoder. Every stage's score and rank is kept on the hit."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable, Optional

import numpy as np

from ..ann import VectorIndex
from ..base.types import Hit, StageRanks, StageScores
from ..store import Store
from .filters import FilterScope, SearchFilters
from .fusion import reciprocal_rank_fusion

__all__ = ["SearchResult", "SearchRequest", "run_search"]


@dataclass(frozen=True)
class SearchRequest:
    query: str
    k: int
    mode: str  # hybrid | dense | lexical
    candidates: int  # per retriever
    rerank_depth: int  # how many fused candidates the cross-encoder reads
    rrf_k: int = 60
    filters: Optional[SearchFilters] = None  # restrict to files; applied before the top k are cut


@dataclass
class SearchResult:
    query: str
    mode: str
    hits: list[Hit]
    reranked: bool
    notice: Optional[str] = None  # e.g. why reranking did not run
    timings_ms: dict[str, float] = field(default_factory=dict)
    filter_stats: Optional[dict] = None  # with filters: how many passages were allowed, how far the search went

    def to_json(self) -> dict:
        out = {"query": self.query, "mode": self.mode, "reranked": self.reranked, "hits": [h.to_json() for h in self.hits]}
        if self.filter_stats is not None:
            out["timings"] = {**{f"{k}_ms": round(v, 2) for k, v in self.timings_ms.items()}, **self.filter_stats}
        return out


def run_search(req: SearchRequest, store: Store, index: Optional[VectorIndex],
               encode_query: Optional[Callable[[str], np.ndarray]],
               rerank: Optional[Callable[[str, list[str]], np.ndarray]]) -> SearchResult:
    """`encode_query` is None for lexical mode; `rerank` is None when reranking is off or unavailable."""
    t0 = time.perf_counter()
    timings: dict[str, float] = {}
    want_dense = req.mode in ("dense", "hybrid")
    want_lexical = req.mode in ("lexical", "hybrid")
    qvec = None
    scope = FilterScope(store, req.filters) if req.filters is not None and req.filters.active else None
    if scope is not None:
        timings["filter"] = _ms(t0)
    dense: list[tuple[int, float]] = []
    if want_dense and encode_query is not None and index is not None and len(index):
        qvec = encode_query(req.query)
        timings["encode"] = _ms(t0)
        if scope is not None:
            ids, sims = scope.dense(index, qvec, req.candidates, index.dim)
        else:
            ids, sims = index.search(qvec, req.candidates)
        dense = [(int(i), float(s)) for i, s in zip(ids[0], sims[0])]
        timings["dense"] = _ms(t0)
    lexical: list[tuple[int, float]] = []
    if want_lexical:
        lexical = (scope.lexical(req.query, req.candidates) if scope is not None
                   else store.search_lexical(req.query, req.candidates))
        timings["lexical"] = _ms(t0)

    dense_rank = {cid: r for r, (cid, _) in enumerate(dense, start=1)}
    lexical_rank = {cid: r for r, (cid, _) in enumerate(lexical, start=1)}
    fused = reciprocal_rank_fusion([[c for c, _ in dense], [c for c, _ in lexical]], k=req.rrf_k)
    # Keep as many candidates as either retriever asked for, then read their rows once.
    fused = fused[: max(req.candidates, req.k, req.rerank_depth)]
    rows = store.chunks([cid for cid, _ in fused])
    fused = [(cid, s) for cid, s in fused if cid in rows]  # a row deleted since the index was read

    scores: dict[int, StageScores] = {cid: StageScores(fused=s) for cid, s in fused}
    for cid, s in dense:
        if cid in scores:
            scores[cid].dense = s
    for cid, s in lexical:
        if cid in scores:
            scores[cid].lexical = s
    if req.mode == "hybrid":
        _fill_missing_stage_scores(req.query, scores, store, qvec)

    hits = [
        Hit(chunk_id=cid, path=rows[cid].path, page=rows[cid].page, start=rows[cid].start, end=rows[cid].end,
            text=rows[cid].text, scores=scores[cid],
            ranks=StageRanks(dense=dense_rank.get(cid), lexical=lexical_rank.get(cid), fused=i))
        for i, (cid, _) in enumerate(fused, start=1)
    ]

    reranked = False
    if rerank is not None and hits:
        head, tail = hits[: req.rerank_depth], hits[req.rerank_depth:]
        logits = rerank(req.query, [h.text for h in head])
        timings["rerank"] = _ms(t0)
        for h, logit in zip(head, logits):
            h.scores.rerank_logit = float(logit)
            h.scores.rerank = float(1.0 / (1.0 + np.exp(-float(logit))))
        # Stable: equal logits keep their fused order.
        head = sorted(head, key=lambda h: -h.scores.rerank_logit)
        for r, h in enumerate(head, start=1):
            h.ranks.rerank = r
        hits = head + tail
        reranked = True
    hits = hits[: req.k]
    for r, h in enumerate(hits, start=1):
        h.ranks.final = r
    timings["total"] = _ms(t0)
    return SearchResult(req.query, req.mode, hits, reranked, timings_ms=timings,
                        filter_stats=scope.stats if scope is not None else None)


def _fill_missing_stage_scores(query: str, scores: dict[int, StageScores], store: Store, qvec: Optional[np.ndarray]) -> None:
    """In hybrid mode, give every candidate both first-stage scores (ranks stay those of the retrievers),
    so a person can compare them; a dense-only hit's BM25 is 0 when it shares no word with the query."""
    need_dense = [cid for cid, s in scores.items() if s.dense is None]
    if qvec is not None and need_dense:
        ids, vecs = store.vectors(need_dense)
        for cid, sim in zip(ids.tolist(), (vecs @ qvec.reshape(-1)).tolist()):
            scores[cid].dense = float(sim)
    need_lex = [cid for cid, s in scores.items() if s.lexical is None]
    if need_lex:
        found = dict(store.search_lexical(query, len(need_lex), within=need_lex))
        for cid in need_lex:
            scores[cid].lexical = found.get(cid, 0.0)


def _ms(t0: float) -> float:
    return (time.perf_counter() - t0) * 1000.0
