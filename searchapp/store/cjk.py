"""Lexical search for Chinese, Japanese and Korean text.

FTS5's unicode61 tokenizer splits on spaces and punctuation, which CJK writing does not use between words:
a whole clause becomes one token and no query word matches it. Decision (checked against real Chinese and
Japanese text in tests/test_cjk.py): every CJK run is also indexed as overlapping character bigrams in a
second FTS5 table, and CJK query text is matched as bigrams, the standard approach of CJK search engines.
Bigrams suit Chinese and Japanese words, most of which are two characters long; a trigram tokenizer would
miss them (it needs three characters). Text without CJK characters costs one regex scan and no rows.
"""

from __future__ import annotations

import re
from typing import Optional

__all__ = ["cjk_bigrams", "cjk_query", "CJK_TABLE"]

CJK_TABLE = "chunks_cjk"

# Han (with extension A, compatibility and the supplementary planes), Hiragana, Katakana (with the
# phonetic extensions, half-width forms and the prolonged sound mark), Hangul syllables.
_CJK_RUN = re.compile(
    "[\u3040-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f\uac00-\ud7af"
    "\U00020000-\U0002fa1f]+"
)


def _grams(run: str) -> list[str]:
    return [run] if len(run) == 1 else [run[i:i + 2] for i in range(len(run) - 1)]


def cjk_bigrams(text: Optional[str]) -> str:
    """The CJK runs of `text` as space-separated overlapping bigrams ('' when there are none)."""
    if not text:
        return ""
    return " ".join(g for run in _CJK_RUN.findall(text) for g in _grams(run))


def cjk_query(text: str) -> Optional[str]:
    """An FTS5 MATCH expression for the CJK part of a query: its bigrams OR'ed (BM25 ranks passages that
    share more of them first); a lone character matches bigrams that start with it. None without CJK."""
    terms: list[str] = []
    for run in _CJK_RUN.findall(text):
        if len(run) == 1:
            terms.append(f'"{run}"*')
        else:
            terms += [f'"{g}"' for g in _grams(run)]
    unique = list(dict.fromkeys(terms))
    return " OR ".join(unique) if unique else None
