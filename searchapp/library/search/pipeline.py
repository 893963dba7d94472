"""Retrieve and rerank: dense (bi-encoder + vector index) and lexical (FTS5 BM25) candidates, fused
(fusion.py), grouped by file (grouping.py: each file once, its other passages in `more`), reranked by the
cross-encoder. Every stage's score and rank is kept on the hit."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import AbstractSet, Callable, Mapping, Optional, Sequence

import numpy as np

from ...ann import VectorIndex
from ...base.config import Config, check_setting
from ...base.errors import ConfigError
from ...base.types import Hit, StageRanks, StageScores
from ...store import Store
from ...store.rows import ChunkRow
from .constraints import constraint_scope, list_by_date
from .contents_pages import contents_beside_others
from .crowded import beyond_crowding
from ..query.filters import SearchFilters
from .filter_scope import FilterScope
from .availability import RootsFn, why_unavailable
from .folding import Folded, fold_candidates, mark_folded, weigh_common, weigh_reranked
from .fusion import convex_fusion, reciprocal_rank_fusion
from .grouping import MORE_MAX, POOL_FACTOR, FileGroup, group_by_file, file_ranking, widen_to_files
from ..query.check import common_words, is_empty_query
from ..query.syntax import ParsedQuery
from .meaning_now import PassageEmbedder
from .near_copies import fold_near_copies
from .exact_phrase import holding_codes, holding_phrase
from .few_words import too_few_words
from .rare_words import holding, rare_terms
from .snippet_focus import meaning_focus
from .word_weight import words_weight
from .respelled import respelled
from .typos import Typos, typo_fixed
from .result import (COMMON, DID_YOU_MEAN, LISTING, LISTING_NOTICE, RESPELLED, TYPO, WEAK, Notice, SearchResult,
                     common_text)
from .weak import mark_weak, unread_words

__all__ = ["Candidates", "SearchResult", "SearchRequest", "run_search", "search_request", "mark_available",
           "searched_words"]


@dataclass(frozen=True)
class SearchRequest:
    query: str
    k: int
    mode: str  # hybrid | dense | lexical
    candidates: int  # per retriever
    rerank_depth: int  # how many fused candidates the cross-encoder reads
    rrf_k: int = 60
    filters: Optional[SearchFilters] = None  # restrict to files; applied before the top k are cut
    group: str = "file"  # file: each file once, its other passages in `more` | passage: every passage a row
    fusion: str = "convex"  # convex (normalised scores, weighted) | rrf
    dense_weight: float = 0.8  # the dense side's share in either fusion
    ef: Optional[int] = None  # HNSW breadth for this search (None: the index's configured ef_search)
    parsed: Optional[ParsedQuery] = None  # the query's syntax; None: `query` searched as typed
    fold_repeats: bool = True  # results by file: exact copies share a row, repeated text fills at most one
    fold_near_copies: bool = True  # results by file, with fold_repeats: a near copy shares its document's row
    embed_budget: int = 0  # hybrid: passages without a vector embedded on the spot (meaning_now.py), 0: none
    as_typed: bool = False  # --literal: every word searched as typed, none taken for a typo (typos.py)


def search_request(config: Config, query: str, mode: str, *, k: Optional[int], candidates: Optional[int],
                   rerank_depth: Optional[int], filters: Optional[SearchFilters], group: Optional[str],
                   parsed: Optional[ParsedQuery] = None, literal: bool = False) -> SearchRequest:
    """One search's request: the config's defaults filled in, per-call values held to the config's ranges
    (--k 0 or --candidates -1 is an error, not the default)."""
    s = config.search
    k = s.k if k is None else check_setting("search.k", k)
    candidates = max(s.candidates, k) if candidates is None else check_setting("search.candidates", candidates)
    if rerank_depth is not None:
        check_setting("search.candidates", rerank_depth)
    group = group or s.group
    if group not in ("file", "passage"):
        raise ConfigError(f"unknown grouping {group!r} (file or passage)")
    # ef is passed per call, never set on the shared index: a similar or duplicates call may run beside this one.
    ef = max(config.index.ef_search, candidates * (POOL_FACTOR if group == "file" else 1))
    return SearchRequest(query=query, k=k, mode=mode, candidates=candidates,
                         rerank_depth=rerank_depth or candidates, rrf_k=s.rrf_k, filters=filters, group=group,
                         fusion=s.fusion, dense_weight=s.dense_weight, ef=ef, parsed=parsed,
                         fold_repeats=s.fold_repeats, fold_near_copies=s.fold_near_copies,
                         embed_budget=s.embed_on_search, as_typed=literal)


# What orders a first-stage list, by mode: the fused score in hybrid, the cosine in dense, BM25 in lexical.
ORDER_LABEL = {"hybrid": "match", "dense": "similarity", "lexical": "bm25"}
# A hybrid row with no vector yet: its words' share alone (Hit.shown_score; decision 0109).
WORDS_LABEL = "words"


MARKED_COPIES = 100  # copies of a row checked for being readable (mark_available)


def mark_available(result: SearchResult, roots: RootsFn = tuple) -> None:
    """A hit from a missing or unreadable folder is still shown, marked as unavailable, and why; so is each of
    its copies that cannot be read (shown rows only: a copy that can be opened took the row, folding.py). Asked
    within a few seconds whatever the drives do (availability.py); `roots()`: the library's folders."""
    # one stat a copy, on every search: a file kept in thousands of places (a LICENSE) is marked in its first
    # MARKED_COPIES, as far as a person reads the list
    why = why_unavailable([p for h in result.hits for p in (h.path, *h.copies[:MARKED_COPIES])], roots)
    for h in result.hits:
        h.unavailable = why[h.path]
        h.available = not h.unavailable
        for m in h.more:  # the same file
            m.available, m.unavailable = h.available, h.unavailable
        h.copies_unavailable = {p: why[p] for p in h.copies[:MARKED_COPIES] if why[p]}


