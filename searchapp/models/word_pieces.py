"""Word pieces of a text put together from its words' pieces, each distinct word tokenized once.

For a tokenizer that reads the text between two separators on its own (reads_words_alone, below), a word
has the same pieces wherever it stands, so the offsets of a whole text are its words' offsets moved to where
the words start: exactly what tokenizing the text gives, with the tokenizer run only on words not seen yet.
Real text repeats its words (Zipf), so a sync of many files tokenizes a small share of what it reads.
"""

from __future__ import annotations

import re
from itertools import chain, repeat
from operator import is_
from typing import Any, Callable, Mapping, Optional, Sequence

import numpy as np

from ..base.separators import SEPARATORS

__all__ = ["WordPieces", "reads_words_alone"]

Offsets = list[tuple[int, int]]
_WORD = re.compile("[^" + re.escape("".join(sorted(SEPARATORS))) + "]+")
_SPLIT = re.compile("(" + _WORD.pattern + ")")  # separators, word, separators, word, ..., separators
# A code point's class for _word_starts: 0 in a word, 1 a separator, 2 whitespace to str.split() that is no
# separator (str.split() would cut a word there). No code point above U+3000 is whitespace.
_LAST_SPACE = 0x3000
_CLASS = np.zeros(_LAST_SPACE + 2, dtype=np.uint8)
_CLASS[[ord(c) for c in SEPARATORS]] = 1
_CLASS[[c for c in range(_LAST_SPACE + 1) if chr(c).isspace() and chr(c) not in SEPARATORS]] = 2
MAX_WORDS = 100_000  # distinct words remembered (~19 MB for SciFact's); past it the memory starts again
# Distinct words per tokenizer text: the tokenizer's cost per word grows with its text's length (98,565 words
# in one text: 1.5 CPU-s; in texts of 200: 0.65; in texts of 50: 0.8, its per-call cost showing), AVX2-only EPYC
_SLICE_WORDS = 200
LONGEST_REMEMBERED = 64  # characters; a longer "word" (a URL, a hash) is rarely seen twice
_INT32 = 4  # bytes


