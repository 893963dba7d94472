"""Word pieces of a text put together from its words' pieces, each distinct word tokenized once.

For a tokenizer that reads the text between two separators on its own (reads_words_alone, below), a word
has the same pieces wherever it stands, so the offsets of a whole text are its words' offsets moved to where
the words start: exactly what tokenizing the text gives, with the tokenizer run only on words not seen yet.
Real text repeats its words (Zipf), so a sync of many files tokenizes a small share of what it reads.
"""

from __future__ import annotations

import re
from typing import Callable, Sequence

from ..base.separators import SEPARATORS

__all__ = ["WordPieces", "reads_words_alone"]

Offsets = list[tuple[int, int]]
_WORD = re.compile("[^" + re.escape("".join(sorted(SEPARATORS))) + "]+")
MAX_WORDS = 100_000  # distinct words remembered (~19 MB for SciFact's); past it the memory starts again
LONGEST_REMEMBERED = 64  # characters; a longer "word" (a URL, a hash) is rarely seen twice


class WordPieces:
    """`offsets(text)` like the tokenizer's, from `tokenize` (a batch tokenizer's offsets, no special tokens)
    run on the words not remembered. Not thread-safe: its owner calls it under a lock."""

    def __init__(self, tokenize: Callable[[Sequence[str]], list[Offsets]], max_words: int = MAX_WORDS) -> None:
        self._tokenize = tokenize
        self._max_words = max_words
        # word -> its pieces' start, end, start, end, ...: flat, about half the memory of (start, end) pairs
        self._known: dict[str, tuple[int, ...]] = {}

    def offsets(self, text: str) -> Offsets:
        words = [(m.start(), m.group()) for m in _WORD.finditer(text)]
        known = self._known
        if len(known) > self._max_words:
            known.clear()
        new = list(dict.fromkeys(w for _, w in words if w not in known))
        fresh = {w: tuple(x for piece in pieces for x in piece)
                 for w, pieces in zip(new, self._tokenize(new), strict=True)} if new else {}
        for w, flat in fresh.items():
            if len(w) <= LONGEST_REMEMBERED:
                known[w] = flat
        out: Offsets = []
        for base, w in words:
            got = fresh.get(w)
            it = iter(got if got is not None else known[w])
            out += [(base + s, base + e) for s, e in zip(it, it, strict=False)]  # pairs of one iterator
        return out


# Normalizers that work character by character (a cut at whitespace changes nothing on either side) and
# pre-tokenizers that split at every whitespace character: with only these, the tokenizer's model never sees
# across whitespace.
_CHAR_NORMALIZERS = frozenset({"BertNormalizer", "Lowercase", "NFD", "NFKD", "StripAccents", "Strip"})
_WHITESPACE_SPLITTERS = frozenset({"BertPreTokenizer", "Whitespace", "WhitespaceSplit"})
_SPLITTERS_AFTER = frozenset({"BertPreTokenizer", "Whitespace", "WhitespaceSplit", "Punctuation", "Digits"})


def reads_words_alone(tokenizer) -> bool:
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

    def parts(node) -> list[str]:
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