def run_search(req: SearchRequest, store: Store, index: Optional[VectorIndex],
               encode_query: Optional[Callable[[str], np.ndarray]],
               rerank: Optional[Callable[[str, list[str]], np.ndarray]],
               embed_now: Optional[PassageEmbedder] = None,
               reads_whole: Optional[Callable[[str], bool]] = None,
               known: Optional[Callable[[str], bool]] = None) -> SearchResult:
    """`encode_query` is None for lexical mode; `rerank` is None when reranking is off or unavailable;
    `embed_now`: how a hybrid search embeds its best word matches that have no vector yet (meaning_now.py);
    `reads_whole`: whether the bi-encoder's tokenizer reads a word as one piece (rare_words.py; None: no lift);
    `known`: the same question asked in any mode, of the query's words no passage holds: such a word is no typo
    (typos.py; None: any may be one).

    The steps: what is asked (text, scope), the candidates of each side, both scores of every candidate, one
    fused order, rows (by file or by passage), the cross-encoder's order of the head, the top k."""
    t0 = time.perf_counter()
    timings: dict[str, float] = {}
    asked = _asked(req, store, known)
    if asked.scope is not None:
        timings["filter"] = _ms(t0)
    if asked.listing:  # only operators and fields: matching files, newest first
        assert asked.scope is not None  # a query's constraints always make one
        hits = list_by_date(store, asked.scope, req.k, req.group, req.fold_repeats, req.fold_near_copies)
        _attach_repeats(store, hits)
        timings["total"] = _ms(t0)
        return SearchResult(req.query, req.mode, hits, False, notices=[Notice(LISTING, LISTING_NOTICE)],
                            timings_ms=timings, filter_stats=asked.scope.stats, group=req.group)
    cand = Candidates()
    if req.mode in ("dense", "hybrid") and encode_query is not None and index is not None and len(index):
        _dense_candidates(req, asked, store, index, encode_query, cand, timings, t0)
    # Only common words ("the of and"): the words index matches nearly every passage with a BM25 of ~1e-6, which
    # the fusion's scaling by the best made a words share of up to 1.0 for arbitrary rows. Meaning alone, said.
    common = common_words(asked.text) if req.mode == "hybrid" and not asked.prefixes else []
    cand.words = not common
    if req.mode in ("lexical", "hybrid") and cand.words:
        _lexical_candidates(req, asked, store, cand)
        timings["lexical"] = _ms(t0)
    scored = _scored(req, asked, store, cand, encode_query, embed_now, timings, t0)
    rare, weight, exact = _word_evidence(req, asked, store, cand, scored, reads_whole)
    few = _too_few_words(req, cand, scored)
    meaning = _meaning_counted(scored.scores, few)
    fused = _fuse(req, [c for c, _ in cand.dense if c in scored.rows and c not in few],
                  [c for c, _ in cand.lexical if c in scored.rows], meaning,
                  {c: s.lexical for c, s in scored.scores.items()}, scored.seen, rare, weight, exact)
    for cid, s in fused:
        scored.scores[cid].fused = s
    top_words = max((s.lexical for s in scored.scores.values() if s.lexical is not None), default=0.0)
    no_meaning: set[int] = set()  # hybrid hits (their chunk ids) whose file or passage has no vector yet
    folded: Optional[Folded] = None
    file_of: dict[int, int] = {}
    rare_files: set[int] = set()
    exact_files: set[int] = set()
    if req.group == "file":
        file_of = {cid: scored.rows[cid].file_id for cid in scored.seen}
        rare_files = {file_of[c] for c in rare}
        exact_files = {file_of[c] for c in exact}
        hits, folded = _rows_by_file(req, asked.text, store, cand, scored, fused, file_of, top_words, no_meaning,
                                     rare_files, weight, exact_files, few, meaning)
    else:
        hits = _passage_rows(req, fused, scored.hit, top_words, no_meaning, weight, few)
    for h in hits:  # the inspector and --json say why such a row scores above its cosine
        h.rare = h.chunk_id in rare or file_of.get(h.chunk_id) in rare_files
        h.phrase = h.chunk_id in exact or file_of.get(h.chunk_id) in exact_files
    reranked = False
    if rerank is not None and hits:
        hits = _reranked(req, asked.text, hits, rerank, folded, file_of)
        timings["rerank"] = _ms(t0)
        reranked = True
    hits = _final(req, hits, no_meaning, store, file_of)
    if cand.qvec is not None and encode_query is not None:  # a passage meaning found opens where it says so
        meaning_focus(hits, asked.text, cand.qvec, encode_query)
        timings["focus"] = _ms(t0)
    _attach_repeats(store, hits)
    if folded is not None:  # the copies listed are those in the search's scope (folding.py)
        mark_folded(store, hits, file_of, folded, asked.scope.filters.where() if asked.scope is not None else None)
    timings["total"] = _ms(t0)
    notices = _respelled(asked) + _weak_and_common(req, asked, cand, hits, common, reads_whole)
    return SearchResult(req.query, req.mode, hits, reranked, timings_ms=timings,
                        filter_stats=asked.scope.stats if asked.scope is not None else None, group=req.group,
                        notices=notices, words_matched=bool(cand.lexical) or req.mode == "dense" or not cand.words,
                        searched_as=dict(asked.typos + asked.respelled), did_you_mean=dict(asked.offered))


