"""How long a query may be: at most MAX_QUERY_CHARS characters and MAX_QUERY_WORDS words; the rest is dropped
with a one-line note, as operators past their cap are (syntax.py).

Why: nothing else bounded it. A 3 MB line of 400k words through `search -` took 100 s (100k words 20 s): every
word is a term of the lexical query and of the marks, while the bi-encoder reads only its first few hundred
tokens anyway. 1,000 words is several pasted paragraphs, more than any question; 10,000 characters holds them
(6-7 characters a word in English) and bounds a text without spaces (CJK, a pasted hash) the word count misses.
"""

from __future__ import annotations

import re
from typing import Optional

__all__ = ["MAX_QUERY_CHARS", "MAX_QUERY_WORDS", "capped_query"]

MAX_QUERY_CHARS = 10_000
MAX_QUERY_WORDS = 1_000
_WORD = re.compile(r"\S+")
_LAST_WORD = re.compile(r"\s\S+$")


def capped_query(text: str) -> tuple[str, Optional[str]]:
    """(`text` cut to the caps at a word's end, the note saying so), or (`text`, None) when it fits."""
    cut = text
    if len(cut) > MAX_QUERY_CHARS:
        cut = cut[:MAX_QUERY_CHARS]
        last = _LAST_WORD.search(cut) if not text[MAX_QUERY_CHARS].isspace() else None
        if last is not None:  # a word cut in two is left out (unless it is the only one)
            cut = cut[:last.start()]
    words = 0
    for m in _WORD.finditer(cut):
        if words == MAX_QUERY_WORDS:
            cut = cut[:m.start()]
            break
        words += 1
    if cut is text:
        return text, None
    cut = cut.rstrip()
    return cut, (f"the query is longer than {MAX_QUERY_WORDS:,} words or {MAX_QUERY_CHARS:,} characters: what follows "
                 f"word {words:,} (character {len(cut):,}) is ignored")
