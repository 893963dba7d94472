"""The snippet of a hit: the window of its passage that best answers the query, and where the query words are.

One function for every front end: the CLI marks the spans with terminal bold, the GUI with text formats over
plain text. A word is marked when it starts with a query word (a prefix typed `word*`, an inflection) or when the
words index matches it for one (store/word_match.py: the index's own stemming, "resident" for "residents"). A window is whole sentences when they fit: the sentence holding the most distinct
query words (ties: more matches, then the earlier one), widened by its neighbours up to `width` characters.
Before this the snippet was the passage's first ~250 characters, which often ended before the answer. A passage
found by meaning that holds no query word opens at the sentence nearest the query in meaning, when the search
found it (`focus`: snippet_focus.py); else at its first sentence.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Callable, Optional

from ...store.cjk import CJK_CLASS, cjk_terms, is_cjk, without_cjk
from ...store.word_match import TOKEN, matched_words
from .contents_pages import LEADERS, collapse_leaders

__all__ = ["Snippet", "query_terms", "term_pattern", "term_spans", "best_snippet", "holds_terms", "sentences",
           "STOP_WORDS"]

# Words too common to be worth marking or choosing a window by; the lexical index still uses them.
STOP_WORDS = frozenset("a about an and are as at be by can do does for from how i in into is it its me my of on onto "
                       "or that the their there this to was what when where which who why with you your".split())
_WORD = re.compile(r"\w+", re.UNICODE)
# A sentence ends at . ! ? (or their CJK forms) followed by space, or at a line break.
_SENTENCE_END = re.compile(r"(?<=[.!?。！？])\s+|\n\s*")
ELLIPSIS = "…"


@dataclass(frozen=True)
class Snippet:
    text: str  # what to show: whitespace collapsed, "…" where the passage was cut and for a run of leader dots
    spans: tuple[tuple[int, int], ...]  # [start, end) of each query word in `text`
    start: int  # the window's character range in the passage
    end: int

    def to_json(self) -> dict[str, Any]:
        return {"text": self.text, "start": self.start, "end": self.end, "marks": [list(s) for s in self.spans]}


def query_terms(query: str) -> list[str]:
    """Lower-case words of the query worth marking, longest first (so 'octopuses' wins over 'octopus'), then
    its CJK character pairs: CJK text has no spaces between words, and the lexical side matches it by pairs."""
    words = {w.lower() for w in _WORD.findall(without_cjk(query)) if len(w) > 1 and w.lower() not in STOP_WORDS}
    return sorted(words, key=lambda w: (-len(w), w)) + cjk_terms(query)


def term_pattern(terms: list[str]) -> re.Pattern[str] | None:
    """Where the non-CJK terms match (CJK ones are found by `term_spans`)."""
    words = [t for t in terms if not is_cjk(t)]
    if not words:
        return None
    # A term also marks its inflections ("bake" marks "baked") but never the middle of another word. CJK
    # characters count as a word's edge ("Pythonのコード" marks "Python" alone), as they do when indexed.
    letter = f"[^\\W{CJK_CLASS}]"
    return re.compile(f"(?<!{letter})(?:" + "|".join(re.escape(t) for t in words) + f"){letter}*", re.IGNORECASE)


def _cjk_pattern(terms: list[str]) -> re.Pattern[str] | None:
    cjk = sorted((t for t in terms if is_cjk(t)), key=len, reverse=True)
    # A lookahead finds every occurrence, overlapping ones too (火山 and 山噴 in 火山噴火).
    return re.compile("(?=(" + "|".join(re.escape(t) for t in cjk) + "))") if cjk else None


# (term_pattern, _cjk_pattern, the words of the text the index matches for the terms): built once per snippet,
# used per sentence
_Patterns = tuple[Optional[re.Pattern[str]], Optional[re.Pattern[str]], frozenset[str]]


def _patterns(terms: list[str], text: str) -> _Patterns:
    """What marks `terms` in `text` (or in any part of it)."""
    stems = frozenset(matched_words((m.group() for m in TOKEN.finditer(text)), terms)) if terms else frozenset()
    return term_pattern(terms), _cjk_pattern(terms), stems


def _found(text: str, pats: _Patterns, lo: int = 0, hi: int | None = None) -> list[tuple[int, int]]:
    """[start, end) of every match of a term in text[lo:hi], in order (they may overlap)."""
    hi = len(text) if hi is None else hi
    out = []
    pat, cjk, stems = pats
    if pat is not None:
        out += [(m.start(), m.end()) for m in pat.finditer(text, lo, hi)]
    if stems:
        out += [(m.start(), m.end()) for m in TOKEN.finditer(text, lo, hi) if m.group().lower() in stems]
    if cjk is not None:
        out += [(m.start(), m.start() + len(m.group(1))) for m in cjk.finditer(text, lo, hi)]
    return sorted(out)


def term_spans(text: str, terms: list[str], pats: Optional[_Patterns] = None) -> tuple[tuple[int, int], ...]:
    """The query words in `text` as [start, end) code-point ranges, overlapping and touching matches merged.
    `pats`: those of a text `text` is cut from (best_snippet's), else made for `text`."""
    merged: list[list[int]] = []
    for a, b in _found(text, _patterns(terms, text) if pats is None else pats):
        if merged and a <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], b)
        else:
            merged.append([a, b])
    return tuple((a, b) for a, b in merged)


