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
"""

from __future__ import annotations

from ...base.types import Hit
from .few_words import too_few_words

__all__ = ["WEAK_COSINE", "WEAK_NOTICE", "is_weak"]

WEAK_COSINE = 0.25
RELEVANT = 0.5  # the cross-encoder's probability above which a row is an answer whatever its cosine
WEAK_NOTICE = (f"nothing close: no passage shares a word with the query, and none is near it in meaning (cosine "
               f"under {WEAK_COSINE:.2f}); these are the nearest there are")


def is_weak(hit: Hit) -> bool:
    """No shared word (BM25 absent or 0), a cosine under WEAK_COSINE or a passage of too few words for its cosine to
    count, and no cross-encoder that says otherwise. A row without a cosine (lexical mode, a file with no vector
    yet) or listed for its name is never weak. The caller asks only where the words side ran: in dense mode, or for
    only common words, no BM25 says no shared word."""
    s = hit.scores
    if hit.named or s.dense is None or (s.lexical or 0.0) > 0.0:
        return False
    if s.dense >= WEAK_COSINE and not too_few_words(hit.text):
        return False
    return s.rerank is None or s.rerank < RELEVANT
