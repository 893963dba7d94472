"""The sentence a snippet opens at when meaning found the passage (decision 0169).

A snippet picks its window by the query's words (snippet.py). A passage found by meaning alone often holds none of
them, and its snippet was its first sentence, whatever the passage said further on ("things to put on my CV"
showing a résumé's address line). Where a top hit's passage holds no query word and is longer than a snippet, its
sentences are encoded by the query path and the one nearest the query in meaning is the hit's `focus`; the snippet
opens there. At most FOCUS_BUDGET sentences a search, the top hits' first: each is a short query's encoding
(~5-15 ms on a 2-core CPU), and most hits hold a query word and need none (in hybrid their BM25 says so at no cost).
"""

from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from ...base.types import Hit
from .snippet import holds_terms, query_terms, sentences

__all__ = ["FOCUS_BUDGET", "meaning_focus"]

FOCUS_BUDGET = 24  # sentences encoded a search, at most
SNIPPET_WIDTH = 240  # a passage this short is shown whole: no sentence to choose


def meaning_focus(hits: Sequence[Hit], query: str, qvec: np.ndarray, encode: Callable[[str], np.ndarray],
                  budget: int = FOCUS_BUDGET) -> int:
    """Set `focus` on each of `hits` (best first) that meaning scored, that holds no word of `query` and that has
    sentences to choose from, while the budget lasts; returns how many sentences were encoded."""
    terms = query_terms(query)
    q = np.asarray(qvec, dtype=np.float32).reshape(-1)
    spent = 0
    for h in hits:
        if spent >= budget:
            break
        if h.scores.dense is None or len(h.text) <= SNIPPET_WIDTH:
            continue
        # hybrid: its BM25 says whether the words index finds a query word in it (free); dense: the snippet's test
        if (h.scores.lexical > 0) if h.scores.lexical is not None else holds_terms(h.text, terms):
            continue
        sents = [(a, b) for a, b in sentences(h.text) if h.text[a:b].strip()][: budget - spent]
        if len(sents) < 2:
            continue
        cosines = [float(np.asarray(encode(h.text[a:b]), dtype=np.float32).reshape(-1) @ q) for a, b in sents]
        spent += len(sents)
        h.focus = sents[int(np.argmax(cosines))]
    return spent