def _respelled(asked: _Asked) -> list[Notice]:
    """The notes of the query's words searched otherwise than typed: a typo first, then ue for ü."""
    notices = []
    if asked.typos:
        notices.append(Notice(TYPO, "searched " + ", ".join(f"“{w}” as “{p}”" for w, p in asked.typos)
                              + f" (no passage holds {'it' if len(asked.typos) == 1 else 'them'} as typed; "
                              "in quotes a word is searched as typed)"))
    if asked.offered:  # a word the model knows: searched as typed (decision 0194)
        words = " or ".join(f"“{w}”" for w, _ in asked.offered)
        notices.append(Notice(DID_YOU_MEAN, f"no passage holds {words}: searched as typed (did you mean "
                              + ", ".join(f"“{p}”" for _, p in asked.offered) + "?)"))
    if asked.respelled:
        notices.append(Notice(RESPELLED, "searched " + ", ".join(f"“{w}” as “{p}”" for w, p in asked.respelled)
                              + " (ae, oe, ue read as ä, ö, ü)"))
    return notices


def _too_few_words(req: SearchRequest, cand: Candidates, scored: _Scored) -> set[int]:
    """The candidates whose passage holds too few words for its meaning to be measured (few_words.py, decision
    0170): in a hybrid search whose words rank and where meaning does not order alone (search.dense_weight 1),
    they are ranked by their words alone."""
    if not (req.mode == "hybrid" and cand.words and req.dense_weight < 1.0):
        return set()
    return {c for c in scored.seen if too_few_words(scored.rows[c].text)}


def _meaning_counted(scores: Mapping[int, StageScores], few: AbstractSet[int]) -> dict[int, Optional[float]]:
    """Each candidate's cosine as fusion counts it: 0 for a passage of too few words (its meaning says nothing,
    whether or not it has a vector yet); the cosine a row shows stays its own."""
    return {c: 0.0 if c in few else s.dense for c, s in scores.items()}


def _weak_and_common(req: SearchRequest, asked: _Asked, cand: Candidates, hits: list[Hit], common: list[str],
                     reads_whole: Optional[Callable[[str], bool]]) -> list[Notice]:
    """Each row marked weak or not, and the notices of the query's words: only common ones; every row weak. Weak
    says "no shared word": known only where the words side ran (not dense mode, not only common words). Where no
    passage holds any query word and the model reads none whole, a higher cosine is weak too (weak.py, decision
    0200). Marks and notes only: the rows are already in order."""
    words_asked = req.mode != "dense" and cand.words
    notices = [Notice(COMMON, common_text(common))] if common else []
    if not words_asked:
        for h in hits:
            h.weak = False
        return notices
    weak = mark_weak(hits, unread_words(asked.text, reads_whole) if not cand.lexical else [])
    return notices + ([Notice(WEAK, weak)] if weak else [])


