"""Query words in passages: which words count (library.snippet, shared with the CLI: a word starting with a query
word, or one the words index matched by its stem, "resident" for "residents"), the best-matching snippet, and
HTML with them marked (the preview; every file text is escaped).

Pure functions (no Qt) so the results list, the preview and the tests agree on what is highlighted.
"""

from __future__ import annotations

import html
from typing import Iterable, Optional

from ..library.search.snippet import best_snippet, query_terms, term_spans

__all__ = ["query_terms", "snippet", "highlight_html", "utf16_spans", "MARK_STYLE"]

MARK_STYLE = "background-color:#ffe680;color:#000;"


def snippet(text: str, terms: list[str], width: int = 240, focus: Optional[tuple[int, int]] = None) -> str:
    """The window of `text` that best matches the query words (the CLI shows the same one); `focus`: Hit.focus."""
    return best_snippet(text, terms, width, focus).text


def highlight_html(text: str, terms: list[str], style: str = MARK_STYLE) -> str:
    """`text` HTML-escaped with every query word wrapped in a styled <span>."""
    out, pos = [], 0
    for a, b in term_spans(text, terms):
        out.append(html.escape(text[pos:a]))
        out.append(f'<span style="{style}">{html.escape(text[a:b])}</span>')
        pos = b
    out.append(html.escape(text[pos:]))
    return "".join(out)


def utf16_spans(text: str, spans: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    """Code-point ranges of `text` (Python's offsets, as library.snippet gives them) as UTF-16 code-unit
    ranges (Qt's: QString, QTextCursor positions). A character beyond U+FFFF (an emoji, 𝒳, a rare Han
    character) is two units in Qt, so without this every mark after one lands a unit early."""
    spans = list(spans)
    if text.isascii() or all(ord(c) <= 0xFFFF for c in text):
        return spans
    units = [0]  # units[i]: UTF-16 length of text[:i]
    for c in text:
        units.append(units[-1] + (2 if ord(c) > 0xFFFF else 1))
    return [(units[a], units[b]) for a, b in spans]
