"""Near copies in a search's file ranking (decision 0198): report.pdf beside the report.docx it was exported from,
thesis-v2.docx beside thesis-v3.docx with a paragraph changed. Exact copies (the same bytes) already share a row
(folding.py); a near copy is another file whose text is almost all this one's.

What counts as one document is decided from the stored passage texts, never from their vectors: a search's
folding is silent (a row folded is a file a person does not see), and a cosine threshold means something else
under every bi-encoder a person may choose (an e5 or a random test model puts unrelated passages at 0.9), while
"93% of its 5-word sequences are in the other file" means the same whatever the model. Two files are near copies
when the Jaccard of their texts' sets of SHINGLE-word sequences (words case-folded, punctuation ignored, each
passage on its own: no sequence spans two passages) is at least NEAR_COPY: a PDF export, the same document saved
again, a copy with a few sentences edited. Not so:

- two different documents that share a passage (a licence header, a mail signature, a cover page): the passage's
  sequences are a small part of both texts, whatever this query matched in them;
- a later version that changed a lot (a quarter of its sentences rewritten is below NEAR_COPY);
- a short excerpt of a long report: the union is the report's.

The cost follows the rows, not the library. The first POOL rows (at least POOL_MIN, POOL_PER_K k past that) are each
compared with the rows kept above it, a row after them (up to the search's candidates) with the first k rows kept
only (it is never shown but as a near copy of one of those; k gate tests a row), and only where the query's best
passages of the two already share half of the smaller's sequences (two copies of one document are found by the same
words in the same place; their best passages are one text, or overlap where chunking cut them apart): a search with
no copies reads nothing more. Where that gate opens, both files' texts are read (their first TEXT_PASSAGES passages,
once a search) and compared, COMPARED_MAX comparisons a search at most. The best-ranked row keeps its place and
lists the others (`Hit.near_copies`); the rows after it move up, and the top k is filled from the rows below. The
file that shows the place is the best-ranked one that can be opened: a report.docx on an unplugged drive does not
hide the report.pdf on this disk (as with exact copies, folding.py).

A number changed is another document (decision 0198, 2026-12-03): two quotes, "14,200 EUR" and "14,300 EUR", share
82% of their sequences and a person needs both. Two texts are not near copies, whatever they share, when one holds
a number between two words where the other holds another number between the same two words (`numbers`: each word
holding a digit with the words either side of it, and the words either side of its run where a number is written in
parts, "1,250.00"): an amount, a date, a version, a phone number changed in place.
A number on one side only is not a change: the page numbers a PDF prints between two lines and the DOCX it came
from does not, a running date, a line added; nor is a sentence reworded around the same numbers. By place, not by
the numbers alone: a report of 400 numbers holds "300" somewhere, so "14,300" for "14,200" would change no set of
numbers; and not by the differing 5-word sequences alone: the PDF and its DOCX are cut into passages in other
places, and the sequences at each cut differ, numbers in them or not.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Callable, Mapping, Optional, Sequence

from ...base.types import Hit, NearCopy
from ...store import Store
from .availability import Readable

__all__ = ["fold_near_copies", "near_copies_of", "shingles", "numbers", "number_changed", "resemblance", "NEAR_COPY",
           "SHINGLE", "POOL_MIN", "POOL_PER_K", "TEXT_PASSAGES", "COMPARED_MAX"]

SHINGLE = 5  # words a sequence: long enough that two documents on one subject share few, short enough for edits
# Calibrated on real files (decision 0198): tika's testPDF_Version.*.pdf (one document saved by ten PDF writers),
# a DOCX and its copy with two paragraphs rewritten, and different documents sharing a licence header.
NEAR_COPY = 0.80
GATE = 0.5  # the share of the smaller best passage's sequences the other row's best passage must hold
POOL_MIN = 30  # rows looked at, at least: a top 10 folding two copies each is still 10 rows
POOL_PER_K = 3  # ... and 3 k: past them a row is compared with the first k rows kept only
TEXT_PASSAGES = 400  # passages of a file read to compare it (a book's first ~60,000 words): the cost capped
# Whole texts compared a search, at most: a gate that opens for every pair (150 long reports from one template, their
# best passages the template's) compared each row with every row above it, 4,950 comparisons at the window's k=100,
# +2.5 s a search. Past it the rows stay as they are (each its own row, as with the fold off).
COMPARED_MAX = 200
_WORD = re.compile(r"\w+")
_DIGIT = re.compile(r"\d")


def shingles(text: str) -> set[int]:
    """The SHINGLE-word sequences of `text` (case-folded words), hashed; a shorter text is one sequence."""
    words = _WORD.findall(text.casefold())
    if len(words) <= SHINGLE:
        return {hash(tuple(words))} if words else set()
    return {hash(tuple(words[i:i + SHINGLE])) for i in range(len(words) - SHINGLE + 1)}


Placed = tuple[str, str, str]  # a number and the words either side of it


def numbers(text: str) -> set[Placed]:
    """Each word of `text` holding a digit with the words either side of it (NFKC, case-folded: a PDF's "m2" is a
    DOCX's "m²"); "14,200 EUR" is 200 between 14 and eur. Not a passage's first or last word: the two files are cut
    into passages in other places, and a number at one file's cut has a place in the other file only. A run of such
    words (one number written in parts: "1,250.00", "3.12.2026", "+49 30 1234") is placed between the words either
    side of the run too, each part: where every part changed ("1,250.00" to "1,380.50", "3.12." to "4.11.") each
    part's neighbour changed with it and no part kept its place."""
    words = _WORD.findall(unicodedata.normalize("NFKC", text).casefold())
    n = len(words)
    at = [i for i, w in enumerate(words) if not w.isalpha() and _DIGIT.search(w)]  # most words: isalpha, in C
    out = {(words[i - 1], words[i], words[i + 1]) for i in at if 0 < i < n - 1}
    start = 0
    for x in range(1, len(at) + 1):
        if x == len(at) or at[x] != at[x - 1] + 1:  # the run at[start:x] ends
            i, j = at[start], at[x - 1] + 1
            if j - i > 1 and i > 0 and j < n:  # a run inside the passage (at its cut its place is unknown)
                out.update((words[i - 1], w, words[j]) for w in words[i:j])
            start = x
    return out


def number_changed(a: set[Placed], b: set[Placed]) -> bool:
    """Whether a number of one text stands where the other has another between the same two words: a fact changed,
    two documents (module docstring). A number on one side only (a PDF's page number) is no change."""
    return bool({(x, y) for x, _, y in a - b} & {(x, y) for x, _, y in b - a})


def resemblance(a: set[int], b: set[int]) -> float:
    """Jaccard of two sets of sequences (0 where either is empty)."""
    if not a or not b:
        return 0.0
    both = len(a & b)
    return both / (len(a) + len(b) - both)


def _gate(a: set[int], b: set[int]) -> bool:
    """Whether two rows' best passages share GATE of the smaller's sequences: worth reading the whole files."""
    return bool(a and b) and len(a & b) >= GATE * min(len(a), len(b))


class _FileTexts:
    """Each file's sequences, read once a search and only when asked; its numbers only where two texts are near
    copies (`numbers_of`): most texts compared are not, and their numbers cost more than their sequences."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.of: dict[int, set[int]] = {}
        self.numbers: dict[int, set[Placed]] = {}  # each file's numbers, of the same passages as its sequences
        self.passages: dict[int, int] = {}  # each file's passages, all of them (its sequences are of TEXT_PASSAGES)
        self.compared = 0  # resemblances of two whole texts worked out this search (COMPARED_MAX)

    def _texts(self, file_id: int) -> list[str]:
        every = self.store.chunk_ids_of_file(file_id)
        self.passages[file_id] = len(every)
        ids = every[:TEXT_PASSAGES]
        return [r.text for r in self.store.chunks(ids).values()] if ids else []

    def __call__(self, file_id: int) -> set[int]:
        got = self.of.get(file_id)
        if got is None:
            got = self.of[file_id] = set().union(*(shingles(t) for t in self._texts(file_id)))
        return got

    def numbers_of(self, file_id: int) -> set[Placed]:
        """The file's numbers, its passages read again: asked of near copies alone (a few a search at most)."""
        got = self.numbers.get(file_id)
        if got is None:
            got = self.numbers[file_id] = set().union(*(numbers(t) for t in self._texts(file_id)))
        return got


def fold_near_copies(store: Store, hits: Sequence[Hit], file_of: Mapping[int, int], k: int) -> list[Hit]:
    """`hits` (rows by file, in their final order) with each near copy folded into the first row of its document
    (`near_copies` of that row, best-ranked first). Past the pool a row is compared with the first k rows kept
    alone: it is shown only as one of theirs, and a copy of a shown row ranked 40th is listed under it. `file_of`: a
    row's passage id -> its file id."""
    pool = max(POOL_MIN, POOL_PER_K * k)
    best = _BestPassages(hits)
    texts = _FileTexts(store)
    kept: list[int] = []
    under: dict[int, list[int]] = {}  # a kept row -> the rows folded into it, best-ranked first
    for i in range(len(hits)):
        into = _near_row(hits, kept if i < pool else kept[:k], i, best, file_of, texts)
        if into is None:
            kept.append(i)
        else:
            under.setdefault(into, []).append(i)
    readable = Readable(store)  # lazy: asks for the library's folders only where a row has a near copy
    # a row past the first k is never shown (every caller keeps k): its best-ranked file stands, the disk not asked
    return [_document_row([hits[j], *(hits[i] for i in under.get(j, []))], file_of, texts,
                          readable if n < k else _unasked) for n, j in enumerate(kept)]


def _unasked(path: str) -> bool:
    """A row no one sees is taken as readable: a stat a file (a drive that may hang) for nothing."""
    return True


class _BestPassages:
    """Each row's best passage's sequences, made when the gate first asks (a row past the pool compared with none
    of the first k rows is never made into sequences)."""

    def __init__(self, hits: Sequence[Hit]) -> None:
        self.hits = hits
        self.of: dict[int, set[int]] = {}

    def __getitem__(self, i: int) -> set[int]:
        got = self.of.get(i)
        if got is None:
            got = self.of[i] = shingles(self.hits[i].text)
        return got


def _document_row(rows: Sequence[Hit], file_of: Mapping[int, int], texts: _FileTexts,
                  readable: Callable[[str], bool]) -> Hit:
    """The row of one document's files (`rows`, best-ranked first): the best-ranked that can be opened shows it
    (none can: the best-ranked), as an exact copy on a missing folder or an unplugged drive never hides a readable
    one (folding.py); the others are listed under it with their share of its text."""
    if len(rows) == 1:
        return rows[0]
    front = next((h for h in rows if readable(h.path)), rows[0])
    mine = texts(file_of[front.chunk_id])
    front.near_copies.extend(
        NearCopy(h.path, round(resemblance(mine, texts(file_of[h.chunk_id])), 4), file_of[h.chunk_id])
        for h in rows if h is not front)
    return front


def _near_row(pool: Sequence[Hit], kept: Sequence[int], i: int, best: _BestPassages,
              file_of: Mapping[int, int], texts: _FileTexts) -> Optional[int]:
    """The kept row above `i` whose file `i`'s is a near copy of; None: a document of its own. A row whose file
    is not known (none here) is never folded."""
    fi = file_of.get(pool[i].chunk_id)
    if fi is None:
        return None
    for j in kept:
        fj = file_of.get(pool[j].chunk_id)
        if fj is None or fj == fi or not _gate(best[i], best[j]):
            continue
        if texts.compared >= COMPARED_MAX:
            return None
        if _one_document(texts, fi, fj):
            return j
    return None


def _one_document(texts: _FileTexts, fi: int, fj: int) -> bool:
    """Whether two files' whole texts are one document (module docstring), counted in `texts.compared`."""
    texts.compared += 1
    a, b = texts(fi), texts(fj)
    if min(len(a), len(b)) < NEAR_COPY * max(len(a), len(b)):  # Jaccard is at most the sizes' ratio
        return False
    if _lengths_differ(texts.passages[fi], texts.passages[fj]):
        return False
    return resemblance(a, b) >= NEAR_COPY and not number_changed(texts.numbers_of(fi), texts.numbers_of(fj))


def near_copies_of(store: Store, source: int, rows: Sequence[tuple[int, str, str]]) -> dict[int, float]:
    """Similar files: which of `rows` (a file id, its passage shown, the source's passage it pairs with) are near
    copies of the file `source`, each -> its share of the source's text. The gate is each row's own pair: Similar
    pairs a file with the source passage most like one of its own, and a near copy's pair is one text. At most
    COMPARED_MAX whole texts compared, as a search."""
    texts = _FileTexts(store)
    out: dict[int, float] = {}
    for fid, text, paired in rows:
        if fid == source or texts.compared >= COMPARED_MAX or not _gate(shingles(text), shingles(paired)):
            continue
        if _one_document(texts, fid, source):
            out[fid] = round(resemblance(texts(fid), texts(source)), 4)
    return out


def _lengths_differ(a: int, b: int) -> bool:
    """Whether two files' passage counts alone rule out a near copy where their texts were read only in part: a
    book's second edition that adds 200 chapters to the first's 400 passages compared as identical (its first
    TEXT_PASSAGES passages are), and folded under it."""
    return max(a, b) > TEXT_PASSAGES and min(a, b) < NEAR_COPY * max(a, b)