def _word_evidence(req: SearchRequest, asked: _Asked, store: Store, cand: Candidates, scored: _Scored,
                   reads_whole: Optional[Callable[[str], bool]]) -> tuple[set[int], float, set[int]]:
    """What the words say beyond BM25, for convex fusion of a hybrid search with words: (the candidates holding a
    rare query word, the weight of the words share, the candidates holding a long query word for word)."""
    if not (req.mode == "hybrid" and req.fusion == "convex" and cand.words and cand.lexical):
        return set(), 1.0, set()
    # The candidates holding a query word the model does not know and few passages hold fuse with what their words
    # earn (decision 0162). Not where search.dense_weight is 1, which asks for meaning's order alone (the lift is
    # words speaking for it); nor the phrase's lift below.
    lifts = req.dense_weight < 1.0
    rare = (holding(store, rare_terms(store, asked.text, reads_whole), scored.seen)
            if reads_whole is not None and lifts else set())
    # What the query's words can say (decision 0169): their share weighed by the IDF the library holds of them, so
    # that a lone common word does not count as a full words share.
    weight = words_weight(store, asked.text, asked.prefixes)
    # A long query said word for word in a passage (decision 0169): as near in meaning as the nearest candidate.
    # An amount or a code typed whole ("812.60") and found whole, a short query or a written date held whole: the
    # same lift (decision 0194).
    holders = {c: scored.rows[c].text for c in scored.seen if scored.scores[c].lexical} if lifts else {}
    exact = holding_phrase(asked.text, holders) | holding_codes(asked.text, holders)
    return rare, weight, exact


@dataclass(frozen=True)
class _Asked:
    """What a request searches for: its free text, its words typed `word*`, the files it may return, and
    whether it is a listing (only operators and fields)."""
    text: str
    prefixes: Sequence[str]
    scope: Optional[FilterScope]
    listing: bool
    respelled: list[tuple[str, str]] = field(default_factory=list)  # (as typed, as searched): respelled.py
    typos: list[tuple[str, str]] = field(default_factory=list)  # (as typed, as searched): typos.py
    offered: list[tuple[str, str]] = field(default_factory=list)  # (as typed and searched, one edit away): typos.py


def searched_words(req: SearchRequest) -> tuple[str, Sequence[str]]:
    """(the text the words side searches, its words typed `word*`): a query with syntax ranks by its free text;
    a plain query is searched exactly as typed."""
    parsed = req.parsed if req.parsed is not None and req.parsed.has_syntax else None
    return (req.query, ()) if parsed is None else (parsed.free_text, parsed.prefixes)


def _asked(req: SearchRequest, store: Store, known: Optional[Callable[[str], bool]] = None) -> _Asked:
    # A query with syntax ranks by its free text inside the scope its constraints allow.
    text, prefixes = searched_words(req)
    text, changes = respelled(store, text) if req.mode != "dense" else (text, [])  # "Muellgebuehren": ue for ü
    constrained = [t.text for c in req.parsed.clauses if c.kind != "word" for t in c.terms] \
        if req.parsed is not None and req.parsed.has_syntax else []
    # "recieve" searched as "receive"; --literal searches words as typed, as quotes do (decision 0176)
    typos = typo_fixed(store, text, req.query, constrained, known) if req.mode != "dense" and not req.as_typed \
        else Typos(text)
    text = typos.text
    if req.parsed is None or not req.parsed.has_syntax:
        scope = FilterScope(store, req.filters) if req.filters is not None and req.filters.active else None
        return _Asked(text, prefixes, scope, False, changes, typos.changes, typos.offered)
    return _Asked(text, prefixes, constraint_scope(store, req.parsed, req.filters), is_empty_query(text), changes,
                  typos.changes, typos.offered)


@dataclass
class Candidates:
    """The first stage: each side's (chunk id, score) list, best first, and what getting them left behind."""
    dense: list[tuple[int, float]] = field(default_factory=list)
    dense_cut: bool = False  # the dense list stops short of the vectors in scope (a cosine below its last missed it)
    lexical: list[tuple[int, float]] = field(default_factory=list)
    # Hybrid: the BM25 of every dense hit comes with the lexical top (one pass; None: not asked that way).
    lexical_of_dense: Optional[dict[int, float]] = None
    qvec: Optional[np.ndarray] = None  # the query's vector, once encoded
    words: bool = True  # the words side ranks: False for a hybrid query of only common words (meaning alone)


def _pool(req: SearchRequest) -> int:
    return req.candidates * POOL_FACTOR if req.group == "file" else req.candidates


