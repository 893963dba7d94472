"""Bounds on the text of one file: what a hostile or odd file can cost the sync and the window.

Applied by `extract()` to every extractor's output (so the sync and the preview see the same text, and
passage offsets stay valid):
- content that is not prose (base64 or hex dumps, one enormous "word") is left out: it cannot be searched
  by meaning and would cost minutes and gigabytes to embed. Junk is dropped, not the file: a document with
  pages loses only its junk pages (their spans stay, empty, so a PDF's empty page goes to OCR), other
  text loses its junk paragraphs, each with a note; only a file that is junk throughout is refused, with
  the reason;
- a few long runs without whitespace inside prose (an inline data: URI, a hash list) are shortened;
- the text is cut at `max_chars` characters, reported as "truncated at …" like the PDF page cap.
"""

from __future__ import annotations

import bisect
import logging
import re
from itertools import pairwise
from typing import Iterator
from dataclasses import replace

from ..base.errors import UnsupportedFileError
from ..base.types import Document
from .valid_text import valid_document

__all__ = ["bound_text", "not_prose_reason", "data_spans", "LONG_RUN", "DEFAULT_MAX_CHARS", "DATA_STRETCH"]

DEFAULT_MAX_CHARS = 10_000_000  # ~ a 4,000-page book; config: scan.max_text_chars
LONG_RUN = 1000  # characters without whitespace: no word is this long
NOT_PROSE_SHARE = 0.5  # more of the text than this in long runs or hex groups: not prose
_SAMPLE = 1 << 16  # characters looked at (from the start, middle and end) to judge the text

# Runs of printable ASCII only (Chinese, Japanese or Thai prose has no spaces at all, and is prose), and
# cut at , ; | too (a CSV row of short fields is not one long string).
_RUN_CHAR = "[" + re.escape("".join(chr(c) for c in range(0x21, 0x7F) if chr(c) not in ",;|")) + "]"
_LONG = re.compile(_RUN_CHAR + "{%d,}" % LONG_RUN)
LONG_WORD = 40  # no word of any language runs this long; base64 lines (76), hashes (40, 64) do
_LONG_WORD = re.compile(_RUN_CHAR + "{%d,}" % LONG_WORD)
# A web link is a long string without spaces too, but one a person wrote down (a Markdown list of links, a
# bibliography): it is no sign of data. `data:` URIs are (base64), so only http(s), ftp and www. links.
_LINK = re.compile(r"(?:\b(?:https?|ftp)://|\bwww\.)[^\s<>\"'\[\]]+", re.I)
# Inside a long string, what makes it data is a long stretch of letters and digits with nothing between them
# (base64 has a + or / only every 32 characters on average, a hash none at all), or hex groups chained by : or -
# two of them with a hex letter (UUIDs, key fingerprints; not `db-2024-01-28-10-30`, a date and a time). A path, a
# file name, a dotted name or a fill-in line (`/mnt/archive/legal/henderson_signed_v3.pdf`, `\\server\share`,
# `________`) is words cut by separators, and is text a person wrote: only such data counts.
DATA_STRETCH = 16
_GROUP_SPLIT = re.compile("[:-]")
_DATA = re.compile("(?P<stretch>[A-Za-z0-9]{%d,})|(?P<chain>(?:[0-9A-Fa-f]{2,}[:-]){3,}[0-9A-Fa-f]{2,})"
                   % DATA_STRETCH)
_HEXISH = re.compile(r"(?:0x)?[0-9A-Fa-f]{2,}[:,]?")
_HEXISH_TOKEN = re.compile(r"(?<!\S)(?:0x)?[0-9A-Fa-f]{2,}[:,]?(?!\S)")  # a whole token that is _HEXISH
_HEX_LETTER = re.compile(r"[A-Fa-f]")
_DIGIT = re.compile(r"[0-9]")
_PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n")
MAX_BLOCKS = 4096  # paragraphs judged one by one; more are judged in groups

