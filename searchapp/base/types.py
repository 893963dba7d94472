"""Plain data passed between layers."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Optional

from .member_paths import display_path, member_fields

__all__ = ["PageSpan", "Document", "ChunkSpan", "StageScores", "StageRanks", "Hit", "SkippedFile"]


@dataclass(frozen=True)
class PageSpan:
    """Characters [start, end) of Document.text come from page `page` (1-based). `layer_end`: where the page's own
    text ends, when what follows it up to `end` was written over the page (a PDF's notes and form values): OCR's
    decision counts the page's own text alone, and OCR's text takes its place alone. None: all of it is."""

    page: int
    start: int
    end: int
    layer_end: Optional[int] = None

    @property
    def own_end(self) -> int:
        """The end of the page's own text (`layer_end`, else `end`)."""
        return self.end if self.layer_end is None else self.layer_end

    def moved(self, offset: Callable[[int], int]) -> "PageSpan":
        """This span with each of its offsets mapped by `offset` (text cut or shortened before or inside it)."""
        layer_end = None if self.layer_end is None else offset(self.layer_end)
        return PageSpan(self.page, offset(self.start), offset(self.end), layer_end)


@dataclass(frozen=True)
class Document:
    """What an extractor returns: the visible text of a file, with page boundaries when the format has pages."""

    text: str
    pages: tuple[PageSpan, ...] = ()
    kind: str = ""  # extractor name, e.g. "pdf"
    notes: tuple[str, ...] = ()  # what was left out, e.g. "text truncated at 10,000,000 characters"
    title: str = ""  # the file's own title (HTML <title>, first Markdown/RST heading, PDF/DOCX/ODT/EPUB metadata)
    # The text's own date in ns (a message's Date): the entry's date for filters and sorting, else its file's mtime
    date_ns: Optional[int] = None

    def page_at(self, offset: int) -> Optional[int]:
        for p in self.pages:
            if p.start <= offset < p.end:
                return p.page
        return self.pages[-1].page if self.pages and offset >= self.pages[-1].start else None


@dataclass(frozen=True)
class ChunkSpan:
    """One passage: text == document.text[start:end]; `page` is the page its start falls on."""

    ordinal: int
    start: int
    end: int
    text: str
    page: Optional[int] = None


@dataclass(frozen=True)
class SkippedFile:
    path: str
    reason: str
    # "skipped" (by policy: size, binary, unsupported), "failed" (an error) or "excluded" (a secret's name)
    status: str = "skipped"


@dataclass
class StageScores:
    dense: Optional[float] = None  # bi-encoder cosine
    lexical: Optional[float] = None  # BM25 (higher is better)
    fused: Optional[float] = None  # dense + lexical fused (search.fusion): convex by default, else RRF
    rerank_logit: Optional[float] = None
    rerank: Optional[float] = None  # sigmoid(rerank_logit)
    # hybrid: the words' share, BM25 / the best BM25 among the query's candidates (0..1, 1 = its best word match);
    # what a row without meaning yet shows, labelled "words" (see Hit.shown_score)
    words: Optional[float] = None


@dataclass
class StageRanks:
    dense: Optional[int] = None  # 1-based; None when the retriever did not return the chunk
    lexical: Optional[int] = None
    fused: Optional[int] = None
    rerank: Optional[int] = None
    final: Optional[int] = None


@dataclass
class NearCopy:
    """Another file folded into a search row as a near copy of the row's file (library/search/near_copies.py)."""

    path: str  # its stored path
    similarity: float  # the share of the two texts' 5-word sequences both hold (Jaccard, 0..1)
    # its file's id in the store searched: its own exact copies, folded before it was, are listed too (folding.py)
    file_id: Optional[int] = field(default=None, repr=False, compare=False)

    def to_json(self) -> dict[str, Any]:
        return {**member_fields(self.path), "key": self.path, "similarity": self.similarity,
                "why": f"near copy: {round(100 * self.similarity)}% of the two texts' word sequences are shared"}


@dataclass
class Hit:
    """A search result that keeps every stage's score and rank; no stage overwrites another."""

    chunk_id: int
    path: str
    page: Optional[int]
    start: int
    end: int
    text: str
    scores: StageScores = field(default_factory=StageScores)
    ranks: StageRanks = field(default_factory=StageRanks)
    more: list["Hit"] = field(default_factory=list)  # results by file: the file's other matching passages
    repeats: list[tuple[int, int, Optional[int]]] = field(default_factory=list)  # (start, end, page): same text again
    available: bool = True  # False when the file cannot be read now (e.g. its folder is missing)
    unavailable: str = ""  # why not, in words: "file or folder missing", "permission denied"
    ocr: bool = False  # this passage was recognised by OCR (an image, or a PDF page with no usable text layer)
    order_label: Optional[str] = None  # what ordered the list: relevance | match | words | similarity | bm25 (search sets it)
    date_ns: Optional[int] = None  # the file's date (a mail's own, else its mtime), shown beside the hit
    common_to: int = 0  # results by file: the passage is text repeated in this many files (one row stands for them)
    copies: list[str] = field(default_factory=list)  # results by file: exact copies of this file (same content)
    copies_unavailable: dict[str, str] = field(default_factory=dict)  # those of `copies` that cannot be read now: why
    # results by file: other files whose text is almost all this one's (an export, an edited copy), best first
    near_copies: list[NearCopy] = field(default_factory=list)
    new: bool = False  # a saved search's run: the file was not in its list when it was last opened
    named: bool = False  # listed first for its name: no passage holds the query's words (search/named.py)
    weak: bool = False  # no shared word and far in meaning: the nearest there is, not an answer (search/weak.py)
    # holds a query word the model does not know and few passages hold: fused with at least the meaning its words
    # earn (search/rare_words.py, decision 0162)
    rare: bool = False
    # holds the whole of a long query word for word: fused with at least the best cosine among the candidates
    # (search/exact_phrase.py, decision 0169)
    phrase: bool = False
    # the [start, end) of the passage's sentence nearest the query in meaning, where the passage holds no query word:
    # its snippet opens there (search/snippet_focus.py, decision 0169); None: the words choose
    focus: Optional[tuple[int, int]] = None
    # A shared library's: the machine that indexed the file and its path there (`path` is this desktop's, by
    # library.path_map); None on a desktop library.
    machine: Optional[str] = None
    indexed_path: Optional[str] = None

    def indexed_elsewhere(self, here: Optional[str]) -> Optional[str]:
        """The machine that indexed this file when it is not `here` (a shared library's machine answering, from
        SearchResult.here), else None: what the CLI's list and the window mark as "desk-a's"."""
        return self.machine if here is not None and self.machine not in (None, here) else None

    @property
    def score(self) -> float:
        """The score the final order was decided by."""
        s = self.scores
        for v in (s.rerank, s.fused, s.dense, s.lexical):
            if v is not None:
                return v
        return 0.0

    @property
    def shown_score(self) -> tuple[float, str]:
        """(value, label): the score that ordered the list: the reranker's probability ("relevance") when
        reranked; in hybrid the fused score ("match", 0..1: cosine and BM25 share of the best, weighted; its parts
        are in `scores`), or, for a file with no vector yet, its words' share alone ("words", 0..1: one meaning
        whatever part of the library has vectors, decision 0109); in dense the cosine ("similarity"); in lexical
        BM25."""
        s = self.scores
        if self.order_label == "words" and s.words is not None:
            return s.words, "words"
        if self.order_label == "match" and s.fused is not None:
            return s.fused, "match"
        if s.rerank is not None:
            return s.rerank, "relevance"
        if s.dense is not None:
            return s.dense, "similarity"
        return (s.lexical or 0.0), "bm25"

    @property
    def scored(self) -> bool:
        """False for a row no stage scored: a listing's (a query of only fields, type:md: newest first) and a file
        listed first for its name (search/named.py)."""
        s = self.scores
        return any(v is not None for v in (s.dense, s.lexical, s.fused, s.rerank))

    def to_json(self) -> dict[str, Any]:
        value: Optional[float]
        value, label = self.shown_score
        if self.named or not self.scored:  # no score, as the text and the window show none: not "bm25 0.0"
            value, label = None, "named" if self.named else "newest"
        return {**self._passage_json(), "score": value, "score_label": label, "named": self.named, "weak": self.weak,
                "rare_word": self.rare, "exact_phrase": self.phrase,
                "focus": list(self.focus) if self.focus is not None else None,
                "ocr": self.ocr, "more": [m._passage_json() for m in self.more], "common_to": self.common_to,
                # the date the window's Date column shows (a message's own): seconds since the epoch, as explain's
                "date": self.date_ns / 1e9 if self.date_ns is not None else None,
                "copies": [display_path(p) for p in self.copies],  # as `path` shows a path
                "copies_unavailable": {display_path(p): why for p, why in self.copies_unavailable.items()},
                "near_copies": [n.to_json() for n in self.near_copies]}

    def _passage_json(self) -> dict[str, Any]:
        s, r = self.scores, self.ranks
        return {
            **member_fields(self.path),  # path: `archive.zip › folder/file.pdf` for a member
            "key": self.path,
            "page": self.page,
            "start": self.start,
            "end": self.end,
            "text": self.text,
            "scores": {"dense": s.dense, "lexical": s.lexical, "fused": s.fused, "rerank_logit": s.rerank_logit, "rerank": s.rerank,
                       "words": s.words},
            "ranks": {"dense": r.dense, "lexical": r.lexical, "fused": r.fused, "rerank": r.rerank, "final": r.final},
            "repeats": [{"start": a, "end": b, "page": p} for a, b, p in self.repeats],
            "available": self.available,
            **({"machine": self.machine, "indexed_path": self.indexed_path} if self.machine is not None else {}),
        }