def _dense_candidates(req: SearchRequest, asked: _Asked, store: Store, index: VectorIndex,
                      encode_query: Callable[[str], np.ndarray], cand: Candidates, timings: dict[str, float],
                      t0: float) -> None:
    scope = asked.scope
    cand.qvec = q = encode_query(asked.text)
    timings["encode"] = _ms(t0)

    def fetch_dense(n: int) -> list[tuple[int, float]]:
        ids, sims = (scope.dense(index, q, n, index.dim, ef=req.ef) if scope is not None
                     else index.search(q, n, ef=req.ef))
        return [(int(i), float(s)) for i, s in zip(ids[0], sims[0], strict=True)]

    available = len(scope.ids) if scope is not None else len(index)
    cand.dense = (widen_to_files(fetch_dense, store.chunk_files, req.candidates, _pool(req), available)
                  if req.group == "file" else fetch_dense(_pool(req)))
    cand.dense_cut = len(cand.dense) < available
    timings["dense"] = _ms(t0)


def _lexical_candidates(req: SearchRequest, asked: _Asked, store: Store, cand: Candidates) -> None:
    scope, text, prefixes = asked.scope, asked.text, asked.prefixes
    dense_ids = [c for c, _ in cand.dense]

    def fetch_lex(n: int) -> list[tuple[int, float]]:
        if scope is not None and not (req.mode == "hybrid" and dense_ids):
            return scope.lexical(text, n, prefixes)
        if scope is not None:
            top, cand.lexical_of_dense = scope.lexical_and_score(text, n, dense_ids, prefixes)
            return top
        if req.mode == "hybrid" and dense_ids:
            top, cand.lexical_of_dense = store.search_lexical_and_score(text, n, dense_ids)
            return top
        return store.search_lexical(text, n)

    if req.group != "file":
        cand.lexical = fetch_lex(_pool(req))
        return
    cand.lexical = widen_to_files(fetch_lex, store.chunk_files, req.candidates, _pool(req), 1 << 62)
    # a file holding the words in thousands of passages filled the pool: the other files' best, asked apart
    cand.lexical += beyond_crowding(store, text, prefixes, scope.filters.where() if scope is not None else None,
                                    cand.lexical, req.candidates, _pool(req))


@dataclass
class _Scored:
    """Every candidate still in the library (`seen`, first-stage order), its row and its scores; `hit` makes
    the Hit a result shows of one of them."""
    rows: dict[int, ChunkRow]
    seen: list[int]
    scores: dict[int, StageScores]
    dense_rank: dict[int, int]
    lexical_rank: dict[int, int]

    def hit(self, cid: int, fused_rank: Optional[int]) -> Hit:
        r = self.rows[cid]
        return Hit(chunk_id=cid, path=r.path, page=r.page, start=r.start, end=r.end, text=r.text,
                   scores=self.scores[cid], date_ns=r.date_ns,
                   ranks=StageRanks(dense=self.dense_rank.get(cid), lexical=self.lexical_rank.get(cid),
                                    fused=fused_rank))


def _scored(req: SearchRequest, asked: _Asked, store: Store, cand: Candidates,
            encode_query: Optional[Callable[[str], np.ndarray]], embed_now: Optional[PassageEmbedder],
            timings: dict[str, float], t0: float) -> _Scored:
    """Both first-stage scores of every candidate; in hybrid, the best word matches without a vector embedded
    on the spot first (within the budget) and put in the dense list where their cosine ranks them."""
    seen = list(dict.fromkeys([c for c, _ in cand.dense] + [c for c, _ in cand.lexical]))
    rows = store.chunks(seen)
    seen = [cid for cid in seen if cid in rows]  # a row deleted since the index was read
    scores: dict[int, StageScores] = {cid: StageScores() for cid in seen}
    for cid, s in cand.dense:
        if cid in scores:
            scores[cid].dense = s
    for cid, s in cand.lexical:
        if cid in scores:
            scores[cid].lexical = s
    if req.mode == "hybrid" and cand.words:
        _fill_missing_stage_scores(asked.text, scores, store, cand.qvec, cand.lexical_of_dense, asked.prefixes)
        if embed_now is not None and encode_query is not None and req.embed_budget > 0:
            cand.qvec, fresh = _meaning_now(req, asked.text, store, embed_now, encode_query, cand.qvec, scores,
                                            cand.lexical,
                                            {c: rows[c].file_id for c in seen} if req.group == "file" else None)
            cand.dense = _with_fresh(cand.dense, fresh, cand.dense_cut)
            timings["meaning_now"] = _ms(t0)
    return _Scored(rows, seen, scores, {cid: r for r, (cid, _) in enumerate(cand.dense, start=1)},
                   {cid: r for r, (cid, _) in enumerate(cand.lexical, start=1)})