log = logging.getLogger(__name__)


def _sample(text: str) -> str:
    if len(text) <= 3 * _SAMPLE:
        return text
    mid = len(text) // 2
    return "\n".join((text[:_SAMPLE], text[mid:mid + _SAMPLE], text[-_SAMPLE:]))


def not_prose_reason(text: str) -> str | None:
    """Why `text` is data rather than prose, or None. Judged on a sample, so it is cheap on any size."""
    sample = _sample(text)
    if not sample.strip():
        return None
    tokens = sample.split()  # the text between whitespace (str.split and the regex \s agree on every character)
    longest = max(map(len, tokens), default=0)  # a run below lies inside one token: none when all are short
    long_chars = sum(m.end() - m.start() for m in _LONG.finditer(sample)) if longest >= LONG_RUN else 0
    if long_chars > NOT_PROSE_SHARE * len(sample):
        return f"not prose: most of the text is runs of {LONG_RUN:,}+ characters without a space (base64 or binary data?)"
    visible = sum(map(len, tokens))  # characters not isspace(): prose of any script counts here
    # Removing links only shortens runs: without any long run there is nothing to count.
    word_chars = (sum(_data_chars(m.group()) for m in _LONG_WORD.finditer(_LINK.sub(" ", sample)))
                  if longest >= LONG_WORD and _LONG_WORD.search(sample) else 0)
    if word_chars > NOT_PROSE_SHARE * visible:
        return f"not prose: most of the text is strings of {LONG_WORD}+ characters without a space (base64 or hashes?)"
    # Whole tokens that look hex, digits or not: at most this many are hex groups, so prose ends here. The hex
    # groups counted below each hold a digit, so with fewer digits than that share there is nothing to find.
    if (len(tokens) >= 64 and sum(map(sample.count, "0123456789")) > NOT_PROSE_SHARE * len(tokens)
            and len(_HEXISH_TOKEN.findall(sample)) > NOT_PROSE_SHARE * len(tokens)):
        hexish = [t for t in tokens if _HEXISH.fullmatch(t) and _DIGIT.search(t)]
        lettered = sum(1 for t in hexish if _HEX_LETTER.search(t))
        # A column of plain numbers is data worth keeping; hex groups carry the letters a-f.
        if len(hexish) > NOT_PROSE_SHARE * len(tokens) and lettered > 0.1 * len(hexish):
            return "not prose: most of the text is hexadecimal groups (a hex dump?)"
    return None


def data_spans(text: str) -> Iterator[tuple[int, int]]:
    """Where `text` (a string without spaces) holds data: its long letter-and-digit stretches and its chains of
    hex groups (see _DATA)."""
    for m in _DATA.finditer(text):
        if m.lastgroup == "stretch" or sum(1 for g in _GROUP_SPLIT.split(m.group()) if _HEX_LETTER.search(g)) >= 2:
            yield m.start(), m.end()


def _data_chars(run: str) -> int:
    """Characters of a long string without spaces that look like data."""
    return sum(b - a for a, b in data_spans(run))


def _shorten_runs(doc: Document) -> tuple[Document, int]:
    """Cut every run of LONG_RUN+ non-space characters to LONG_RUN, moving page spans to match."""
    text = doc.text
    runs = [(m.start(), m.end()) for m in _LONG.finditer(text)]
    if not runs:
        return doc, 0
    parts, pos = [], 0
    for a, b in runs:
        parts.append(text[pos:a + LONG_RUN])
        pos = b
    parts.append(text[pos:])

    def moved(offset: int) -> int:
        shift = 0
        for a, b in runs:  # the removed tail of each run is [a + LONG_RUN, b)
            if offset <= a + LONG_RUN:
                break
            shift += min(offset, b) - (a + LONG_RUN)
        return offset - shift

    pages = tuple(p.moved(moved) for p in doc.pages)
    return replace(doc, text="".join(parts), pages=pages), len(runs)