def holds_terms(text: str, terms: list[str]) -> bool:
    """Whether any of `terms` is marked anywhere in `text` (the snippet's own test: its words choose the window)."""
    return bool(terms) and bool(_found(text, _patterns(terms, text)))


def sentences(text: str) -> list[tuple[int, int]]:
    """The [start, end) of each sentence of `text`, as the snippet cuts it."""
    return _sentences(text)


def _sentences(text: str) -> list[tuple[int, int]]:
    out, pos = [], 0
    for m in _SENTENCE_END.finditer(text):
        if m.start() > pos:
            out.append((pos, m.start()))
        pos = m.end()
    if pos < len(text):
        out.append((pos, len(text)))
    return out or [(0, len(text))]


def best_snippet(text: str, query_or_terms: str | list[str], width: int = 240,
                 focus: Optional[tuple[int, int]] = None) -> Snippet:
    """The best window of `text` for the query (a string, or terms from `query_terms`), at most ~`width` chars.
    `focus`: the [start, end) of the sentence nearest the query in meaning (Hit.focus), where no query word is in
    `text`; the window then opens there."""
    terms = query_terms(query_or_terms) if isinstance(query_or_terms, str) else list(query_or_terms)
    pats = _patterns(terms, text)
    sents = _sentences(text)
    best, words = 0, 0
    if terms:
        def score(i: int) -> tuple[int, int, int]:
            found = [text[a:b].lower() for a, b in _found(text, pats, sents[i][0], sents[i][1])]
            return (len(set(found)), len(found), -i)

        best = max(range(len(sents)), key=score)
        words = score(best)[0]
    if focus is not None and not words:  # no query word anywhere: the sentence meaning chose
        best = next((i for i, (a, b) in enumerate(sents) if a <= focus[0] < b), best)
    lo = hi = best
    start, end = sents[best]
    size = _shown_size(text)
    if size(start, end) > width:
        start, end = _cut_around(text, start, end, pats, width)
    else:
        # Widen by whole sentences, the following one first (answers tend to follow their cue), while it fits.
        while True:
            grown = False
            if hi + 1 < len(sents) and size(start, sents[hi + 1][1]) <= width:
                hi += 1
                end = sents[hi][1]
                grown = True
            if lo > 0 and size(sents[lo - 1][0], end) <= width:
                lo -= 1
                start = sents[lo][0]
                grown = True
            if not grown:
                break
        # A short sentence before a long one ("Introduction." then a paragraph; a Similar file's row, which has no
        # query word to choose by) showed alone: "Introduction.…" in a 240-character cell. The next sentence's start
        # fills the room left, cut at a word.
        room = width - size(start, end)
        if hi + 1 < len(sents) and room > width // 2:
            nxt = sents[hi + 1][0]
            space = text.rfind(" ", nxt, min(sents[hi + 1][1], nxt + room))
            end = space if space > nxt and size(start, space) <= width else end
    # a contents line's run of leader dots is one " … ": the words, not a window of dots (contents_pages.py)
    shown = collapse_leaders(" ".join(text[start:end].split())).strip()
    if start > 0 and text[:start].strip() and not shown.startswith(ELLIPSIS):
        shown = ELLIPSIS + shown
    if end < len(text) and text[end:].strip() and not shown.endswith(ELLIPSIS):
        shown = shown + ELLIPSIS
    return Snippet(text=shown, spans=term_spans(shown, terms, pats), start=start, end=end)


def _shown_size(text: str) -> Callable[[int, int], int]:
    """How long text[a:b] is as a snippet shows it: where it holds leader dots, with each run of them one " … "
    (a window of a contents page measured in dots showed three headings)."""
    if LEADERS.search(text) is None:
        return lambda a, b: b - a
    return lambda a, b: len(collapse_leaders(" ".join(text[a:b].split())))


def _cut_around(text: str, start: int, end: int, pats: _Patterns, width: int) -> tuple[int, int]:
    """A `width`-character cut of one long sentence, starting a little before its first query word, on word edges."""
    found = _found(text, pats, start, end)
    first = found[0][0] if found else None
    begin = start if first is None else max(start, first - width // 4)
    if begin > start:
        space = text.find(" ", begin)
        begin = space + 1 if 0 <= space < (first if first is not None else end) else begin
    stop = min(end, begin + width)
    if stop < end:
        space = text.rfind(" ", begin, stop)
        stop = space if space > begin + width // 2 else stop
    return begin, stop
