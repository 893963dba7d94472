"""How much a query's words can say: the weight convex fusion gives its words share (decision 0169).

Convex fusion divides each candidate's BM25 by the best BM25 among the query's candidates, so the best word match
always has a words share of 1.0, whatever the words are. Where the only words the library holds of a query are
common ones ("things to put on my CV": "things" and "put"; "the report" in a library of reports), their BM25 scores
are all small and nearly equal (a common word's IDF is near 0), yet dividing by the best makes them 1.0, 0.9, 0.8:
a lone common word moved files by up to 1 − w of the fused score, more than the meaning side's gaps.

BM25's own scale says how much a match weighs: a word held by one passage in a hundred has IDF ln(99) ≈ 4.6, one
held by half the passages ≈ 0. So the words share is weighed by the query's IDF mass the library holds against that
of one informative word:

    words weight = min(1, Σ idf(t) over the query's terms the library holds / idf(a term REFERENCE_SHARE of the
                   passages hold, at least REFERENCE_MIN))

and a candidate's words share is weight × BM25 / best BM25. A query holding one word of at most REFERENCE_SHARE of
the passages weighs 1 (the rule before), and so does a word at most REFERENCE_MIN passages hold in a small library (a word
of one file of twelve, held by its three passages); a query whose words the library holds are all common weighs
less. The
weight reads the words index only (its passage count and each query term's), so a words share still does not
change as meaning fills (decision 0109).
"""

from __future__ import annotations

import re
from typing import Sequence

from ...store import Store
from ...store.bm25_postings import bm25_idf
from ...store.cjk import cjk_query
from ...store.lexical import STOP_WORDS
from ...store.word_stats import word_terms

__all__ = ["REFERENCE_SHARE", "REFERENCE_MIN", "reference_idf", "words_weight"]

# The share of the passages a word may hold and still count fully on its own: one in a hundred.
REFERENCE_SHARE = 0.01
# ... and the passages it may hold whatever the library's size: a few passages are "few" (rare_words.RARE_DF's count)
REFERENCE_MIN = 3
_WORD = re.compile(r"\w+", re.UNICODE)  # the words a lexical query is made of (store/lexical_queries.py: fts_query)


def reference_idf(n: int) -> float:
    """The IDF a query's words must reach together to count fully in a library of `n` passages."""
    return bm25_idf(n, max(REFERENCE_MIN, round(n * REFERENCE_SHARE)))


def words_weight(store: Store, text: str, prefixes: Sequence[str] = ()) -> float:
    """The weight of `text`'s words share in convex fusion, 0..1 (1: the words count as they did before, a share of
    the best BM25). 1 where it cannot be told: a word typed `word*`, a word the words index splits into several
    terms or a CJK one, an index that cannot count its words (word_counts: None)."""
    if prefixes or cjk_query(text) is not None:
        return 1.0
    words = list(dict.fromkeys(w.lower() for w in _WORD.findall(text)))
    kept = [w for w in words if w not in STOP_WORDS] or words
    terms = word_terms(kept)
    if not terms or any(t is None for t in terms):
        return 1.0
    counted = store.word_counts([t for t in terms if t is not None])
    if counted is None:
        return 1.0
    n, counts = counted
    reference = reference_idf(n)
    if n <= 0 or reference <= 1e-6:  # a library of a few passages: no word can be told common
        return 1.0
    mass = sum(bm25_idf(n, df) for df in counts.values() if df >= 1)  # the words index's own IDF
    return min(1.0, mass / reference)
