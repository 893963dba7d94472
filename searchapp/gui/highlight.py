"""Query words in passages: which words count, a snippet around the first match, and HTML with them marked.

Pure functions (no Qt) so the results list, the preview and the tests agree on what is highlighted.
"""

from __future__ import annotations

import html
import re

__all__ = ["query_terms", "snippet", "highlight_html", "MARK_STYLE"]

# Words too common to be worth marking; the lexical index still uses them.
_STOP = frozenset("a about an and are as at be by can do does for from how i in into is it its me my of on onto or "
                  "that the their there this to was what when where which who why with you your".split())
MARK_STYLE = "background-color:#ffe680;color:#000;"
_WORD = re.compile(r"\w+", re.UNICODE)


def query_terms(query: str) -> list[str]:
    """Lower-case words of the query worth marking, longest first (so 'octopuses' wins over 'octopus')."""
    words = {w.lower() for w in _WORD.findall(query) if len(w) > 1 and w.lower() not in _STOP}
    return sorted(words, key=lambda w: (-len(w), w))


def _pattern(terms: list[str]) -> re.Pattern | None:
    if not terms:
        return None
    # A term also marks its inflections ("bake" marks "baked") but never the middle of another word.
    return re.compile(r"\b(?:" + "|".join(re.escape(t) for t in terms) + r")\w*", re.IGNORECASE)


def snippet(text: str, terms: list[str], width: int = 240) -> str:
    """About `width` characters of `text` (whitespace collapsed) starting a little before the first query word."""
    flat = " ".join(text.split())
    if len(flat) <= width:
        return flat
    pat = _pattern(terms)
    m = pat.search(flat) if pat else None
    start = 0 if m is None else max(0, m.start() - width // 4)
    if start:
        cut = flat.find(" ", start)
        start = cut + 1 if 0 <= cut < m.start() else start
    out = flat[start:start + width]
    return ("…" if start else "") + out + ("…" if start + width < len(flat) else "")


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
