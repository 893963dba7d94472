"""Lexical search for Chinese, Japanese and Korean text.

FTS5's unicode61 tokenizer splits on spaces and punctuation, which CJK writing does not use between words:
a whole clause becomes one token and no query word matches it. Decision (checked against real Chinese and
Japanese text in tests/integration/library/test_cjk.py): the CJK characters of every passage are also indexed one character per
token in a second FTS5 table, and CJK query text is matched as overlapping two-character phrases ("天 气"
matches 天 directly followed by 气), OR'ed so BM25 ranks passages sharing more of them first. That is
bigram matching, the usual approach of CJK search engines, and suits Chinese and Japanese words, most of
which are two characters long (a trigram tokenizer would miss them). Splitting into characters is a C-level
join, 3.5x cheaper than building bigrams in Python (tests/benchmarks/bench_cjk_fts.py); text without CJK
characters costs one regex scan and no row.
"""

from __future__ import annotations

import re
from functools import cache
from itertools import pairwise
from typing import Optional

__all__ = ["cjk_chars", "cjk_query", "cjk_terms", "without_cjk", "is_cjk", "CJK_CLASS", "CJK_TABLE"]

CJK_TABLE = "chunks_cjk"

# Han (with extension A, compatibility and the supplementary planes), Hiragana, Katakana (with the
# phonetic extensions, half-width forms and the prolonged sound mark), Hangul syllables.
CJK_CLASS = ("\u3040-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f\uac00-\ud7af"
             "\U00020000-\U0002fa1f")  # the inside of a regex character class
_RUN_BREAK = " 0 "  # a token between runs, so a phrase never matches across punctuation or other text


@cache
def _cjk_run() -> re.Pattern[str]:
    """The pattern of a CJK run, compiled on first need (~1 ms: a command whose text is all ASCII never needs it)."""
    return re.compile(f"[{CJK_CLASS}]+")


def cjk_chars(text: Optional[str]) -> str:
    """The CJK characters of `text` as space-separated tokens ('' when there are none)."""
    if not text or text.isascii():  # most passages: one C-speed look instead of the regex (no CJK in ASCII)
        return ""
    return _RUN_BREAK.join([" ".join(run) for run in _cjk_run().findall(text)])


def cjk_query(text: str) -> Optional[str]:
    """An FTS5 MATCH expression for the CJK part of a query: each pair of adjacent characters as a phrase
    (a lone character as itself), OR'ed. None when the query has no CJK character."""
    terms = [f'"{" ".join(t)}"' for t in cjk_terms(text)]
    return " OR ".join(terms) if terms else None


def cjk_terms(text: str) -> list[str]:
    """What the CJK part of `text` is matched by: each pair of adjacent characters of a run (a lone character
    as itself), without repeats, in order. The snippet marks these too (library.snippet)."""
    terms: list[str] = []
    if text.isascii():  # no CJK in ASCII
        return terms
    for run in _cjk_run().findall(text):
        terms += [run] if len(run) == 1 else [a + b for a, b in pairwise(run)]
    return list(dict.fromkeys(terms))


def without_cjk(text: str) -> str:
    """`text` with its CJK runs replaced by spaces (what is left is matched word by word)."""
    return text if text.isascii() else _cjk_run().sub(" ", text)


def is_cjk(term: str) -> bool:
    return bool(term) and not term.isascii() and _cjk_run().fullmatch(term) is not None
