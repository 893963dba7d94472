"""Text repeated across many files (a licence footer, a mail signature, a disclaimer, a page header).

Such text matches a query in every file that carries it, so before this a query sharing its words got one row per
file ("This document has been placed in the public domain" ten times above a book on the public domain).

Found among the candidates of one search, never at sync time: the cost is the candidates' text, whatever the size of
the library (bench_boilerplate.py --scale measures it at 10,000 files), and it needs no vectors (a library searched
by words only folds the same). Each candidate passage is cut into segments (sentences and lines), each compared
*near-equal*: its words only, lower-cased, years alike ("Copyright 2019 Acme." is "Copyright 2021 Acme"), so
punctuation, spacing or a year do not split one footer into many. Whole passages are never compared:
chunking mixes a footer with the end of each file's own text, so two passages holding it are rarely alike.
A mail's header lines (Subject, From, To, Cc, Date) are never repeated text: they say which message it is.

A segment held by MIN_FILES or more candidate files is repeated; one held by fewer but at least LOOKUP_HOLDERS, and
holding a query word, is looked up in the whole library (`count_files`, at most MAX_LOOKUPS of them per search):
with many files on the footer's topic the candidates may hold only a few of the files carrying it.

A passage is *common* for this query when its match is the repeated text's, not the file's:
- it holds query words: the distinct query words found in its own (not repeated) segments are at most half of
  those it holds ("CTCF has a critical role" beside the footer shares "has" with the query, not its topic);
- it holds none (found by meaning only): two thirds or more of its words are in repeated segments (a PEP's
  header lines are repeated too, yet its first passage is found by the abstract under them).
The repeated text a common passage stands for (its key) is the longest segment of the repeated block around its
repeated segment holding the most query words, so every file matched through one footer falls under one key
whatever else its passage holds and wherever chunking cut the footer. The pipeline then
(pipeline.py, folding.py):
- ranks a file by its other passages when it has any (its best non-common passage is shown);
- keeps one row for the files matched only through the same repeated text, the first of them, marked with how
  many files of the library hold that text (`Hit.common_to`), and drops the others;
- in hybrid mode, weighs that row's signals by COMMON_WEIGHT, so it does not outrank a file that matches by
  its own words (its shown "match" is the weighed score that placed it: scores never rise down the list).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass, field
from typing import Callable, Mapping, Optional

from ...ingest.extractors.mail import HEADERS
from ...store.cjk import is_cjk
from .snippet import query_terms

__all__ = ["MIN_FILES", "COMMON_WEIGHT", "MAX_LOOKUPS", "CommonText", "find_common", "phrase_of", "segments"]

MIN_FILES = 5  # files holding a segment before it counts as repeated text
COMMON_WEIGHT = 0.5  # hybrid: the share of its signals a row of repeated text keeps (see the module docstring)
PHRASE_WORDS = 32  # words of a common segment counted across the library (a longer one is counted by its start)
MAX_LOOKUPS = 4  # segments per search looked up in the whole library (the most widely held first)
LOOKUP_HOLDERS = 3  # candidate files holding a segment before the library is asked how many hold it
LOOKUP_WORDS = 3  # words of a segment looked up (a heading or a name alone says nothing of a footer)

# Segments: sentences (. ! ? ; then space; CJK full stops) and lines.
_BOUNDARY = re.compile(r"[.!?;]\s+|[。！？]|\n")


@dataclass
class CommonText:
    """The common passages of one search's candidates."""

    key_of: dict[int, str] = field(default_factory=dict)  # common passage id -> the repeated text it stands for
    phrase: dict[str, str] = field(default_factory=dict)  # key -> its words as one file holds them (to count)

    def __contains__(self, cid: int) -> bool:
        return cid in self.key_of


@dataclass
class _Passage:
    starts: list[int]  # where each segment starts
    keys: list[str]  # each segment's near-equality key ("" when it has no word)
    terms: dict[int, set[str]]  # segment -> the query terms it holds
    words: list[int]  # each segment's word count


def _table() -> dict[int, str]:
    """str.translate table: every ASCII punctuation mark and common Unicode one to a space. One C pass over a
    segment instead of a regex: every candidate passage is cut at every search."""
    return {ord(c): " " for c in "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~\t\r\x0b\x0c\u00a0\u00a9\u00ae\u2013\u2014\u2018"
           "\u2019\u201c\u201d\u2022\u2026\u2122\u3001\u3002\uff08\uff09\uff0c\uff1a\uff1b"}


