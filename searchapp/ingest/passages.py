"""Where a document becomes passages: a file's passages as phase 1 stores them (its title for the bi-encoder, the
chunks, the hashes of their model inputs). The one code the sync's words pass, the OCR step and the read-ahead
worker (library/sync/words_pass.py, library/ocr/step.py, library/sync/read_ahead_worker.py) all run."""

from __future__ import annotations

from typing import Optional, Protocol, Sequence

import numpy as np

from ..base.config import Config
from ..base.errors import Cancelled
from ..base.hashing import text_hash
from ..base.progress import CancelToken
from ..base.types import ChunkSpan, Document
from .chunking import chunk_document
from .passage_context import MAX_TITLE_TOKENS, file_title, model_input

__all__ = ["passages_of", "PassageTokenizer", "PassageBatcher"]


class PassageTokenizer(Protocol):
    """What cutting a file into passages asks of the encoder: the bi-encoder in the sync's process, or the
    read-ahead worker's models.ChunkingTokenizer. An
    encoder may also have `words_alone` and `token_bounds` (chunking.chunk_document's), read when present."""

    max_seq_length: int

    def token_offsets(self, text: str) -> list[tuple[int, int]]: ...

    def token_offsets_batch(self, texts: Sequence[str]) -> list[list[tuple[int, int]]]: ...

    def remember_joined(self, prefix: str, texts: Sequence[str], joined: Sequence[str]) -> None: ...


class PassageBatcher(Protocol):
    """The sync's batcher, as far as a cancel inside the chunking goes: its token, and what commits the files
    finished before the cancel (and then raises Cancelled)."""

    @property
    def cancel(self) -> Optional[CancelToken]: ...

    def flush_and_stop(self) -> None: ...


def passages_of(doc: Document, encoder: PassageTokenizer, config: Config, batcher: PassageBatcher,
                bounds: Optional[tuple[np.ndarray, np.ndarray]] = None) -> tuple[str, list[ChunkSpan], list[str]]:
    """(the title the bi-encoder reads before each passage, the passages of `doc`, the hashes of their model
    inputs). A cancel inside the chunking commits the files finished before it (see _chunk). `bounds`: the
    word pieces of `doc.text`, already made for a group of files (chunking.chunk_document's `bounds`)."""
    title, title_tokens = _title_context(doc, encoder, config)
    spans = _chunk(doc, encoder, config, batcher, reserve=title_tokens, bounds=bounds)
    inputs = [model_input(title, c.text) for c in spans]
    if any(i is not c.text for i, c in zip(inputs, spans, strict=True)):
        # Phase 2 in this process finds the ids in the encoder's (bounded) cache: no second tokenization.
        encoder.remember_joined(title, [c.text for c in spans], inputs)
    return title, spans, [text_hash(t) for t in inputs]


def _title_context(doc: Document, encoder: PassageTokenizer, config: Config) -> tuple[str, int]:
    """(title the bi-encoder reads before each passage, its word pieces); ("", 0) when title context is off."""
    if not config.chunking.title_context:
        return "", 0
    title = file_title(doc)
    if not title:
        return "", 0
    offsets = encoder.token_offsets(title)
    if len(offsets) > MAX_TITLE_TOKENS:
        title = title[: offsets[MAX_TITLE_TOKENS - 1][1]]
    return title, min(len(offsets), MAX_TITLE_TOKENS) + 1  # + 1: the line break may become a piece


def _chunk(doc: Document, encoder: PassageTokenizer, config: Config, batcher: PassageBatcher, reserve: int = 0,
           bounds: Optional[tuple[np.ndarray, np.ndarray]] = None) -> list[ChunkSpan]:
    """Passages of one file; a cancel inside its chunking commits the files finished before it. `reserve`: word
    pieces kept free for the title in front of each passage, when the passage would otherwise not fit the
    model's window (shorter passages keep their configured length, so the stored text is the same either way)."""
    max_tokens = config.chunking.max_tokens
    window = encoder.max_seq_length
    if reserve and window:
        max_tokens = max(16, min(max_tokens, window - 2 - reserve))  # 2: [CLS] and [SEP]
    try:
        return chunk_document(doc, encoder.token_offsets, max_tokens, config.chunking.overlap,
                              cancel=batcher.cancel,
                              token_offsets_batch=encoder.token_offsets_batch,
                              words_alone=bool(getattr(encoder, "words_alone", False)),
                              token_bounds=getattr(encoder, "token_bounds", None), bounds=bounds)
    except Cancelled:
        batcher.flush_and_stop()
        raise  # not reached: flush_and_stop raises
