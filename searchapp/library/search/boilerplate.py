"""Text repeated across many files (a licence footer, a mail signature, a disclaimer, a page header).

Such text matches a query in every file that carries it, so before this a query sharing its words got one row per
file ("Copyright: this document has been placed in the public domain" nine times above a book on copyright).

Found among the candidates of one search, never at sync time: each candidate passage is cut into segments
(sentences and lines, compared verbatim but for case and spacing); a segment held by at least MIN_FILES candidate
files is common. A passage is *common* for this query when every segment of it holding a query word is common:
its match is the repeated text's, not the file's. The pipeline then
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
from bisect import bisect_right
from dataclasses import dataclass, field
from typing import Mapping

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


def _starts(text: str) -> list[int]:
    """Where each segment of `text` starts (one scan)."""
    return [0] + [m.end() for m in _BOUNDARY.finditer(text)]


def _key(text: str, starts: list[int], i: int) -> str:
    """Segment i of a lower-cased text, compared as repeated text repeats (verbatim): whitespace collapsed; ""
    when it has no word (a line of ===== under a heading)."""
    end = starts[i + 1] if i + 1 < len(starts) else len(text)
    key = " ".join(text[starts[i]:end].split())
    return key if _HAS_WORD.search(key) else ""


def _query_words(query: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(words, CJK pairs) of the query, lower-cased, as the snippet marks them."""
    terms = query_terms(query)
    return tuple(t for t in terms if not is_cjk(t)), tuple(t for t in terms if is_cjk(t))


def _word_positions(low: str, words: tuple[str, ...], pairs: tuple[str, ...]) -> list[int]:
    """Where a query word starts a word of `low` (an inflection counts: 'erupt' finds 'erupted'), or a CJK pair
    of the query occurs. str.find, not a regex: every candidate passage is read at every search."""
    out = []
    for w in words:
        i = low.find(w)
        while i != -1:
            if i == 0 or not low[i - 1].isalnum():
                out.append(i)
            i = low.find(w, i + 1)
    for w in pairs:
        i = low.find(w)
        while i != -1:
            out.append(i)
            i = low.find(w, i + 1)
    return out


def find_common(query: str, texts: Mapping[int, str], file_of: Mapping[int, int],
                min_files: int = MIN_FILES) -> CommonText:
    """The candidate passages (`texts`: id -> text) whose match with `query` is text common to `min_files` or
    more of the candidates' files. Only the segments holding a query word are compared (a repeated segment that
    matches holds the word in every file that repeats it), then the neighbours of the suspects' ones."""
    out = CommonText()
    words, pairs = _query_words(query)
    if not (words or pairs) or len(set(file_of.values())) < min_files:
        return out
    found: dict[int, tuple[list[int], dict[int, str]]] = {}  # passage -> (segment starts, {segment: key})
    holders: dict[str, set[int]] = {}
    lows: dict[int, str] = {}
    for cid, text in texts.items():
        low = lows[cid] = text.lower()  # keys are lower-cased anyway; positions are taken in this text
        at = _word_positions(low, words, pairs)
        if not at:
            continue  # matched by meaning alone: which part carried it is not known
        starts = _starts(low)
        keys: dict[int, str] = {}
        for pos in at:
            i = bisect_right(starts, pos) - 1
            if i not in keys:
                keys[i] = _key(low, starts, i)
        found[cid] = (starts, keys)
        _hold(holders, keys.values(), file_of[cid], min_files)
    common = {key for key, h in holders.items() if len(h) >= min_files}
    # Every segment that matches is repeated text: the file's own words do not match.
    suspects = {cid: v for cid, v in found.items() if common and all(k in common for k in v[1].values())}
    if not suspects:
        return out
    # The repeated text goes on in segments without a query word ("Copyright", then "This document has been
    # placed in the public domain."): those repeated among the suspects join it.
    every = {cid: [_key(lows[cid], starts, i) for i in range(len(starts))] for cid, (starts, _) in suspects.items()}
    around: dict[str, set[int]] = {}
    for cid, keys_all in every.items():
        _hold(around, keys_all, file_of[cid], min_files)
    joins = common | {key for key, h in around.items() if len(h) >= min_files}
    for cid, (_, keys) in suspects.items():
        keys_all = every[cid]
        lo = hi = max(keys, key=lambda i: len(keys[i]))  # the longest matching segment
        while lo > 0 and (keys_all[lo - 1] in joins or not keys_all[lo - 1]):
            lo -= 1
        while hi + 1 < len(keys_all) and (keys_all[hi + 1] in joins or not keys_all[hi + 1]):
            hi += 1
        out.key_of[cid] = " ".join(k for k in keys_all[lo:hi + 1] if k)
    return out


def _hold(holders: dict[str, set[int]], keys, file_id: int, cap: int) -> None:
    for key in keys:
        if key:
            h = holders.setdefault(key, set())
            if len(h) < cap:
                h.add(file_id)


def phrase_of(key: str) -> str:
    """The words of a common segment as counted across the library (at most PHRASE_WORDS of them)."""
    return " ".join(key.split()[:PHRASE_WORDS])
