"""Query words in passages: which words count (library.snippet, shared with the CLI), the best-matching
snippet, and HTML with them marked (the preview; every file text is escaped).

Pure functions (no Qt) so the results list, the preview and the tests agree on what is highlighted.
"""

from __future__ import annotations

import html

from ..library.snippet import best_snippet, query_terms, term_pattern

__all__ = ["query_terms", "snippet", "highlight_html", "MARK_STYLE"]

MARK_STYLE = "background-color:#ffe680;color:#000;"
_pattern = term_pattern


def snippet(text: str, terms: list[str], width: int = 240) -> str:
    """The window of `text` that best matches the query words (the CLI shows the same one)."""
    return best_snippet(text, terms, width).text


def highlight_html(text: str, terms: list[str], style: str = MARK_STYLE) -> str:
    """`text` HTML-escaped with every query word wrapped in a styled <span>."""
    pat = _pattern(terms)
    if pat is None:
        return html.escape(text)
    out, pos = [], 0
    for m in pat.finditer(text):
        out.append(html.escape(text[pos:m.start()]))
        out.append(f'<span style="{style}">{html.escape(m.group(0))}</span>')
        pos = m.end()
    out.append(html.escape(text[pos:]))
    return "".join(out)