_PUNCTUATION = _table()
# A year, as a footer writes its own ("Copyright 2019 Acme" is "Copyright 2021 Acme"). Other numbers stay: fifty
# invoices alike but for their amounts are fifty files, not one footer.
_YEAR = re.compile(r"\b(?:19|20)\d\d\b")


def segments(low: str) -> tuple[list[int], list[str], list[int]]:
    """(starts, keys, word counts) of the segments of a lower-cased text. A key is the segment's words with every
    year as 0000 ("" for a segment with no word: a line of ===== under a heading; "" for a segment of a mail's
    header line too, see _header_lines)."""
    starts = [0] + [m.end() for m in _BOUNDARY.finditer(low)]
    ends = starts[1:] + [len(low)]
    # Years made alike (only where one may be) and punctuation made spaces, each in one pass over the whole text:
    # both keep its length, so `starts` hold in `norm` too.
    norm = (_YEAR.sub("0000", low) if "19" in low or "20" in low else low).translate(_PUNCTUATION)
    header_starts, header_ends = _header_lines(low)
    keys, words = [], []
    for s, e in zip(starts, ends, strict=True):
        toks = norm[s:e].split()
        h = bisect_right(header_starts, s) - 1  # the header line this segment starts in, if any
        keys.append("" if h >= 0 and s < header_ends[h] else " ".join(toks))
        words.append(len(toks))
    return starts, keys, words


# The header lines a mail reader writes (mail.py HEADERS), also where a forwarded message quotes them in its body.
_HEADER_LINE = re.compile(r"^(?:%s):[^\n]*" % "|".join(h.lower() for h in HEADERS), re.M)


def _header_lines(low: str) -> tuple[list[int], list[int]]:
    """(starts, ends) of the mail header lines of a lower-cased text. Such a line is never repeated text: who
    wrote a message, to whom, when and about what is what a person searches mail by. A thread's replies all
    carry its subject ("dinner saturday" folded five replies into one row as if their subject were a footer),
    and a person's messages all carry their From or To line ("Alice Nguyen" folded her sixty messages into one
    row "common to 60 files", at half weight, below a slide naming another Nguyen). Each line is cut into its
    sentences too ("From: Dr. Henrik Vogel"), so every segment starting in one counts."""
    found = list(_HEADER_LINE.finditer(low))
    return [m.start() for m in found], [m.end() for m in found]


def _phrase(low: str, start: int, end: int) -> str:
    """The words of one segment as written (years too), to count the files holding it with the lexical index."""
    return " ".join(low[start:end].translate(_PUNCTUATION).split())


