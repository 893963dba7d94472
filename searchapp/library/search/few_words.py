"""A passage of fewer than MIN_WORDS words has too little text for its meaning to be measured (decision 0170).

A newcomer's searches listed near-empty passages high, unmarked: `Body` (an RTF's only text) and `a` (a PDF's) 3rd
and 5th for "my CV" at cosine 0.31 and 0.30, `Pricing Details` (a spreadsheet's only cell) 6th for "how much did the
heat pump cost" at 0.31, `Duck: cat:` (an RTF's image captions) 1st for "how often does the cat need worming" once
the vet note was gone. The bi-encoder puts a word or two near any query that shares their topic, and such a
passage's cosine is all topic: it cannot say an answer. So in a hybrid search a passage of fewer than MIN_WORDS words
is ranked by its words alone (its meaning side counts 0), and a cosine is no reason to call it other than weak
(weak.py): one that shares no word with the query is weak.

A word is a run of two letters or more (`a`, `I`, digits, `|` and dates are none), or one CJK character (CJK
writing puts no spaces between words; one character is near a word's meaning).
"""

from __future__ import annotations

import re
from functools import cache

from ...store.cjk import CJK_CLASS

__all__ = ["MIN_WORDS", "too_few_words", "word_count"]

MIN_WORDS = 3  # "Pricing Details", "Duck: cat:", "Body", "Sheet1" have fewer; "Droste Driste cacao" has as many


@cache
def _words() -> re.Pattern[str]:
    return re.compile(f"[{CJK_CLASS}]|[^\\W\\d_{CJK_CLASS}]{{2,}}")


def word_count(text: str, most: int = MIN_WORDS) -> int:
    """The words of `text`, counted up to `most` (a long passage is read no further than that)."""
    n = 0
    for _ in _words().finditer(text):
        n += 1
        if n >= most:
            break
    return n


def too_few_words(text: str) -> bool:
    """Whether `text` holds fewer than MIN_WORDS words: too little for its meaning to be measured."""
    return word_count(text) < MIN_WORDS
