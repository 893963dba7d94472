"""Cut a document into passages that fit the bi-encoder, without losing any text.

1. Tokenize once (in ~100k-character segments cut at whitespace) and index tokens by position,
   so the word pieces of any span are counted with two bisections instead of re-tokenizing.
2. Units ("atoms"): sentences (ended by . ! ? ; + whitespace, a line break, or a CJK full stop);
   a sentence over the limit becomes words, a word over the limit becomes word pieces. Each atom
   remembers how strong the boundary after it is: paragraph > sentence > line > word > piece.
3. Pack atoms greedily, page by page (no passage spans two pages); when a passage is full it ends at the strongest boundary in its second
   half. The next passage starts with trailing atoms worth about `overlap * max_tokens` tokens
   (never the whole previous passage, and always leaving room for new text: progress is certain).
4. Re-tokenize each passage on its own and split again if it is over the limit: cutting inside a
   word can change how it tokenizes, and tokenizers may be context dependent. With a batch tokenizer
   (`token_offsets_batch`) all passages of a document are checked in one call per round, and the
   encoder reuses those ids (see models/kept_ids.py): one tokenization per passage. With
   `words_alone` (a tokenizer that reads the text between separators on its own, e.g. BERT's; see
   models/word_pieces.reads_words_alone) a passage that starts and ends beside a separator is not
   tokenized again: its count from step 1 is exactly what its own tokenization gives.
3b. Cap passages in characters too (`max_chars`): a tokenizer reads a 5 MB run without spaces as a
   handful of [UNK] pieces, which fit any token limit; such a passage would freeze the preview.
Cancel is checked between tokenizer segments and every few thousand atoms and passages.
"""

from __future__ import annotations

import operator
import re
from array import array
from bisect import bisect_left
from itertools import islice, pairwise
from typing import Callable, Iterator, Optional, Sequence, cast

import numpy as np

from ..base.progress import CancelToken
from ..base.separators import SEPARATORS
from ..base.types import ChunkSpan, Document

__all__ = ["TokenOffsets", "chunk_document", "SEGMENT_CHARS", "CHARS_PER_TOKEN_CAP", "passage_char_cap", "SEPARATORS"]

TokenOffsets = Callable[[str], list[tuple[int, int]]]  # (start, end) chars of each word piece, no specials
TokenOffsetsBatch = Callable[[list[str]], list[list[tuple[int, int]]]]  # the same for many texts at once
# The same word pieces as two int arrays: starts, and last characters (max(start, end - 1))
TokenBounds = Callable[[str], tuple[Sequence[int], Sequence[int]]]

SEGMENT_CHARS = 100_000  # characters per tokenizer call on long texts
CHARS_PER_TOKEN_CAP = 12  # passage characters per allowed token: prose runs ~4-6, code and URLs ~8
_CHECK_EVERY = 4096  # loop steps between two cancel checks

# Boundary strengths (the cut after an atom).
PIECE, WORD, LINE, SENTENCE, PARAGRAPH = range(5)

_GAP = re.compile(r"\s+|(?<=[。！？；])")  # whitespace, or nothing after a CJK sentence end
_BREAK_CHARS = "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"
_LINE_BREAK = re.compile(r"\r\n|[" + _BREAK_CHARS + "]")
_SENTENCE_END = frozenset(".!?;…")
_CLOSERS = frozenset("\"')]}»”’")
# Gaps that may be LINE or stronger (_strength decides): from a run's first line break (group 1), after a sentence
# end or closer (group 2), after a CJK full stop. One scan, skipping at C speed to the few characters it starts at.
_ENDS = re.escape("".join(sorted(_SENTENCE_END | _CLOSERS)))
_MAY_END = re.compile(f"[{_BREAK_CHARS}{_ENDS}。！？；]"
                      f"(?:(?<=[{_BREAK_CHARS}])(\\s*)|(?<=[{_ENDS}])(\\s+)|(?<=[。！？；])(?!\\s))")
_WS = re.compile(r"\s")