def _truncate(doc: Document, max_chars: int) -> Document:
    cut = doc.text.rfind(" ", max(0, max_chars - 1000), max_chars)  # end at a word boundary when one is near
    cut = cut if cut > 0 else max_chars
    pages = tuple(p.moved(lambda o: min(o, cut)) for p in doc.pages if p.start < cut)
    return replace(doc, text=doc.text[:cut], pages=pages)


def _cut(doc: Document, ranges: list[tuple[int, int]]) -> Document:
    """`doc` without the characters of `ranges` (sorted, disjoint [a, b)), its page spans moved to match."""
    parts, pos = [], 0
    for a, b in ranges:
        parts.append(doc.text[pos:a])
        pos = b
    parts.append(doc.text[pos:])
    starts = [a for a, _ in ranges]
    removed_before = [0]  # characters removed by ranges[:i]
    for a, b in ranges:
        removed_before.append(removed_before[-1] + b - a)

    def moved(offset: int) -> int:
        i = bisect.bisect_left(starts, offset)  # ranges[:i] start before offset
        if i == 0:
            return offset
        a, b = ranges[i - 1]
        return offset - removed_before[i - 1] - (min(offset, b) - a)

    pages = tuple(p.moved(moved) for p in doc.pages)
    return replace(doc, text="".join(parts), pages=pages)


def _blocks(doc: Document) -> list[tuple[int, int]]:
    """The parts of `doc` judged one by one: its pages, else its paragraphs (grouped to at most MAX_BLOCKS)."""
    if doc.pages:
        return [(p.start, p.end) for p in doc.pages if p.end > p.start]
    bounds = [0] + [m.end() for m in _PARAGRAPH_BREAK.finditer(doc.text)] + [len(doc.text)]
    step = max(1, -(-(len(bounds) - 1) // MAX_BLOCKS))
    bounds = bounds[::step] + ([len(doc.text)] if (len(bounds) - 1) % step else [])
    return [(a, b) for a, b in pairwise(bounds) if b > a]


def _drop_junk(doc: Document, notes: list[str]) -> Document:
    """`doc` without its pages (or paragraphs) that are not prose; UnsupportedFileError when that is all of
    a document without pages."""
    judged = [(a, b, not_prose_reason(doc.text[a:b])) for a, b in _blocks(doc)]
    junk = [(a, b, why) for a, b, why in judged if why is not None]
    if not junk:
        return doc
    if not doc.pages and all(not doc.text[a:b].strip() or why is not None for a, b, why in judged):
        raise UnsupportedFileError(junk[0][2])
    what = "page(s)" if doc.pages else "paragraph(s)"
    notes.append(f"{len(junk)} {what} left out, {junk[0][2]}")
    return _cut(doc, [(a, b) for a, b, _ in junk])


def bound_text(doc: Document, max_chars: int = DEFAULT_MAX_CHARS, where: str = "") -> Document:
    """`doc` within the caps (see the module doc); UnsupportedFileError when all of it is not prose. Its text
    is made valid Unicode first (valid_text.py): every extractor's output passes here."""
    doc = valid_document(doc)
    notes = list(doc.notes)
    if doc.pages or not_prose_reason(doc.text) is not None:
        doc = _drop_junk(doc, notes)
    if len(doc.text) > max_chars:
        # First cut to the cap (plus room for shortened runs), so the run scan below stays bounded too.
        doc = _truncate(doc, max_chars)
        notes.append(f"text truncated at {max_chars:,} characters")  # `status` finds it so (store/ledger.py CUT_NOTE)
    doc, shortened = _shorten_runs(doc)
    if shortened:
        notes.append(f"{shortened} run(s) of over {LONG_RUN:,} characters without a space shortened")
    if len(notes) > len(doc.notes):
        for note in notes[len(doc.notes):]:
            log.warning("%s: %s", where or "file", note)
        doc = replace(doc, notes=tuple(notes))
    return doc