class WordPieces:
    """`offsets(text)` like the tokenizer's, from `tokenize` (a batch tokenizer's offsets, no special tokens)
    run on the words not remembered, joined by spaces. Not thread-safe: its owner calls it under a lock."""

    def __init__(self, tokenize: Callable[[Sequence[str]], list[Offsets]], max_words: int = MAX_WORDS) -> None:
        self._tokenize = tokenize
        self._max_words = max_words
        # word -> its pieces' start, end, start, end, ... as int32 bytes: compact, and joined at C speed (bounds)
        self._known: dict[str, bytes] = {}
        # The words tokenized here since `learned` last gave them, for another process's WordPieces (share())
        self._learned: Optional[dict[str, bytes]] = None

    def share(self) -> None:
        """Keep the words this tokenizes from now on for `learned`: two processes that chunk the same folder
        (the sync and its read-ahead worker) then tokenize each word once between them, not once each."""
        if self._learned is None:
            self._learned = {}

    def learned(self) -> dict[str, bytes]:
        """The words tokenized here since the last call (share() on; else none), with their pieces."""
        got, self._learned = self._learned or {}, ({} if self._learned is not None else None)
        return got

    def remember(self, pieces: Mapping[str, bytes]) -> None:
        """Take words another WordPieces of the same tokenizer has tokenized (its `learned`): a word has the same
        pieces wherever it is tokenized, so they are remembered as if tokenized here (and not given back)."""
        self._known.update(pieces)

    def offsets(self, text: str) -> Offsets:
        words = [(m.start(), m.group()) for m in _WORD.finditer(text)]
        fresh = self._learn([w for _, w in words])
        known = self._known
        out: Offsets = []
        for base, w in words:
            got = fresh.get(w)
            it = iter(memoryview(got if got is not None else known[w]).cast("i"))
            out += [(base + s, base + e) for s, e in zip(it, it, strict=False)]  # pairs of one iterator
        return out

    def bounds(self, text: str) -> tuple[np.ndarray, np.ndarray]:
        """The same word pieces as `offsets` gives, as two int64 arrays: each piece's start, and its last
        character (its start for an empty piece), i.e. max(start, end - 1). Put together with numpy: no
        Python step per word or piece, which is what a chunker of many small files pays for most."""
        words, word_starts = _words(text)
        flat = self._pieces(words)
        sizes = np.fromiter(map(len, flat), dtype=np.int64, count=len(flat)) // _INT32
        pairs = np.frombuffer(b"".join(flat), dtype=np.int32).astype(np.int64)
        pairs += np.repeat(word_starts, sizes)
        starts = pairs[0::2]
        return starts, np.maximum(starts, pairs[1::2] - 1)

    def bounds_many(self, texts: Sequence[str]) -> list[tuple[np.ndarray, np.ndarray]]:
        """`bounds` of each text, from one `bounds` of them all joined by line breaks: no word reaches across a
        separator, so each text's pieces are the joined text's between its ends, moved back to its own start.
        One tokenizer call and one pass of numpy for a group of small files, not one of each per file."""
        if not texts:
            return []
        starts, keys = self.bounds("\n".join(texts))
        lengths = np.fromiter(map(len, texts), dtype=np.int64, count=len(texts)) + 1
        bases = np.concatenate(([0], np.cumsum(lengths)[:-1]))
        cuts = np.searchsorted(starts, bases).tolist() + [len(starts)]
        return [(starts[a:b] - base, keys[a:b] - base)
                for a, b, base in zip(cuts[:-1], cuts[1:], bases.tolist(), strict=True)]

    def _pieces(self, words: list[str]) -> list[bytes]:
        """Each word's pieces (as `_known` keeps them), in order: one look-up of every word, then the words not
        remembered tokenized together and put in their places (not a set of the words first: that hashed and
        looked up every word twice)."""
        known = self._known
        if len(known) > self._max_words:
            known.clear()
        got: list[Any] = list(map(known.get, words))  # bytes, None where not remembered
        missing = np.flatnonzero(np.fromiter(map(is_, got, repeat(None)), dtype=bool, count=len(got))).tolist()
        if not missing:
            return got
        fresh = self._read(sorted({words[i] for i in missing}))
        self._keep(fresh)
        for i in missing:
            got[i] = fresh[words[i]]
        return got

    def _learn(self, words: list[str]) -> dict[str, bytes]:
        """Tokenize the words of `words` not remembered, remember those short enough; returns them all."""
        known = self._known
        if len(known) > self._max_words:
            known.clear()
        new = sorted(set(words).difference(known))
        fresh = self._read(new) if new else {}
        self._keep(fresh)
        return fresh

    def _keep(self, fresh: dict[str, bytes]) -> None:
        """Remember the words just tokenized (those short enough), and keep them for `learned` when shared."""
        kept = {w: flat for w, flat in fresh.items() if len(w) <= LONGEST_REMEMBERED}
        self._known.update(kept)
        if self._learned is not None:
            self._learned.update(kept)

    def _read(self, new: list[str]) -> dict[str, bytes]:
        """The pieces of each word of `new`, from a tokenization of them joined by spaces, where each word is read
        alone too: one batch of texts of _SLICE_WORDS words each, not a batch item per word (SciFact's 10,000
        files: 1.0 -> 0.4 CPU-seconds for their 98,565 distinct words) nor one long text (slower per word)."""
        slices = [" ".join(new[i : i + _SLICE_WORDS]) for i in range(0, len(new), _SLICE_WORDS)]
        got = self._tokenize(slices)
        # Each slice's offsets moved to where it starts in the slices joined by spaces: the offsets of that one text
        count = sum(map(len, got))
        pairs = np.fromiter(chain.from_iterable(chain.from_iterable(got)), dtype=np.int64,
                            count=2 * count).reshape(-1, 2)
        slice_starts = np.cumsum([0] + [len(t) + 1 for t in slices[:-1]])
        pairs += np.repeat(slice_starts, list(map(len, got)))[:, None]
        starts = np.cumsum([0] + [len(w) + 1 for w in new[:-1]])
        # a piece belongs to the word its last character is in (an empty piece: the word it stands in)
        owner = np.searchsorted(starts, np.maximum(pairs[:, 0], pairs[:, 1] - 1), side="right") - 1
        pairs -= starts[owner][:, None]
        data = pairs.astype(np.int32).tobytes()
        cuts = np.concatenate(([0], np.cumsum(np.bincount(owner, minlength=len(new))))) * 2 * _INT32
        return {w: data[a:b] for w, a, b in zip(new, cuts[:-1].tolist(), cuts[1:].tolist(), strict=True)}


