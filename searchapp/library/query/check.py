"""Queries that cannot be answered meaningfully are told so instead of returning arbitrary hits.

An empty or punctuation-only query has no word to match or embed: every "hit" would be noise. A query of
only common words ("the", "is", "what") in lexical mode matches almost every passage with BM25 ≈ 0.
"""

from __future__ import annotations

import re
from typing import Optional

__all__ = ["EMPTY_QUERY", "is_empty_query", "query_problem", "common_words"]

EMPTY_QUERY = "empty query"
_WORD = re.compile(r"\w+", re.UNICODE)  # the lexical index's notion of a word (store.db)


def is_empty_query(query: str) -> bool:
    """True when the query holds no word character at all ("", "   ", "?!.,;")."""
    return _WORD.search(query or "") is None


def common_words(text: str) -> list[str]:
    """The words of `text` (each once) when it has words and every one is a common word, which the words index
    cannot rank by (it matches nearly every passage); else []."""
    # Here, not at the top: the command line's warm path checks for an empty query without the store's ranking
    # module (and the NumPy it imports).
    from ...store.lexical import STOP_WORDS

    words = list(dict.fromkeys(w.lower() for w in _WORD.findall(text)))
    return words if words and all(w in STOP_WORDS for w in words) else []


def query_problem(query: str, mode: str) -> Optional[str]:
    """Why `query` gets no hits in `mode` (None when it can be searched)."""
    if is_empty_query(query):
        return EMPTY_QUERY
    if mode == "lexical":
        words = common_words(query)
        if words:
            return (f"only common words ({', '.join(words)}): lexical search cannot rank by them; "
                    # one text for the window and the terminal: each names its own way to that mode
                    "add a more specific word, or search by words and meaning (Words + meaning; --mode hybrid)")
    return None
