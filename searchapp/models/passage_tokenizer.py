"""Passage texts -> model inputs (ids, attention mask, token types), for `encode`.

A passage's ids come from what the chunker kept (kept_ids.py) where it can; the rest are tokenized in slices,
one slice per hold of the tokenizer lock (fast tokenizers keep truncation/padding state and fail when used from
two threads at once), so whoever else waits for it waits for one slice, not a whole sync. The slices go through
a private Rust tokenizer that truncates as transformers' call does (its own `encode_batch`, without
transformers' per-text conversion in Python) when probe texts at load show it gives the same model inputs;
through transformers' call otherwise.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any, Optional, Sequence

from .kept_ids import KeptIdsTokenizer
from .transformer import model_inputs

if TYPE_CHECKING:
    from tokenizers import Encoding, Tokenizer

__all__ = ["PassageTokenizer", "ENCODING_FIELDS"]

# Texts tokenized per lock hold: a query waiting behind a 10,000-text sync waits for one slice, not all.
_TOKENIZE_SLICE = 1024
# Model input name -> the field of a tokenizers.Encoding that holds it.
ENCODING_FIELDS = {"input_ids": "ids", "attention_mask": "attention_mask", "token_type_ids": "type_ids"}


class PassageTokenizer(KeptIdsTokenizer):
    """KeptIdsTokenizer that turns passage texts into model inputs (BiEncoder sets the attributes below)."""

    passage_prompt: str
    _lock: threading.Lock  # fast tokenizers keep truncation/padding state: one user at a time
    _bulk: Optional["Tokenizer"]  # used under _lock, like _tokenizer

    def _tokenize(self, texts: list[str]) -> dict[str, list[list[int]]]:
        """Model inputs of `texts` (one list of rows per input name): ids the chunker already computed where it
        did, a batch tokenization otherwise."""
        from tokenizers import Encoding

        names = self._input_names
        cols: dict[str, list[Any]] = {k: [None] * len(texts) for k in names}
        missing: Sequence[int] = range(len(texts))
        if self._reuse_ids:
            with self._offsets_lock:
                cached = [self._ids_cache.pop(t, None) for t in texts]
            for i, enc in enumerate(cached):
                if enc is not None:
                    if self._prompt_head is not None:
                        enc = Encoding.merge([self._prompt_head, enc], growing_offsets=True)
                    for k, v in self._finish(enc, names).items():
                        cols[k][i] = v
            missing = [i for i, enc in enumerate(cached) if enc is None]
        for start in range(0, len(missing), _TOKENIZE_SLICE):
            part = missing[start : start + _TOKENIZE_SLICE]
            got = self._tokenize_now([self.passage_prompt + texts[i] for i in part])
            for k in names:
                col, new = cols[k], got[k]
                for j, i in enumerate(part):
                    col[i] = new[j]
        return cols

    def _tokenize_now(self, texts: list[str]) -> dict[str, list[list[int]]]:
        """One batch tokenization: the Rust tokenizer's own batch call where it gives what transformers' does
        (checked at load), which skips transformers' per-text conversion (0.8 of 1.4 s host time for 20,000
        passages on an H100's host, 2026-11-26); transformers' call otherwise."""
        with self._lock:
            if self._bulk is not None:
                return self._columns(self._bulk.encode_batch(texts))
            enc = self._tokenizer(texts, truncation=True, max_length=self.max_seq_length, padding=False)
        return model_inputs(self._tokenizer, enc)

    def _bulk_tokenizer(self) -> Optional["Tokenizer"]:
        """A private Rust tokenizer that truncates as transformers' call does, if it gives the same model inputs on
        probe texts (short, long, non-Latin, empty); None keeps transformers' call."""
        from .shared_tokenizers import truncating

        try:  # shared, never changed (shared_tokenizers.py)
            tok = truncating(self._tokenizer.backend_tokenizer, self.max_seq_length,
                             direction=self._tokenizer.truncation_side)
            return tok if self._bulk_matches(tok) else None
        except Exception:  # transformers' call tokenizes instead
            return None

    def _bulk_matches(self, tok: "Tokenizer") -> bool:
        """Whether `tok.encode_batch` gives transformers' model inputs on probe texts (short, long, non-Latin,
        empty)."""
        probes = ["A probe.", "Probe passage: long enough to be truncated, with numbers 12,345.6. " * 80,
                  "Ünïcödé — naïve café, 東京, emoji 🙂.", ""]
        mine = self._columns(tok.encode_batch(probes))
        ref = model_inputs(self._tokenizer, self._tokenizer(probes, truncation=True, max_length=self.max_seq_length,
                                                            padding=False))
        return set(ref) == set(mine) and all(list(map(list, ref[k])) == mine[k] for k in ref)

    def _columns(self, encs: Sequence["Encoding"]) -> dict[str, list[list[int]]]:
        """Rust encodings -> the model's inputs, one list of rows per input name."""
        return {k: [getattr(e, ENCODING_FIELDS[k]) for e in encs] for k in self._input_names}