def _rows_by_file(req: SearchRequest, text: str, store: Store, cand: Candidates, scored: _Scored,
                  fused: list[tuple[int, float]], file_of: dict[int, int], top_words: float,
                  no_meaning: set[int], rare: set[int], weight: float = 1.0, exact: AbstractSet[int] = frozenset(),
                  few: AbstractSet[int] = frozenset(), meaning: Optional[Mapping[int, Optional[float]]] = None
                  ) -> tuple[list[Hit], Optional[Folded]]:
    """One row a file, its files fused from the two sides' file rankings; repeats folded first when asked.
    `rare`: the files holding a rare query word (their passages fused so too); `weight`: the words share's
    (word_weight.py); `exact`: the files holding a long query word for word (exact_phrase.py); `few`: passages
    of too few words, `meaning`: the cosines fusion counts (0 for those, _meaning_counted): a file's meaning is
    its best passage's that can carry one."""
    folded: Optional[Folded] = None
    scores = scored.scores
    texts = {c: scored.rows[c].text for c in scored.seen}
    # A contents page leaves its file's signals where the file has another candidate passage (contents_pages.py):
    # the file is ranked and shown by that, not by a list of its headings.
    contents = contents_beside_others([cid for cid, _ in fused], file_of, texts)
    passage_order = [cid for cid, _ in fused if cid not in contents]
    file_dense = [(c, s) for c, s in cand.dense if c not in few and c not in contents]
    file_lexical = [(c, s) for c, s in cand.lexical if c not in contents]
    if meaning is None:
        meaning = {c: s.dense for c, s in scores.items()}
    if req.fold_repeats:  # one row per content: exact copies and repeated text (folding.py)
        folded = fold_candidates(store, text, passage_order, file_of, texts,
                                 {r.file_id: r.path for r in scored.rows.values()})
        passage_order = [c for c in passage_order if c not in folded.dropped]
        file_dense, file_lexical = folded.keep(file_dense), folded.keep(file_lexical)
        _copies_tie(scored, folded.row_of, file_of)
    groups = group_by_file(passage_order, file_of, file_dense, file_lexical,
                           meaning, {c: s.lexical for c, s in scores.items()})
    dense_files, lexical_files = file_ranking(file_dense, file_of), file_ranking(file_lexical, file_of)
    if folded is not None and req.mode == "hybrid":
        dense_files, lexical_files = weigh_common(folded, groups, dense_files, lexical_files)
    file_fused = _fuse(req, dense_files, lexical_files,
                       {f: g.dense for f, g in groups.items()}, {f: g.lexical for f, g in groups.items()},
                       list(groups), rare, weight, exact)
    return _file_rows(req, groups, file_fused, scored.hit, top_words, no_meaning, weight), folded


def _copies_tie(scored: _Scored, row_of: Mapping[int, int], file_of: Mapping[int, int]) -> None:
    """A copy's passage and the same passage of the copy whose row it shares tie in each stage (same text, same
    score): which the index listed first is no ranking. The row's passage takes the better rank of the two, so
    the top row does not say "bm25 24.93 #2" above no #1 (a newcomer: the #1 was its folded copy's)."""
    kept = {(f, scored.rows[c].text): c for c in scored.seen
            if (f := file_of.get(c)) is not None and row_of.get(f) == f}
    for cid in scored.seen:
        fid = file_of.get(cid)
        keeper = row_of.get(fid) if fid is not None else None
        shown = kept.get((keeper, scored.rows[cid].text)) if keeper not in (None, fid) else None
        if shown is None:
            continue
        for ranks, stage in ((scored.dense_rank, "dense"), (scored.lexical_rank, "lexical")):
            tie = getattr(scored.scores[cid], stage) == getattr(scored.scores[shown], stage)
            if tie and cid in ranks and shown in ranks and ranks[cid] < ranks[shown]:
                ranks[cid], ranks[shown] = ranks[shown], ranks[cid]


def _file_rows(req: SearchRequest, groups: dict[int, FileGroup], file_fused: list[tuple[int, float]],
               hit: Callable[[int, Optional[int]], Hit], top_words: float, no_meaning: set[int],
               weight: float = 1.0) -> list[Hit]:
    """One row a file, its best passage first and its others in `more`; a hybrid row's words share (weighed by
    `weight`, as fused), and its passage added to `no_meaning` when its file has no vector among the candidates
    (decision 0109)."""
    hits = []
    for i, (fid, fscore) in enumerate(file_fused[: max(req.candidates, req.k, req.rerank_depth)], start=1):
        best, *others = groups[fid].passages
        h = hit(best, i)
        g = groups[fid]
        h.scores = StageScores(dense=h.scores.dense, lexical=h.scores.lexical, fused=fscore,
                               words=weight * _share(g.lexical, top_words) if req.mode == "hybrid" else None)
        if req.mode == "hybrid" and g.dense is None:
            no_meaning.add(best)
        h.more = [hit(c, None) for c in others[:MORE_MAX]]
        hits.append(h)
    return hits


