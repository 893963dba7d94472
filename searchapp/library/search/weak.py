"""A row that shares no word with the query and is far from it in meaning is a weak match, and says so.

A search always fills its k rows: "vitamin type:pdf" in a library whose PDFs never mention vitamins listed
`testPDF_angles.pdf` at match 0.14 and said nothing, and a saved search of a folder showed rows 4-10 at 0.10-0.18
with no word in common (a newcomer on a 2-core laptop). Such rows stay (they are the nearest there are, and
Similar, saved searches and the score inspector read the same list), but each is marked weak, and when every row
is, the search says that nothing is close. Decision 0161.

WEAK_COSINE is the default bi-encoder's (all-MiniLM-L6-v2): passages that answer a query sit above ~0.3 and
unrelated ones at 0.0-0.25. Other models' cosines run higher for unrelated text (bge, e5: 0.3-0.7), so under
them rows are marked weak rarely, never wrongly so.

A passage of fewer than MIN_WORDS words ("Body", "Pricing Details") has too little text for its cosine to say it
answers (few_words.py, decision 0170): sharing no word, it is weak whatever its cosine.

A query the model cannot read is measured by its word pieces (decision 0200): "zzzqqq" sat at cosine 0.29-0.37 to
everything of a newcomer's library ("Haystack Needle Haystack" at match 0.28, no note), above WEAK_COSINE. When no
passage holds any word of the query (no words match at all) and the bi-encoder reads none of them whole (its
tokenizer splits each: a made-up word, a name, a compound of another language), a cosine under UNREAD_COSINE is no
answer either: such rows are weak, and when all are, the note says which words no passage holds. Only marks and a
note: the order is the ranking's. A word in another language is not called nonsense: a passage near it
("Überweisung" and "bitte überweisen", 0.43) stays unmarked, and the note says only what is so.

Similar files (similar.py) always fill their k rows too: `similar` of a note listed unrelated files at similarity
0.157 unmarked, where a search marks such rows. A similar file under WEAK_SIMILARITY (its file similarity, the mean
best cosine over the source's passages) is marked weak the same way (`Hit.weak`: `[weak match]`, `"weak": true`,
greyed in the window); a row found by words has no cosine and is never weak. Decision 0207.
"""

from __future__ import annotations

import re
from typing import Callable, Optional

from ...base.types import Hit
from .few_words import too_few_words

__all__ = ["UNREAD_COSINE", "WEAK_COSINE", "WEAK_NOTICE", "WEAK_SIMILARITY", "is_weak", "mark_weak", "mark_weak_similar",
           "unread_notice", "unread_words"]

WEAK_COSINE = 0.25
RELEVANT = 0.5  # the cross-encoder's probability above which a row is an answer whatever its cosine
# Measured on a newcomer's library (all-MiniLM-L6-v2): made-up words' nearest rows at 0.25-0.37; a German word no
# passage holds at 0.43 to the one passage about it.
UNREAD_COSINE = 0.40
# A similar file's similarity (all-MiniLM-L6-v2) under which it is weak. Measured on a newcomer's files (decision
# 0207): unrelated files at 0.12-0.35 (an invoice and lorem ipsum 0.349, a heat pump quote and a script 0.331),
# related ones from 0.378 (a platypus note and a duck article) up (one text in two formats 0.45-0.86).
WEAK_SIMILARITY = 0.36
_WORD = re.compile(r"[^\W_]+")  # as the words index reads a query (rare_words.py)
WEAK_NOTICE = (f"nothing close: no passage shares a word with the query, and none is near it in meaning (cosine "
               f"under {WEAK_COSINE:.2f}); these are the nearest there are")


def unread_words(text: str, reads_whole: Optional[Callable[[str], bool]]) -> list[str]:
    """The words of `text` when the bi-encoder reads none of them whole (`reads_whole` False for each), else []:
    its cosines then measure only word pieces. The caller asks only where no passage holds any of them."""
    words = list(dict.fromkeys(_WORD.findall(text)))
    if reads_whole is None or not words or any(reads_whole(w) for w in words):
        return []
    return words


def unread_notice(words: list[str]) -> str:
    """The note of a search whose words no passage holds and the model reads only in pieces (decision 0200)."""
    named = ", ".join(f"“{w}”" for w in words)
    return (f"nothing close: no passage holds {named}, and the model reads {'it' if len(words) == 1 else 'them'} "
            f"only in pieces (a name, another language's word, or none): these rows are only loosely related "
            f"(cosine under {UNREAD_COSINE:.2f})")


def mark_weak(hits: list[Hit], unread: list[str]) -> Optional[str]:
    """Each row marked weak or not, and the note when every row is: `unread`, the query's words where no passage
    holds any and the model reads none whole (unread_words), raises the line to UNREAD_COSINE."""
    line = UNREAD_COSINE if unread else WEAK_COSINE
    for h in hits:
        h.weak = is_weak(h, line)
    if not hits or not all(h.weak for h in hits):
        return None
    return unread_notice(unread) if unread else WEAK_NOTICE


def is_weak(hit: Hit, line: float = WEAK_COSINE) -> bool:
    """No shared word (BM25 absent or 0), a cosine under `line` (WEAK_COSINE; UNREAD_COSINE for a query of unread
    words) or a passage of too few words for its cosine to count, and no cross-encoder that says otherwise. A row
    without a cosine (lexical mode, a file with no vector yet) or listed for its name is never weak. The caller asks
    only where the words side ran: in dense mode, or for only common words, no BM25 says no shared word."""
    s = hit.scores
    if hit.named or s.dense is None or (s.lexical or 0.0) > 0.0:
        return False
    if s.dense >= line and not too_few_words(hit.text):
        return False
    return s.rerank is None or s.rerank < RELEVANT


def mark_weak_similar(hits: list[Hit]) -> None:
    """Each similar file (similar.py) marked weak when its file similarity is under WEAK_SIMILARITY; one without a
    cosine (found by words while meaning fills) never is."""
    for h in hits:
        h.weak = h.scores.dense is not None and h.scores.dense < WEAK_SIMILARITY
