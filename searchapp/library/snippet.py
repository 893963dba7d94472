"""The snippet of a hit: the window of its passage that best answers the query, and where the query words are.

One pure function for every front end: the CLI marks the spans with terminal bold, the GUI with text
formats over plain text. A window is whole sentences when they fit: the sentence holding the most distinct
query words (ties: more matches, then the earlier one), widened by its neighbours up to `width` characters.
Before this the snippet was the passage's first ~250 characters, which often ended before the answer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["Snippet", "query_terms", "term_pattern", "best_snippet", "STOP_WORDS"]

# Words too common to be worth marking or choosing a window by; the lexical index still uses them.
STOP_WORDS = frozenset("a about an and are as at be by can do does for from how i in into is it its me my of on onto "
                       "or that the their there this to was what when where which who why with you your".split())
_WORD = re.compile(r"\w+", re.UNICODE)
# A sentence ends at . ! ? (or their CJK forms) followed by space, or at a line break.
_SENTENCE_END = re.compile(r"(?<=[.!?。！？])\s+|\n\s*")
ELLIPSIS = "…"


@dataclass(frozen=True)
class Snippet:
    text: str  # what to show: whitespace collapsed, "…" where the passage was cut
    spans: tuple[tuple[int, int], ...]  # [start, end) of each query word in `text`
    start: int  # the window's character range in the passage
    end: int

    def to_json(self) -> dict:
        return {"text": self.text, "start": self.start, "end": self.end, "marks": [list(s) for s in self.spans]}


def query_terms(query: str) -> list[str]:
    """Lower-case words of the query worth marking, longest first (so 'octopuses' wins over 'octopus')."""
    words = {w.lower() for w in _WORD.findall(query) if len(w) > 1 and w.lower() not in STOP_WORDS}
    return sorted(words, key=lambda w: (-len(w), w))


def term_pattern(terms: list[str]) -> re.Pattern | None:
    if not terms:
        return None
    # A term also marks its inflections ("bake" marks "baked") but never the middle of another word.
    return re.compile(r"\b(?:" + "|".join(re.escape(t) for t in terms) + r")\w*", re.IGNORECASE)


def _sentences(text: str) -> list[tuple[int, int]]:
    out, pos = [], 0
    for m in _SENTENCE_END.finditer(text):
        if m.start() > pos:
            out.append((pos, m.start()))
        pos = m.end()
    if pos < len(text):
        out.append((pos, len(text)))
    return out or [(0, len(text))]


def best_snippet(text: str, query_or_terms: str | list[str], width: int = 240) -> Snippet:
    """The best window of `text` for the query (a string, or terms from `query_terms`), at most ~`width` chars."""
    terms = query_terms(query_or_terms) if isinstance(query_or_terms, str) else list(query_or_terms)
    pat = term_pattern(terms)
    sents = _sentences(text)
    best = 0
    if pat is not None:
        def score(i: int) -> tuple[int, int, int]:
            found = [m.group(0).lower() for m in pat.finditer(text, sents[i][0], sents[i][1])]
            return (len({f for f in found}), len(found), -i)

        best = max(range(len(sents)), key=score)
    lo = hi = best
    start, end = sents[best]
    if end - start > width:
        start, end = _cut_around(text, start, end, pat, width)
    else:
        # Widen by whole sentences, the following one first (answers tend to follow their cue), while it fits.
        while True:
            grown = False
            if hi + 1 < len(sents) and sents[hi + 1][1] - start <= width:
                hi += 1
                end = sents[hi][1]
                grown = True
            if lo > 0 and end - sents[lo - 1][0] <= width:
                lo -= 1
                start = sents[lo][0]
                grown = True
            if not grown:
                break
    shown = " ".join(text[start:end].split())
    if start > 0 and text[:start].strip():
        shown = ELLIPSIS + shown
    if end < len(text) and text[end:].strip():
        shown = shown + ELLIPSIS
    spans = tuple((m.start(), m.end()) for m in pat.finditer(shown)) if pat is not None else ()
    return Snippet(text=shown, spans=spans, start=start, end=end)


def _cut_around(text: str, start: int, end: int, pat: re.Pattern | None, width: int) -> tuple[int, int]:
    """A `width`-character cut of one long sentence, starting a little before its first query word, on word edges."""
    m = pat.search(text, start, end) if pat is not None else None
    begin = start if m is None else max(start, m.start() - width // 4)
    if begin > start:
        space = text.find(" ", begin)
        begin = space + 1 if 0 <= space < (m.start() if m else end) else begin
    stop = min(end, begin + width)
    if stop < end:
        space = text.rfind(" ", begin, stop)
        stop = space if space > begin + width // 2 else stop
    return begin, stop