def _passage_rows(req: SearchRequest, fused: list[tuple[int, float]], hit: Callable[[int, Optional[int]], Hit],
                  top_words: float, no_meaning: set[int], weight: float = 1.0,
                  few: AbstractSet[int] = frozenset()) -> list[Hit]:
    """One row a passage (as many candidates as either retriever asked for); in hybrid its words share (weighed
    by `weight`), and added to `no_meaning` when it has no vector (not one of `few`: too few words for a meaning,
    it is scored by its words alone for good, a match score)."""
    hits = [hit(cid, i) for i, (cid, _) in enumerate(fused[: max(req.candidates, req.k, req.rerank_depth)], start=1)]
    if req.mode == "hybrid":
        for h in hits:
            h.scores.words = weight * _share(h.scores.lexical, top_words)
        no_meaning.update(h.chunk_id for h in hits if h.scores.dense is None and h.chunk_id not in few)
    return hits


def _reranked(req: SearchRequest, text: str, hits: list[Hit], rerank: Callable[[str, list[str]], np.ndarray],
              folded: Optional[Folded], file_of: dict[int, int]) -> list[Hit]:
    """The first `req.rerank_depth` hits scored by the cross-encoder and put in its order; the rest after."""
    head, tail = hits[: req.rerank_depth], hits[req.rerank_depth:]
    logits = rerank(text, [h.text for h in head])
    for h, logit in zip(head, logits, strict=True):
        h.scores.rerank_logit = float(logit)
        h.scores.rerank = float(1.0 / (1.0 + np.exp(-float(logit))))
    if folded is not None:  # a row of repeated text keeps part of its relevance, as of its first-stage score
        weigh_reranked(folded, head, file_of)
    # Stable: equal logits keep their fused order.
    head = sorted(head, key=lambda h: (-(h.scores.rerank or 0.0), -(h.scores.rerank_logit or 0.0)))
    for r, h in enumerate(head, start=1):
        h.ranks.rerank = r
    return head + tail


def _final(req: SearchRequest, hits: list[Hit], no_meaning: set[int], store: Store,
           file_of: Mapping[int, int]) -> list[Hit]:
    """The top `req.k`, each with its final rank and the label of the score it shows; by file, a near copy of a
    row above it folded into that row first (near_copies.py: the next file takes its place)."""
    if req.group == "file" and req.fold_repeats and req.fold_near_copies:
        hits = fold_near_copies(store, hits, file_of, req.k)
    hits = hits[: req.k]
    for r, h in enumerate(hits, start=1):
        h.ranks.final = r
        # The score a row shows is the one that put it there (a reranked head, else the first stage's order); a
        # hybrid row without meaning yet shows its words alone, so its number means what it will mean later.
        h.order_label = ("relevance" if h.scores.rerank is not None else
                         WORDS_LABEL if h.chunk_id in no_meaning else ORDER_LABEL[req.mode])
    return hits


def _attach_repeats(store: Store, hits: list[Hit]) -> None:
    repeats = store.chunk_repeats([x.chunk_id for h in hits for x in (h, *h.more)])
    for h in hits:
        for x in (h, *h.more):
            x.repeats = repeats.get(x.chunk_id, [])


def _fuse(req: SearchRequest, dense: list[int], lexical: list[int], dense_score: Mapping[int, Optional[float]],
          lexical_score: Mapping[int, Optional[float]], order: list[int],
          rare: AbstractSet[int] = frozenset(), weight: float = 1.0,
          exact: AbstractSet[int] = frozenset()) -> list[tuple[int, float]]:
    """One order over `order`'s ids (passages or files) from the two sides, by the configured fusion; `rare`: those
    holding a rare query word (convex fusion lifts their meaning to what their words earn, rare_words.py);
    `weight`: what the query's words can say (word_weight.py), convex fusion's words share multiplied by it;
    `exact`: those holding a long query word for word (exact_phrase.py: convex fusion lifts their meaning to the
    best cosine)."""
    w = req.dense_weight
    # Hybrid: an id whose dense score is still None has no vector yet (every candidate with one was scored by
    # _fill_missing_stage_scores); it is fused on the signal it has (fusion.py).
    no_vector = {i for i in order if dense_score.get(i) is None} if req.mode == "hybrid" else set()
    if req.fusion == "rrf":
        weights = [w, 1.0 - w] if req.mode == "hybrid" else None
        ranked = reciprocal_rank_fusion([dense, lexical], k=req.rrf_k, weights=weights,
                                        only_in=dict.fromkeys(no_vector, 1))
        have = {i for i, _ in ranked}
        return ranked + [(i, 0.0) for i in order if i not in have]
    if req.mode in ("dense", "lexical"):  # one side: its own order (ties kept), its own score
        side = dense if req.mode == "dense" else lexical
        first = set(side)
        both = list(side) + [i for i in order if i not in first]
        return (convex_fusion(dense_score, {}, 1.0, both) if req.mode == "dense"
                else convex_fusion({}, lexical_score, 0.0, both))
    return convex_fusion(dense_score, lexical_score, w, order, no_vector, rare, weight, exact)