class _Tokens:
    """Word-piece positions of the whole text; counts tokens in a span by bisection."""

    def __init__(self, text: str, token_offsets: TokenOffsets, cancel: Optional[CancelToken] = None,
                 token_bounds: Optional[TokenBounds] = None,
                 bounds: Optional[tuple[np.ndarray, np.ndarray]] = None) -> None:
        # Arrays of 8-byte ints, not lists of tuples: a 50 MB text has ~10M word pieces.
        # One call per ~100k-character segment (already large): cancel is checked between segments.
        self.starts = array("q")
        self.keys = array("q")
        if bounds is not None:  # the whole text's, already put together (a text of one segment)
            self._store([bounds[0]], [bounds[1]])
            return
        if token_bounds is not None:
            self._from_bounds(text, token_bounds, cancel)
            return
        for base, end in _segments(text):
            _check(cancel)
            offsets = token_offsets(text[base:end])
            self.starts.extend([base + s for s, _ in offsets])
            # Index by the token's last character: robust to offsets that include a leading space.
            self.keys.extend([base + (s if s > e - 1 else e - 1) for s, e in offsets])
        for name in ("starts", "keys"):
            values = getattr(self, name)
            if any(map(operator.gt, values, islice(values, 1, None))):  # out of order somewhere
                setattr(self, name, array("q", sorted(values)))

    def _from_bounds(self, text: str, token_bounds: TokenBounds, cancel: Optional[CancelToken]) -> None:
        """The same arrays from (starts, last characters) arrays: no Python step per word piece."""
        starts, keys = [], []
        for base, end in _segments(text):
            _check(cancel)
            s, k = token_bounds(text[base:end])
            starts.append(np.asarray(s, dtype=np.int64) + base)
            keys.append(np.asarray(k, dtype=np.int64) + base)
        self._store(starts, keys)

    def _store(self, starts: list[np.ndarray], keys: list[np.ndarray]) -> None:
        for name, parts in (("starts", starts), ("keys", keys)):
            values = parts[0] if len(parts) == 1 else np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)
            if (values[1:] < values[:-1]).any():  # out of order somewhere
                values = np.sort(values)
            getattr(self, name).frombytes(np.ascontiguousarray(values, dtype=np.int64).tobytes())

    def count(self, a: int, b: int) -> int:
        return bisect_left(self.keys, b) - bisect_left(self.keys, a)

    def counts(self, a: Sequence[int], b: Sequence[int]) -> list[int]:
        """`count` of many spans at once, (a[i], b[i]): one NumPy call, not two bisections a span."""
        keys = np.frombuffer(self.keys, dtype=np.int64) if self.keys else np.zeros(0, dtype=np.int64)
        # numpy's stubs type tolist() as Any; an int64 array gives a list of Python ints
        return cast(list[int], (np.searchsorted(keys, b) - np.searchsorted(keys, a)).tolist())

    def starts_between(self, a: int, b: int) -> list[int]:
        """Token starts strictly inside (a, b)."""
        lo, hi = bisect_left(self.starts, a + 1), bisect_left(self.starts, b)
        return sorted(set(self.starts[lo:hi]))


def _check(cancel: Optional[CancelToken], step: int = 0) -> None:
    if cancel is not None and step % _CHECK_EVERY == 0:
        cancel.check()


def _segments(text: str) -> Iterator[tuple[int, int]]:
    """Spans of at most ~SEGMENT_CHARS, cut at a blank line, else at whitespace, when possible."""
    n, pos = len(text), 0
    while pos < n:
        end = min(n, pos + SEGMENT_CHARS)
        if end < n:
            lo = pos + SEGMENT_CHARS // 2
            cut = text.rfind("\n\n", lo, end)
            if cut < 0:
                cut = max(text.rfind(c, lo, end) for c in " \n\t")
            if cut > pos:
                end = cut
        yield pos, end
        pos = end


def _strength(text: str, a: int, b: int) -> int:
    """Strength of the boundary formed by the gap text[a:b]."""
    if a == b:
        return SENTENCE  # CJK full stop
    run = text[a:b]
    breaks = 0 if run == " " else len(_LINE_BREAK.findall(run))
    if breaks >= 2 or "\u2029" in run:
        return PARAGRAPH
    i = a - 1
    while i >= 0 and a - i <= 3 and text[i] in _CLOSERS:
        i -= 1
    if i >= 0 and text[i] in _SENTENCE_END:
        return SENTENCE
    return LINE if breaks else WORD


