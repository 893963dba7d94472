"""Text repeated across many files (a licence footer, a mail signature, a disclaimer, a page header).

Such text matches a query in every file that carries it, so before this a query sharing its words got one row per
file ("Copyright: this document has been placed in the public domain" nine times above a book on copyright).

Found among the candidates of one search, never at sync time: each candidate passage is cut into segments
(sentences and lines, compared by their lower-cased words); a segment held by at least MIN_FILES candidate files
is common. A passage is *common* for this query when a query word falls in its common segments and none in the
rest of it (or it has no rest): its match is the repeated text's, not the file's. The pipeline then
(pipeline.py):
- ranks a file by its other passages when it has any (its best non-common passage is shown);
- keeps one row for the files matched only through the same common text, the first of them, marked with how
  many files of the library hold that text (`Hit.common_to`), and drops the others;
- in hybrid mode, weighs that row's signals by COMMON_WEIGHT, so it does not outrank a file that matches by
  its own words (its shown "match" is the weighed score that placed it: scores never rise down the list).
A passage that matches by meaning only (no query word) is never judged common: which part carried the meaning
is not known without embedding its parts again.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Mapping, Optional

from ...store.cjk import is_cjk
from .snippet import query_terms

__all__ = ["MIN_FILES", "COMMON_WEIGHT", "CommonText", "find_common"]

MIN_FILES = 5  # candidate files holding a segment before it counts as repeated text
COMMON_WEIGHT = 0.5  # hybrid: the share of its signals a row of repeated text keeps (see the module docstring)
PHRASE_WORDS = 32  # words of a common segment counted across the library (a longer one is counted by its start)

# Segments: sentences (. ! ? ; then space) and lines.
_BOUNDARY = re.compile(r"[.!?;]\s+|\n")
_HAS_WORD = re.compile(r"[^\W_]")


@dataclass
class CommonText:
    """The common passages of one search's candidates."""

    key_of: dict[int, str] = field(default_factory=dict)  # common passage id -> the repeated text that matched

    def __contains__(self, cid: int) -> bool:
        return cid in self.key_of


def _segments(text: str) -> list[tuple[int, int, str]]:
    """(start, end, key) of each segment with a word; key: the segment lower-cased, whitespace collapsed
    (repeated text repeats verbatim). Every candidate passage is read at every search: one scan for the cuts."""
    out = []
    start = 0
    for m in (*_BOUNDARY.finditer(text), None):
        end = len(text) if m is None else m.start() + (text[m.start()] != "\n")  # the full stop stays
        key = " ".join(text[start:end].lower().split())
        if key and _HAS_WORD.search(key):
            out.append((start, end, key))
        if m is not None:
            start = m.end()
    return out


def _term_pattern(query: str) -> Optional[re.Pattern]:
    """Where a query word (or an inflection: 'erupt' finds 'erupted') or a CJK pair of the query occurs."""
    terms = query_terms(query)
    words = [re.escape(t) for t in terms if not is_cjk(t)]
    pairs = [re.escape(t) for t in terms if is_cjk(t)]
    parts = ([r"(?<!\w)(?:" + "|".join(words) + ")"] if words else []) + pairs
    return re.compile("|".join(parts), re.IGNORECASE) if parts else None


def find_common(query: str, texts: Mapping[int, str], file_of: Mapping[int, int],
                min_files: int = MIN_FILES) -> CommonText:
    """The candidate passages (`texts`: id -> text) whose match with `query` is text common to `min_files` or
    more of the candidates' files."""
    out = CommonText()
    pattern = _term_pattern(query)
    if pattern is None or len(set(file_of.values())) < min_files:
        return out
    segs = {cid: _segments(t) for cid, t in texts.items()}
    keys = {cid: {k for _, _, k in ss} for cid, ss in segs.items()}
    holders: dict[str, set[int]] = {}
    for cid, ks in keys.items():
        for key in ks:
            h = holders.setdefault(key, set())
            if len(h) < min_files:
                h.add(file_of[cid])
    common = {key for key, h in holders.items() if len(h) >= min_files}
    if not common:
        return out
    for cid, ks in keys.items():
        if ks.isdisjoint(common):
            continue
        text, ss = texts[cid], segs[cid]
        shared = [(a, b, key) for a, b, key in ss if key in common]
        if not shared:
            continue
        matched = [(a, b, key) for a, b, key in shared if pattern.search(text, a, b)]
        rest = [(a, b) for a, b, key in ss if key not in common]
        if rest and any(pattern.search(text, a, b) for a, b in rest):
            continue  # the file's own words match too
        if not matched and rest:
            continue  # matched by meaning, or by words outside any segment: not known to be the repeated text
        # The repeated text that matched: the run of adjacent common segments around the longest matching one
        # ("Copyright" + "This document has been placed in the public domain." is one text).
        best = max(matched or shared, key=lambda s: len(s[2]))
        i = ss.index(best)
        lo = hi = i
        while lo > 0 and ss[lo - 1][2] in common:
            lo -= 1
        while hi + 1 < len(ss) and ss[hi + 1][2] in common:
            hi += 1
        out.key_of[cid] = " ".join(key for _, _, key in ss[lo:hi + 1])
    return out


def phrase_of(key: str) -> str:
    """The words of a common segment as counted across the library (at most PHRASE_WORDS of them)."""
    return " ".join(key.split()[:PHRASE_WORDS])