def _share(bm25: Optional[float], top: float) -> float:
    """BM25 as a share of the best among the candidates (0..1): the words' part of a fused score."""
    return max(0.0, (bm25 or 0.0) / top) if top > 0 else 0.0


def _meaning_now(req: SearchRequest, text: str, store: Store, embed_now: PassageEmbedder,
                 encode_query: Callable[[str], np.ndarray], qvec: Optional[np.ndarray],
                 scores: dict[int, StageScores], lexical: list[tuple[int, float]],
                 file_of: Optional[dict[int, int]]) -> tuple[Optional[np.ndarray], dict[int, float]]:
    """Give the best word matches that have no vector yet a cosine, embedding at most `req.embed_budget` of
    their passages: by files, each file's best passage by words (one per file, so the budget reaches as many
    rows as it can). Returns the query vector (encoded here when the library had no vectors to search) and the
    cosine of each passage embedded."""
    lacking = [cid for cid, _ in lexical if cid in scores and scores[cid].dense is None]
    if file_of is not None:
        firsts: dict[int, int] = {}
        for cid in lacking:
            firsts.setdefault(file_of[cid], cid)
        lacking = list(firsts.values())
    if not lacking:
        return qvec, {}
    if qvec is None:
        qvec = encode_query(text)
    # A few more than the budget: passages this process embedded already cost nothing (FreshVectors).
    got = embed_now.vectors(store, lacking[: 4 * req.embed_budget], req.embed_budget)
    q = qvec.reshape(-1)
    cosines = {cid: float(vec @ q) for cid, vec in got.items()}
    for cid, cosine in cosines.items():
        scores[cid].dense = cosine
    return qvec, cosines


def _with_fresh(dense: list[tuple[int, float]], fresh: dict[int, float], cut: bool) -> list[tuple[int, float]]:
    """The dense ranking with the passages embedded on the spot where their cosine puts them: had they had a
    vector, the index would have returned them there. RRF reads ranks, not scores: outside this list such a
    passage, no longer without a vector, would get its words' share alone and sink below the rows that have no
    vector yet (decision 0109: a row shows "match" only when meaning counts in its rank). `cut`: the list stops
    short of the vectors in scope, so a cosine below its last would not have been in it."""
    if not fresh:
        return dense
    new = sorted(fresh.items(), key=lambda cs: -cs[1])
    out: list[tuple[int, float]] = []
    i = 0
    for cid, s in dense:  # the index's own order kept; the new ones go in before the first lower cosine
        while i < len(new) and new[i][1] > s:
            out.append(new[i])
            i += 1
        out.append((cid, s))
    return out if cut else out + new[i:]


def _fill_missing_stage_scores(query: str, scores: dict[int, StageScores], store: Store, qvec: Optional[np.ndarray],
                               lexical_of_dense: Optional[dict[int, float]] = None,
                               prefixes: Sequence[str] = ()) -> None:
    """In hybrid mode, give every candidate both first-stage scores (ranks stay those of the retrievers),
    so a person can compare them; a dense-only hit's BM25 is 0 when it shares no word with the query.
    `lexical_of_dense`: the BM25 of every dense hit that matches, found with the lexical top (store/lexical.py).
    `prefixes`: words of `query` typed `word*`."""
    need_dense = [cid for cid, s in scores.items() if s.dense is None]
    if qvec is not None and need_dense:
        ids, vecs = store.vectors(need_dense, dim=int(qvec.size))  # none back: all still to be embedded
        for cid, sim in zip(ids.tolist(), (vecs @ qvec.reshape(-1)).tolist(), strict=True):
            scores[cid].dense = float(sim)
    need_lex = [cid for cid, s in scores.items() if s.lexical is None]
    if need_lex and lexical_of_dense is not None:  # every such candidate is a dense hit: no second pass
        for cid in need_lex:
            scores[cid].lexical = lexical_of_dense.get(cid, 0.0)
    elif need_lex:
        found = dict(store.search_lexical(query, len(need_lex), within=need_lex, prefixes=prefixes))
        for cid in need_lex:
            scores[cid].lexical = found.get(cid, 0.0)


def _ms(t0: float) -> float:
    return (time.perf_counter() - t0) * 1000.0