class _Atoms:
    """Parallel arrays: start, end, tokens, strength of the boundary after."""

    def __init__(self) -> None:
        self.start: list[int] = []
        self.end: list[int] = []
        self.n: list[int] = []
        self.strength: list[int] = []

    def add(self, a: int, b: int, n: int, strength: int) -> None:
        self.start.append(a)
        self.end.append(b)
        self.n.append(n)
        self.strength.append(strength)


def _atoms(text: str, lo: int, hi: int, tokens: _Tokens, max_tokens: int,
           cancel: Optional[CancelToken] = None) -> _Atoms:
    """Atoms of text[lo:hi]. Only the gaps that may end a sentence are visited (_sentence_gaps); a sentence's
    words are looked at only when it is over the limit, so prose costs a step per sentence, not per word."""
    sentences = _Atoms()  # their counts below, in one call
    lead = _GAP.match(text, lo, hi)
    pos = lead.end() if lead else lo  # the first word's start
    for step, (a, b) in enumerate(_sentence_gaps(text, lo, hi)):
        _check(cancel, step)
        if a <= pos:  # the gap the region starts with
            continue
        strength = _strength(text, a, b)
        if strength >= LINE:
            sentences.add(pos, a, 0, strength)
            pos = b
    end = hi
    while end > pos and text[end - 1].isspace():  # a gap at the end is no word
        end -= 1
    if end > pos:
        sentences.add(pos, end, 0, PARAGRAPH)
    sentences.n = tokens.counts(sentences.start, sentences.end)
    if max(sentences.n, default=0) <= max_tokens:  # the usual case: each sentence is an atom
        return sentences
    atoms = _Atoms()
    for a, b, n, strength in zip(sentences.start, sentences.end, sentences.n, sentences.strength, strict=True):
        _sentence(atoms, text, tokens, a, b, n, strength, max_tokens, cancel)
    return atoms


def _sentence_gaps(text: str, lo: int, hi: int) -> list[tuple[int, int]]:
    """The gaps of text[lo:hi] that may end a sentence, in order, each whole as _GAP finds it (a whitespace run
    from its first character, cut at lo and hi; the empty gap after a CJK full stop)."""
    gaps: list[tuple[int, int]] = []  # in order: a match takes its whole whitespace run
    for m in _MAY_END.finditer(text, lo, hi):
        if m.start(2) >= 0:
            gaps.append(m.span(2))
        elif m.start(1) >= 0:
            a = m.start()
            while a > lo and text[a - 1].isspace():  # back to the run's start: runs are disjoint, so linear
                a -= 1
            gaps.append((a, m.end()))
        else:
            gaps.append((m.end(), m.end()))
    return gaps


def _sentence(atoms: _Atoms, text: str, tokens: _Tokens, a: int, b: int, n: int, strength: int, max_tokens: int,
              cancel: Optional[CancelToken]) -> None:
    """The sentence text[a:b] (no gap at either end, `n` word pieces), `strength` the boundary after it: one
    atom, or its words when it is over the limit."""
    if n <= max_tokens:
        atoms.add(a, b, n, strength)
        return
    words: list[tuple[int, int, int]] = []
    pos = a
    for step, m in enumerate(_GAP.finditer(text, a, b)):
        _check(cancel, step)
        ga, gb = m.span()
        if ga > pos:
            words.append((pos, ga, _strength(text, ga, gb)))
        pos = gb
    if pos < b:
        words.append((pos, b, strength))
    words[-1] = (words[-1][0], words[-1][1], strength)  # the sentence's own boundary
    for wa, wb, ws in words:
        _add_word(atoms, tokens, wa, wb, ws, max_tokens)


