"""A row of Similar files (similar.py): a file found by meaning, or, while meaning fills, by its words
(similar_words.py, decision 0159)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional

from ...base.types import Hit

__all__ = ["SimilarHit", "NOT_READY_HERE", "NOT_READY_SOURCE"]

# Why a row was found by words (`SimilarHit.why`): the meaning side could not compare it
NOT_READY_HERE = "meaning not ready for this file"  # it has no vector yet
NOT_READY_SOURCE = "meaning not ready for the source"  # the source has none, and none could be made now


@dataclass
class SimilarHit(Hit):
    """A similar file: `text`/`page` are its best-matching passage; `source_*` the source passage it matched.

    `by`: "meaning" (scores.dense is the file similarity, a cosine mean) or "words" (found by the source's
    distinctive words; scores.words is the weighted share of them its passage holds, labelled "words", and
    scores.lexical its BM25: no cosine; similar_words.py)."""

    source_text: str = ""
    source_page: Optional[int] = None
    best_pair: float = 0.0  # cosine of the best passage pair
    by: str = "meaning"
    why: str = ""  # by words: why meaning did not compare it
    words: list[str] = field(default_factory=list)  # by words: the source's distinctive words its passage holds

    def to_json(self) -> dict[str, Any]:
        out = super().to_json()
        out["by"] = self.by
        if self.by == "words":
            out["similarity"] = None  # no meaning similarity: the score is the words' (score_label "words")
            out["source"] = None
            out["why"] = self.why
            out["words"] = list(self.words)
            return out
        out["similarity"] = self.scores.dense
        out["source"] = {"page": self.source_page, "text": self.source_text, "similarity": self.best_pair}
        return out
