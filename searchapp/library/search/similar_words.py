"""Similar files by their words while meaning fills (decision 0159): "more like this" for the files the meaning
side cannot compare yet, because they have no vector.

The source's (or its page's) most distinctive words:

    weight of a term = (1 + ln tf) × ln(1 + (N − n + 0.5) / (n + 0.5))

tf: how often the source's passages (those find_similar reads) say it; n of the library's N passages hold it
(from the words index: store word_counts). The idf is BM25's as Lucene smooths it, never ≤ 0. A term that no
passage outside the source holds finds no other file and is left out. The TERMS best, each as the word the source
says most, go as one OR query through the library's lexical search (Store.search_lexical, or the filters'
FilterScope.lexical): its BM25 top gives the candidate passages. Each is then scored by the weights:

    words score of a passage = Σ weights of the query's terms it holds / Σ weights of all of them

0..1, 1 = it holds every distinctive word; a file takes its best passage's (the passage shown), ties in the
lexical search's order. Not BM25 itself: FTS5 floors the idf of a word that half the passages hold at 1e-6, so in a
small library (a first folder of notes) the topic's own words weighed nothing and a note sharing one rarer word
came first; and a share of the source's words reads the same whatever else the library holds.

Left out: the source, its exact copies, the files of the meaning rows and their copies, and, where the meaning
side compared the source, every file that has a vector (it judged those). A row shows its words score labelled
"words" (`scores.words`; `scores.lexical` keeps the BM25), never a cosine, and comes after the meaning rows.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Optional, Sequence

from ...base.types import Hit, StageRanks, StageScores
from ...store import Store
from ...store.lexical import STOP_WORDS
from ...store.rows import ChunkRow, FileRow
from ...store.word_stats import text_terms, word_terms
from .filter_scope import FilterScope
from .folding import Copies, Folded, fold_copies, mark_folded
from .result import SearchResult
from .similar_hit import NOT_READY_HERE, NOT_READY_SOURCE, SimilarHit

__all__ = ["add_words_rows", "distinctive_words", "TERMS"]

TERMS = 12  # words asked: enough to name a topic, few enough that each one weighs (BM25 sums them)
LOOKED_UP = 64  # distinct terms of the source whose library counts are read: its most frequent ones
MAX_WORDS = 50_000  # words of the source read, in order: a long source is sampled already (find_similar)
LONGEST = 40  # characters: a longer "word" is an identifier or encoded data, not a topic
PER_ROW = 50  # passages of the lexical top read for each row asked, besides the source's own
MAX_PASSAGES = 2_000  # their texts are read and tokenized (first asked)
MAX_WIDENED = 16_000  # the most read when one file's passages fill the top (_Read)
WIDEN = 4  # the top asked again, x this deeper, while it holds too few files
_WORD = re.compile(r"\w+", re.UNICODE)  # a query's words, as fts_query reads them


@dataclass
class WordsQuery:
    words: list[str]  # one word per term, the most distinctive first
    terms: list[str]  # their terms, in the same order
    weights: list[float]  # theirs, in the same order

    def share(self, held: set[str]) -> float:
        """The words score of a passage holding the terms `held` (module docstring)."""
        total = sum(self.weights)
        return sum(w for t, w in zip(self.terms, self.weights, strict=True) if t in held) / total if total else 0.0


def distinctive_words(store: Store, texts: Sequence[str], n: int = TERMS) -> WordsQuery:
    """The `n` most distinctive words of `texts` (the source's passages) against the library (module docstring)."""
    said: Counter[str] = Counter()
    per_passage: list[set[str]] = []
    read = 0
    for text in texts:
        words = [w for w in (m.lower() for m in _WORD.findall(text)) if w not in STOP_WORDS and 1 < len(w) <= LONGEST]
        words = words[: max(0, MAX_WORDS - read)]
        read += len(words)
        said.update(words)
        per_passage.append(set(words))
    term_of = dict(zip(said, word_terms(list(said)), strict=True))
    tf: Counter[str] = Counter()
    held: Counter[str] = Counter()  # source passages holding the term
    word_of: dict[str, str] = {}  # term -> the word the source says most (the first when tied)
    for word, count in said.items():
        term = term_of[word]
        if term is None or len(term) < 2:
            continue
        tf[term] += count
        if word_of.get(term) is None or count > said[word_of[term]]:
            word_of[term] = word
    for passage_words in per_passage:
        held.update({t for t in (term_of[w] for w in passage_words) if t is not None})
    asked = [t for t, _ in tf.most_common(LOOKED_UP)]
    counts = store.word_counts(asked) if asked else None
    if counts is None:
        return WordsQuery([], [], [])
    total, holding = counts
    weights = {}
    for term in asked:
        n_hold = holding.get(term, 0)
        if n_hold > held[term]:  # somewhere besides the source
            idf = math.log(1.0 + (total - n_hold + 0.5) / (n_hold + 0.5))
            weights[term] = (1.0 + math.log(tf[term])) * idf
    best = sorted(weights, key=lambda t: (-weights[t], t))[:n]
    return WordsQuery([word_of[t] for t in best], best, [weights[t] for t in best])


def add_words_rows(store: Store, result: SearchResult, source: FileRow, src_ids: Sequence[int], k: int,
                   scope: Optional[FilterScope], skip_shas: set[str], skip_files: set[int], judged: bool) -> None:
    """Append up to k − len(result.hits) rows found by words. `skip_shas`/`skip_files`: the contents and files
    already said (the source's, the meaning rows'); `judged`: the meaning side compared the source with the files
    that have a vector, so those are left to it."""
    want = k - len(result.hits)
    if want <= 0:
        return
    rows = store.chunks(list(src_ids))
    query = distinctive_words(store, [rows[c].text for c in src_ids if c in rows])
    if not query.words:
        return
    read = _Read()
    # the source's own passages come first (a container's: its members', src_ids)
    limit = min(MAX_PASSAGES, max(source.n_chunks, len(src_ids)) + PER_ROW * k)
    while True:  # widened while one file's passages fill the lexical top (_Read: why)
        exhausted = read.search(store, query, limit, scope, skip_files | {source.id})
        best = read.best(query)
        shas = store.file_sha256s(list(best))
        files = sorted((f for f in best if shas.get(f) not in skip_shas and best[f][0] > 0.0),
                       key=lambda f: -best[f][0])  # stable: ties keep the lexical order; copies fold
        vectored = store.files_embedded(files) if files else set()
        if judged:  # left out before the cut: the files meaning judged must not take the rows of the others
            files = [f for f in files if f not in vectored]
        files = files[: 4 * want + 20]
        copies = fold_copies(store, files, {f: read.passages[best[f][2]].path for f in files})
        files = [f for f in files if copies.row_of.get(f, f) == f][:want]
        if len(files) >= want or exhausted or limit >= MAX_WIDENED:
            break
        limit = min(MAX_WIDENED, limit * WIDEN)
    _append_rows(store, result, query, files, best, read.passages, vectored, copies, scope)


def _append_rows(store: Store, result: SearchResult, query: WordsQuery, files: list[int],
                 best: dict[int, tuple[float, float, int, set[str]]], passages: dict[int, ChunkRow],
                 vectored: set[int], copies: Copies, scope: Optional[FilterScope]) -> None:
    """`files` as rows found by words, after the rows `result` holds."""
    added: list[Hit] = []
    for rank, fid in enumerate(files, start=1):
        share, bm25, cid, held = best[fid]
        row = passages[cid]
        added.append(SimilarHit(
            chunk_id=cid, path=row.path, page=row.page, start=row.start, end=row.end, text=row.text,
            scores=StageScores(lexical=bm25, words=share), ranks=StageRanks(final=len(result.hits) + rank),
            date_ns=row.date_ns, order_label="words", by="words",
            why=NOT_READY_SOURCE if fid in vectored else NOT_READY_HERE,
            words=[w for w, t in zip(query.words, query.terms, strict=True) if t in held]))
    mark_folded(store, added, {best[f][2]: f for f in files}, Folded(sha_of=copies.sha_of),
                scope.filters.where() if scope is not None else None)
    result.hits.extend(added)


@dataclass
class _Read:
    """The lexical top for a words query, kept across widenings: the passages read and their terms.

    Why widen: a fixed top let one huge file crowd out the rest (a server log of 17,216 passages in a library of
    26,876 said the source's words line after line, and `similar` found few other files). The top is asked again
    WIDEN x deeper until `want` files are found, the lexical search has no more, or MAX_WIDENED passages, which
    bounds the texts read and tokenized; a passage already read is not read again. The ranking rule is unchanged."""

    found: list[tuple[int, float]] = field(default_factory=list)  # (passage, BM25) outside the skipped files, in order
    owner: dict[int, int] = field(default_factory=dict)  # passage -> its file
    passages: dict[int, ChunkRow] = field(default_factory=dict)
    terms: dict[int, set[str]] = field(default_factory=dict)

    def search(self, store: Store, query: WordsQuery, limit: int, scope: Optional[FilterScope],
               skip_files: set[int]) -> bool:
        """The top `limit` passages of `query`, read; whether that was all the lexical search holds."""
        text = " ".join(query.words)
        found = scope.lexical(text, limit) if scope is not None else store.search_lexical(text, limit)
        self.owner.update(store.chunk_files([c for c, _ in found if c not in self.owner]))
        kept = [(c, s) for c, s in found if c in self.owner and self.owner[c] not in skip_files]
        self.passages.update(store.chunks([c for c, _ in kept if c not in self.passages]))
        self.found = [(c, s) for c, s in kept if c in self.passages]  # else deleted by a sync since the search
        new = [c for c, _ in self.found if c not in self.terms]
        self.terms.update(zip(new, text_terms([self.passages[c].text for c in new]), strict=True))
        return len(found) < limit

    def best(self, query: WordsQuery) -> dict[int, tuple[float, float, int, set[str]]]:
        """{file: (words score, BM25, passage, its terms)} of the best passage of each file found, in the lexical
        search's order."""
        best: dict[int, tuple[float, float, int, set[str]]] = {}
        for cid, bm25 in self.found:
            held = self.terms[cid]
            share, fid = query.share(held), self.owner[cid]
            if fid not in best or share > best[fid][0]:  # ties: the first in the lexical order
                best[fid] = (share, bm25, cid, held)
        return best
