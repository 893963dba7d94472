"""The read-ahead worker process's side (read_ahead.py): the sync's own read, extract and chunk steps, run on a
tokenizer rebuilt from the encoder's chunking tokenizer (no model, no torch). Anything but a clean result is
handed back as None: the sync then reads that file itself, with its own error handling."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Optional, Sequence

import numpy as np

__all__ = ["start", "read_group", "read_one", "Read", "ChunkingTokenizer"]

_STATE: dict = {}


@dataclass
class Read:
    """One file read by the worker: its sha256 and, unless it is unchanged (same sha as the stored row), its
    passages exactly as passages_of gives them."""

    sha: str
    kind: str = ""
    title: str = ""
    spans: Optional[list] = None  # None: not extracted (the sha matched the stored one)
    hashes: Optional[list] = None
    ocr: Optional[str] = None


class ChunkingTokenizer:
    """The chunking side of BiEncoder (token_offsets, token_bounds, token_offsets_batch, words_alone,
    max_seq_length) over the same tokenizer: the same word pieces, so the same passages."""

    def __init__(self, tokenizer_json: str, words_alone: bool, max_seq_length: int) -> None:
        from tokenizers import Tokenizer

        from ...models.word_pieces import WordPieces

        self._tok = Tokenizer.from_str(tokenizer_json)
        self._tok.no_truncation()
        self._tok.no_padding()
        self._lock = threading.Lock()
        self.words_alone = words_alone
        self.max_seq_length = max_seq_length
        self._word_pieces = WordPieces(self._tokenize_offsets) if words_alone else None

    def _tokenize_offsets(self, texts: Sequence[str]) -> list[list[tuple[int, int]]]:
        return [enc.offsets for enc in self._tok.encode_batch(list(texts), add_special_tokens=False)]

    def token_offsets(self, text: str) -> list[tuple[int, int]]:
        if self._word_pieces is not None:
            with self._lock:
                return self._word_pieces.offsets(text)
        return self.token_offsets_batch([text])[0]

    def token_bounds(self, text: str) -> tuple[np.ndarray, np.ndarray]:
        if self._word_pieces is not None:
            with self._lock:
                return self._word_pieces.bounds(text)
        pairs = np.asarray(self.token_offsets(text), dtype=np.int64).reshape(-1, 2)
        return pairs[:, 0], np.maximum(pairs[:, 0], pairs[:, 1] - 1)

    def token_offsets_batch(self, texts: Sequence[str]) -> list[list[tuple[int, int]]]:
        texts = list(texts)
        if not texts:
            return []
        with self._lock:
            return self._tokenize_offsets(texts)

    def remember_joined(self, prefix, texts, joined) -> None:
        """Nothing to keep: the ids cache for phase 2 lives in the sync's own process."""


class _NoBatch:
    """passages_of's batcher where nothing is batched: a cancel inside the chunking just stops this file."""

    def __init__(self, cancel) -> None:
        self.cancel = cancel

    def flush_and_stop(self) -> None:
        from ...base.errors import Cancelled

        raise Cancelled("cancelled")


def start(config, spec: tuple[str, bool, int]) -> bool:
    """The worker's first task: the config and the chunking tokenizer; done once the worker is ready."""
    _STATE["config"] = config
    _STATE["encoder"] = ChunkingTokenizer(*spec)
    return True


def read_group(paths: Sequence[str], old_shas: Sequence[Optional[str]]) -> list:
    config, encoder = _STATE["config"], _STATE["encoder"]
    return [read_one(p, s, config, encoder) for p, s in zip(paths, old_shas, strict=True)]


def read_one(path: str, old_sha: Optional[str], config, encoder, cancel=None):
    """The file's Read, or None (any error: the sync reads it again itself, with its own error handling)."""
    from ...base.hashing import file_sha256, file_sha256_and_bytes
    from ...ingest.extractors import extract, takes_data
    from ..ocr.text_pass import pdf_waits_for_ocr
    from .passages import passages_of

    max_bytes = int(config.scan.max_file_mb * 2**20)
    where = Path(path)
    try:
        sha, data = file_sha256_and_bytes(where, max_bytes) if takes_data(where) else (file_sha256(where), None)
        if old_sha is not None and sha == old_sha:
            return Read(sha)  # touched, not changed: the sync only updates its stat
        doc = extract(where, max_bytes=max_bytes, max_chars=config.scan.max_text_chars, cancel=cancel, data=data)
        title, spans, hashes = passages_of(doc, encoder, config, _NoBatch(cancel))
        return Read(sha, doc.kind or "", title, spans, hashes, pdf_waits_for_ocr(doc, config))
    except Exception:  # the sync reads it again itself and handles the error as it always has
        return None