def _words(text: str) -> tuple[list[str], np.ndarray]:
    """The words of `text` (runs between separators) and where each starts. str.split() finds them at C speed
    and the starts come from a table look-up of every code point, unless the text holds whitespace that is no
    separator (then a regex split, as many times slower)."""
    if text.isascii():
        classes = _CLASS[np.frombuffer(text.encode("ascii"), dtype=np.uint8)]
    else:
        points = np.frombuffer(text.encode("utf-32-le"), dtype=np.uint32)
        classes = _CLASS[np.minimum(points, _LAST_SPACE + 1)]
    if classes.size and classes.max() < 2:
        sep = classes.view(bool)
        first = ~sep
        first[1:] &= sep[:-1]  # a word's first character: not a separator, after one (or the text's start)
        return text.split(), np.flatnonzero(first)
    parts = _SPLIT.split(text)  # separators, word, separators, word, ..., separators
    ends = np.cumsum(np.fromiter(map(len, parts), dtype=np.int64, count=len(parts)))
    return parts[1::2], ends[0:-1:2]  # a word starts where the separators before it end


# Normalizers that work character by character (a cut at whitespace changes nothing on either side) and
# pre-tokenizers that split at every whitespace character: with only these, the tokenizer's model never sees
# across whitespace.
_CHAR_NORMALIZERS = frozenset({"BertNormalizer", "Lowercase", "NFD", "NFKD", "StripAccents", "Strip"})
_WHITESPACE_SPLITTERS = frozenset({"BertPreTokenizer", "Whitespace", "WhitespaceSplit"})
_SPLITTERS_AFTER = frozenset({"BertPreTokenizer", "Whitespace", "WhitespaceSplit", "Punctuation", "Digits"})


def reads_words_alone(tokenizer: Any) -> bool:
    """Whether `tokenizer` (a tokenizers.Tokenizer) reads the text between two separators (space, tab, line
    break, a Unicode space separator: base/separators.py) on its own, so a span of text that
    starts and ends beside one has exactly the word pieces the whole text has there (BERT's WordPiece: yes; a
    tokenizer that marks a word's leading space, or composes characters (NFC), may not). Decided from its
    pipeline's declared parts, never from a probe: an unknown part says no."""
    import json

    try:
        spec = json.loads(tokenizer.to_str())
    except Exception:
        return False

    def parts(node: Any) -> list[str]:
        if node is None:
            return []
        if node.get("type") == "Sequence":
            return [t for n in node.get("normalizers") or node.get("pretokenizers") or [] for t in parts(n)]
        return [str(node.get("type"))]

    normalizers, splitters = parts(spec.get("normalizer")), parts(spec.get("pre_tokenizer"))
    added = spec.get("added_tokens") or []
    return (all(n in _CHAR_NORMALIZERS for n in normalizers)
            and bool(splitters) and splitters[0] in _WHITESPACE_SPLITTERS
            and all(p in _SPLITTERS_AFTER for p in splitters)
            # a special token holding a space, or taking the spaces beside it, reaches across one
            and not any(t.get("lstrip") or t.get("rstrip") or any(ch.isspace() for ch in t.get("content", ""))
                        for t in added))