def _add_word(atoms: _Atoms, tokens: _Tokens, a: int, b: int, strength: int, max_tokens: int) -> None:
    n = tokens.count(a, b)
    if n <= max_tokens:
        atoms.add(a, b, n, strength)
        return
    bounds = [a, *tokens.starts_between(a, b), b]  # a huge "word": cut between its word pieces
    for x, y in pairwise(bounds):
        atoms.add(x, y, tokens.count(x, y), strength if y == b else PIECE)


def _pack(atoms: _Atoms, max_tokens: int, overlap: float) -> list[tuple[int, int]]:
    S, E, N, K = atoms.start, atoms.end, atoms.n, atoms.strength
    count = len(S)
    overlap_tokens = int(overlap * max_tokens)
    spans: list[tuple[int, int]] = []
    i = new = 0  # first atom of the passage, first atom not in the previous passage
    while i < count:
        j, total = i, 0
        while j < count and total + N[j] <= max_tokens:
            total += N[j]
            j += 1
        j = max(j, new + 1)  # an atom over the limit on its own: taken alone, split when verified
        k = j
        if j < count:  # full: end at the strongest boundary in the second half
            prefix, best = sum(N[i:new]), -1
            for c in range(new + 1, j + 1):
                prefix += N[c - 1]
                if prefix * 2 >= max_tokens and K[c - 1] >= best:
                    k, best = c, K[c - 1]
        spans.append((S[i], E[k - 1]))
        if k >= count:
            break
        budget = min(overlap_tokens, max_tokens - N[k])
        m, carried = k, 0
        while m - 1 > i and carried + N[m - 1] <= budget:
            carried += N[m - 1]
            m -= 1
        i, new = m, k
    return spans


def _trim(text: str, a: int, b: int) -> tuple[int, int]:
    while a < b and text[a].isspace():
        a += 1
    while b > a and text[b - 1].isspace():
        b -= 1
    return a, b


def _split_point(text: str, tokens: _Tokens, a: int, b: int) -> int:
    """A cut inside (a, b): whitespace near the middle, else a word-piece start, else the middle."""
    mid, quarter = (a + b) // 2, (b - a) // 4
    lo, hi = a + quarter, b - quarter
    candidates = []
    right = _WS.search(text, mid, hi)
    if right:
        candidates.append(right.start())
    left = max(text.rfind(c, lo, mid) for c in " \n\t")
    if left > a:
        candidates.append(left)
    if not candidates:
        candidates = [p for p in tokens.starts_between(a, b)]
    if not candidates:
        return mid
    return min(candidates, key=lambda p: abs(p - mid))


def _fit(text: str, tokens: _Tokens, spans: list[tuple[int, int]], token_offsets: TokenOffsets,
         max_tokens: int, cancel: Optional[CancelToken] = None,
         batch: Optional[TokenOffsetsBatch] = None) -> list[tuple[int, int]]:
    """Check every passage with the real tokenizer; split those over the limit until they fit.
    Round by round, so a batch tokenizer checks all passages of a round in one call."""
    def one_by_one(texts: list[str]) -> Iterator[list[tuple[int, int]]]:
        for t in texts:
            _check(cancel)  # one tokenizer call per passage: check each time
            yield token_offsets(t)

    tokenize = batch or one_by_one
    out: list[tuple[int, int]] = [s for s in spans if s[1] - s[0] <= 1]
    todo = [s for s in spans if s[1] - s[0] > 1]
    while todo:
        _check(cancel)
        counts = [len(o) for o in tokenize([text[a:b] for a, b in todo])]
        over: list[tuple[int, int]] = []
        for (a, b), n in zip(todo, counts, strict=True):
            if n <= max_tokens:
                out.append((a, b))
                continue
            cut = _split_point(text, tokens, a, b)
            over += [_trim(text, a, cut), _trim(text, cut, b)]
        out += [s for s in over if s[1] - s[0] <= 1]
        todo = [s for s in over if s[1] - s[0] > 1]
    return out


def _cut_at_separators(text: str, a: int, b: int) -> bool:
    """text[a:b] starts and ends beside a separator (or the text's own ends)."""
    return (a == 0 or text[a - 1] in SEPARATORS) and (b == len(text) or text[b] in SEPARATORS)


def passage_char_cap(max_tokens: int) -> int:
    return max_tokens * CHARS_PER_TOKEN_CAP


