"""Plain data passed between layers."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

__all__ = ["PageSpan", "Document", "ChunkSpan", "StageScores", "StageRanks", "Hit", "SkippedFile"]


@dataclass(frozen=True)
class PageSpan:
    """Characters [start, end) of Document.text come from page `page` (1-based)."""

    page: int
    start: int
    end: int


@dataclass(frozen=True)
class Document:
    """What an extractor returns: the visible text of a file, with page boundaries when the format has pages."""

    text: str
    pages: tuple[PageSpan, ...] = ()
    kind: str = ""  # extractor name, e.g. "pdf"
    notes: tuple[str, ...] = ()  # what was left out, e.g. "text truncated at 10,000,000 characters"

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
    status: str = "skipped"  # "skipped" (by policy: size, binary, unsupported) or "failed" (an error)


@dataclass
class StageScores:
    dense: Optional[float] = None  # bi-encoder cosine
    lexical: Optional[float] = None  # BM25 (higher is better)
    fused: Optional[float] = None  # reciprocal rank fusion score
    rerank_logit: Optional[float] = None
    rerank: Optional[float] = None  # sigmoid(rerank_logit)


@dataclass
class StageRanks:
    dense: Optional[int] = None  # 1-based; None when the retriever did not return the chunk
    lexical: Optional[int] = None
    fused: Optional[int] = None
    rerank: Optional[int] = None
    final: Optional[int] = None


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
    available: bool = True  # False when the file cannot be read now (e.g. its folder is missing)

    @property
    def score(self) -> float:
        """The score the final order was decided by."""
        s = self.scores
        for v in (s.rerank, s.fused, s.dense, s.lexical):
            if v is not None:
                return v
        return 0.0

    def to_json(self) -> dict:
        s, r = self.scores, self.ranks
        return {
            "path": self.path,
            "page": self.page,
            "start": self.start,
            "end": self.end,
            "text": self.text,
            "scores": {"dense": s.dense, "lexical": s.lexical, "fused": s.fused, "rerank_logit": s.rerank_logit, "rerank": s.rerank},
            "ranks": {"dense": r.dense, "lexical": r.lexical, "fused": r.fused, "rerank": r.rerank, "final": r.final},
            "available": self.available,
        }