def _query_words(query: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(words, CJK pairs) of the query, lower-cased, as the snippet marks them."""
    terms = query_terms(query)
    return tuple(t for t in terms if not is_cjk(t)), tuple(t for t in terms if is_cjk(t))


def _term_positions(low: str, words: tuple[str, ...], pairs: tuple[str, ...]) -> list[tuple[int, str]]:
    """(where, term): a query word starting a word of `low` (an inflection counts: 'erupt' finds 'erupted'), or a
    CJK pair of the query. str.find, not a regex: every candidate passage is read at every search."""
    out = []
    for w in words:
        i = low.find(w)
        while i != -1:
            if i == 0 or not low[i - 1].isalnum():
                out.append((i, w))
            i = low.find(w, i + 1)
    for w in pairs:
        i = low.find(w)
        while i != -1:
            out.append((i, w))
            i = low.find(w, i + 1)
    return out


def find_common(query: str, texts: Mapping[int, str], file_of: Mapping[int, int], min_files: int = MIN_FILES,
                count_files: Optional[Callable[[str, int], int]] = None) -> CommonText:
    """The candidate passages (`texts`: id -> text) whose match with `query` is text repeated in `min_files` or
    more files. `count_files(phrase, cap)`: the library's files holding a phrase, counted up to `cap`."""
    out = CommonText()
    if len(set(file_of.values())) < 2:
        return out
    words, pairs = _query_words(query)
    found: dict[int, _Passage] = {}
    holders: dict[str, set[int]] = {}
    where: dict[str, tuple[str, int, int]] = {}  # key -> (lower-cased text, start, end) of its first holder
    for cid, text in texts.items():
        low = text.lower()
        starts, keys, counts = segments(low)
        terms: dict[int, set[str]] = {}
        for pos, term in _term_positions(low, words, pairs):
            terms.setdefault(bisect_right(starts, pos) - 1, set()).add(term)
        found[cid] = _Passage(starts, keys, terms, counts)
        fid = file_of[cid]
        for i, key in enumerate(keys):
            if key:
                h = holders.get(key)
                if h is None:
                    holders[key] = {fid}
                    where[key] = (low, starts[i], starts[i + 1] if i + 1 < len(starts) else len(low))
                elif len(h) < min_files:
                    h.add(fid)

    def phrase(key: str) -> str:
        return _phrase(*where[key])

    repeated = {key for key, h in holders.items() if len(h) >= min_files}
    if count_files is not None:
        repeated |= _looked_up(found, holders, phrase, min_files, count_files)
    if not repeated:
        return out
    for cid, passage in found.items():
        stands_for = _common_key(passage, repeated, holders)
        if stands_for is not None:
            out.key_of[cid] = stands_for
            out.phrase[stands_for] = phrase(stands_for)
    return out


def _looked_up(found: Mapping[int, _Passage], holders: Mapping[str, set[int]], phrase: Callable[[str], str],
               min_files: int, count_files: Callable[[str, int], int]) -> set[str]:
    """The segments of LOOKUP_WORDS or more words, held by a few candidate files (LOOKUP_HOLDERS to min_files - 1)
    with a query word, that the library holds in min_files or more files: the most widely held first, at most
    MAX_LOOKUPS FTS phrase counts (a title shared by two parts of one document is not worth one)."""
    asked = {p.keys[i] for p in found.values() for i in p.terms
             if p.keys[i] and p.words[i] >= LOOKUP_WORDS and LOOKUP_HOLDERS <= len(holders[p.keys[i]]) < min_files}
    order = sorted(asked, key=lambda k: (-len(holders[k]), -len(k), k))[:MAX_LOOKUPS]
    return {k for k in order if count_files(phrase_of(phrase(k)), min_files) >= min_files}


def _common_key(p: _Passage, repeated: set[str], holders: Mapping[str, set[int]]) -> Optional[str]:
    """The repeated text passage `p` stands for when its match is that text's (see the module docstring)."""
    rep = [i for i, k in enumerate(p.keys) if k in repeated]
    if not rep:
        return None
    if p.terms:
        own: set[str] = set()
        every: set[str] = set()
        for i, t in p.terms.items():
            every |= t
            if p.keys[i] not in repeated:
                own |= t
        if 2 * len(own) > len(every):  # its own words hold more than half of what it matches
            return None
        anchor = max((i for i in rep if i in p.terms), key=lambda i: len(p.terms[i]), default=None)
        if anchor is None:
            return None
    elif 3 * sum(p.words[i] for i in rep) < 2 * sum(p.words):
        return None  # found by meaning, and a third or more of its words are its own
    else:
        anchor = max(rep, key=lambda i: p.words[i])
    return _block_key(p, anchor, repeated, holders)


def _block_key(p: _Passage, anchor: int, repeated: set[str], holders: Mapping[str, set[int]]) -> str:
    """The key of the repeated block around segment `anchor` (the repeated or wordless segments next to it: a
    "Copyright" heading, its rule, the sentence under it): its longest segment, one without a year first (its
    words are counted across the library as one file writes them, and a year differs between files).
    Every file matched through the block gets the same key, however its chunking cut the block."""
    lo = hi = anchor
    while lo > 0 and (p.keys[lo - 1] in repeated or not p.keys[lo - 1]):
        lo -= 1
    while hi + 1 < len(p.keys) and (p.keys[hi + 1] in repeated or not p.keys[hi + 1]):
        hi += 1
    block = [p.keys[i] for i in range(lo, hi + 1) if p.keys[i]]
    return max(block, key=lambda k: ("0000" not in k, len(k.split()), len(holders[k]), k))


def phrase_of(key: str) -> str:
    """The words of a common segment as counted across the library (at most PHRASE_WORDS of them)."""
    return " ".join(key.split()[:PHRASE_WORDS])