def _cap_chars(text: str, spans: list[tuple[int, int]], max_chars: int) -> list[tuple[int, int]]:
    """Split every passage longer than `max_chars` characters: at the last whitespace in the second half
    of the allowed length, else (a run without spaces) hard at `max_chars`."""
    out: list[tuple[int, int]] = []
    for a, b in spans:
        while b - a > max_chars:
            limit = a + max_chars
            cut = max(text.rfind(c, a + max_chars // 2, limit) for c in " \n\t")
            cut = cut if cut > a else limit
            out.append(_trim(text, a, cut))
            a, _ = _trim(text, cut, b)
        if b > a:
            out.append((a, b))
    return out


def _regions(doc: Document) -> list[tuple[int, int]]:
    """Page boundaries are hard cuts, so the page shown with a passage holds all of it.
    The regions partition the whole text: characters outside any page span are not lost."""
    cuts = sorted({p.start for p in doc.pages if 0 < p.start < len(doc.text)})
    bounds = [0, *cuts, len(doc.text)]
    return list(pairwise(bounds))


def chunk_document(doc: Document, token_offsets: TokenOffsets, max_tokens: int = 200,
                   overlap: float = 0.2, cancel: Optional[CancelToken] = None,
                   max_chars: Optional[int] = None, *,
                   token_offsets_batch: Optional[TokenOffsetsBatch] = None,
                   words_alone: bool = False, token_bounds: Optional[TokenBounds] = None,
                   bounds: Optional[tuple[np.ndarray, np.ndarray]] = None) -> list[ChunkSpan]:
    """Passages of `doc` with at most `max_tokens` word pieces and `max_chars` characters each (default
    `passage_char_cap(max_tokens)`), covering all its non-blank text. Raises Cancelled when `cancel` fires.
    `token_offsets_batch` (optional) tokenizes many texts per call, e.g. BiEncoder.token_offsets_batch.
    `words_alone`: the tokenizer reads the text between separators on its own (BiEncoder.words_alone): the
    same passages with fewer tokenizer calls. `token_bounds` (optional, e.g. BiEncoder.token_bounds): step 1's
    positions as arrays, the same passages for less work. `bounds`: those arrays for the whole text, already
    made (ChunkingTokenizer.token_bounds_many, for a text within one segment: SEGMENT_CHARS)."""
    if max_tokens < 1:
        raise ValueError("max_tokens must be >= 1")
    if not 0.0 <= overlap < 1.0:
        raise ValueError("overlap must be in [0, 1)")
    text = doc.text
    if not text or text.isspace():
        return []
    if bounds is not None and len(text) > SEGMENT_CHARS:
        raise ValueError("bounds are for a text within one tokenizer segment")
    tokens = _Tokens(text, token_offsets, cancel, token_bounds, bounds)
    packed: list[tuple[int, int]] = []
    for lo, hi in _regions(doc):
        _check(cancel)
        packed += _pack(_atoms(text, lo, hi, tokens, max_tokens, cancel), max_tokens, overlap)
    # Characters first: a cut run can tokenize into more pieces than the whole did ([UNK]), and _fit
    # then splits it again; _fit's splits only ever shorten passages.
    packed = _cap_chars(text, packed, max_chars or passage_char_cap(max_tokens))
    fitting: list[tuple[int, int]] = []
    if words_alone:  # step 4 without the tokenizer where the count from step 1 is its answer
        counts = tokens.counts([a for a, _ in packed], [b for _, b in packed])
        known = [n <= max_tokens and _cut_at_separators(text, a, b) for (a, b), n in zip(packed, counts, strict=True)]
        fitting = [s for s, k in zip(packed, known, strict=True) if k]
        packed = [s for s, k in zip(packed, known, strict=True) if not k]
    spans = fitting + _fit(text, tokens, packed, token_offsets, max_tokens, cancel, token_offsets_batch)
    spans = sorted(set(spans))  # a re-split passage can end after the next one starts
    return [ChunkSpan(i, a, b, text[a:b], doc.page_at(a)) for i, (a, b) in enumerate(spans)]
