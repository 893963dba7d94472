"""The chunker's side of a bi-encoder: word-piece offsets of whole texts, with no model and no torch.

BiEncoder builds on it (adding the ids it keeps for `encode`); the sync's read-ahead worker process uses it
alone, rebuilt from `chunking_spec()`, so both chunk with the same word pieces and make the same passages.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Mapping, Optional, Sequence

import numpy as np

from .shared_tokenizers import fact_of, json_of, shared_tokenizer
from .word_pieces import WordPieces, reads_words_alone

if TYPE_CHECKING:
    from tokenizers import Tokenizer

__all__ = ["ChunkingTokenizer"]


class ChunkingTokenizer:
    """token_offsets, token_bounds, token_offsets_batch, words_alone and max_seq_length over a fast tokenizer
    with truncation and padding off (offsets cover the whole text, no "sequence too long" warnings, no race with
    an encoding lock), shared with every other reader of the same tokenizer.json in the process and never
    changed (shared_tokenizers.py)."""

    def __init__(self, tokenizer_json: str, max_seq_length: int, words_alone: Optional[bool] = None) -> None:
        self._offsets_tokenizer = shared_tokenizer(tokenizer_json)
        self._offsets_lock = threading.Lock()
        self.max_seq_length = max_seq_length
        self.words_alone = fact_of(self._offsets_tokenizer, "words_alone", reads_words_alone) \
            if words_alone is None else words_alone
        # A whole text's pieces from its words' (each tokenized once): only where words are read alone.
        self._word_pieces = WordPieces(self._tokenize_offsets) if self.words_alone else None

    @property
    def backend(self) -> "Tokenizer":
        """The tokenizers.Tokenizer it cuts with, to read (models/tokenizer_file.py checks it): never change it."""
        return self._offsets_tokenizer

    def reads_whole(self, word: str) -> bool:
        """Whether the tokenizer reads `word` as one piece of its vocabulary: a word it splits ("bafa" is
        "ba ##fa") is one the model learned nothing of as a whole (library/search/rare_words.py). Read as a word
        after another, as in a text: a byte-level BPE that marks a word's leading space splits "grant" alone
        ("gr ant") but reads " grant" whole ("Ġgrant"); the pieces counted are those ending inside the second.
        Asked by a search, so not under _offsets_lock, which a sync's chunking holds for a whole segment: the lock
        guards the word-piece and ids caches, and the tokenizer itself is only read after __init__."""
        second = len(word) + 1
        offsets = self._offsets_tokenizer.encode(f"{word} {word}", add_special_tokens=False).offsets
        return sum(1 for _, end in offsets if end > second) == 1

    def chunking_spec(self) -> tuple[str, int, bool]:
        """(the tokenizer as JSON, max_seq_length, words_alone): ChunkingTokenizer(*spec) in another process
        chunks exactly as this one does (the sync's read-ahead worker, library/sync/read_ahead.py)."""
        return json_of(self._offsets_tokenizer), int(self.max_seq_length), bool(self.words_alone)

    def token_offsets(self, text: str) -> list[tuple[int, int]]:
        """Character spans [start, end) of the word pieces of `text`: no special tokens, no truncation. Where
        the tokenizer reads words alone, put together from its words' pieces (word_pieces.py), which are
        remembered across calls: the chunker's pass over a whole file tokenizes only words not seen before."""
        if self._word_pieces is not None:
            with self._offsets_lock:
                return self._word_pieces.offsets(text)
        return self.token_offsets_batch([text])[0]

    def token_bounds(self, text: str) -> tuple[np.ndarray, np.ndarray]:
        """`token_offsets` as the chunker counts them, two int64 arrays: each word piece's start and its last
        character (max(start, end - 1)). Where words are read alone, put together without a Python step per
        word (WordPieces.bounds)."""
        if self._word_pieces is not None:
            with self._offsets_lock:
                return self._word_pieces.bounds(text)
        pairs = np.asarray(self.token_offsets(text), dtype=np.int64).reshape(-1, 2)
        return pairs[:, 0], np.maximum(pairs[:, 0], pairs[:, 1] - 1)

    def token_bounds_many(self, texts: Sequence[str]) -> Optional[list[tuple[np.ndarray, np.ndarray]]]:
        """`token_bounds` of each of `texts` (short ones: each within one of the chunker's tokenizer segments,
        chunking.SEGMENT_CHARS), put together in one pass for them all; None where words are not read alone
        (then each text's own call is the only exact answer)."""
        if self._word_pieces is None:
            return None
        with self._offsets_lock:
            return self._word_pieces.bounds_many(texts)

    def share_pieces(self) -> None:
        """Keep the words tokenized from now on for `learned_pieces` (WordPieces.share): the sync and its
        read-ahead worker hand them to each other, so each distinct word is tokenized once between the two."""
        if self._word_pieces is not None:
            with self._offsets_lock:
                self._word_pieces.share()

    def learned_pieces(self) -> dict[str, bytes]:
        """The words tokenized since the last call, with their pieces ({} unless share_pieces() was called)."""
        if self._word_pieces is None:
            return {}
        with self._offsets_lock:
            return self._word_pieces.learned()

    def remember_pieces(self, pieces: Mapping[str, bytes]) -> None:
        """Take the `learned_pieces` of a ChunkingTokenizer of the same spec (chunking_spec) in another process."""
        if self._word_pieces is not None and pieces:
            with self._offsets_lock:
                self._word_pieces.remember(pieces)

    def _tokenize_offsets(self, texts: Sequence[str]) -> list[list[tuple[int, int]]]:
        """Offsets only (the caller holds _offsets_lock)."""
        return [enc.offsets for enc in self._offsets_tokenizer.encode_batch(list(texts), add_special_tokens=False)]

    def token_offsets_batch(self, texts: Sequence[str]) -> list[list[tuple[int, int]]]:
        """`token_offsets` of many texts in one call (the tokenizers library runs a batch in parallel)."""
        texts = list(texts)
        if not texts:
            return []
        with self._offsets_lock:
            return self._tokenize_offsets(texts)

    def remember_joined(self, prefix: str, texts: Sequence[str], joined: Sequence[str]) -> None:
        """Nothing to keep here: BiEncoder keeps the ids of passages for `encode`."""
