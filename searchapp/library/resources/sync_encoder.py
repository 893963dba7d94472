"""The bi-encoder as a sync sees it: chunking from the model's tokenizer alone, the model only for `encode`, and a
small meaning pass on a CPU embedded without the model at all (decision 0164).

A words pass needs word-piece offsets, not the model: importing torch and transformers and reading the weights
cost 10 s and ~900 MB for `index --words-only` of one small file (issue 45). So everything the chunker asks
(token_offsets, token_bounds, token_bounds_many, token_offsets_batch, words_alone, max_seq_length, chunking_spec,
remember_joined) goes to ModelSet.chunker (the loaded bi-encoder, else the model folder's tokenizer.json read with
the `tokenizers` library); `encode` and anything else load the bi-encoder.

The meaning of one edited note is a few passages. Loading torch and the model for them cost more than embedding
them: 2.4 s and ~400 MB on two quiet AVX2 cores (~8 s beside other work), against ~0.12 s a passage through the
query path, which runs the same fp32 weights in NumPy (or ONNX Runtime in a warm process) and gives the vector
torch gives (tests/unit/models/test_query_encoders_agree.py). So a meaning pass on a CPU that finds at most
LEAN_PASSAGES passages waiting, with the model not loaded, embeds them by that path: `searchapp index` of an edited
file, or the window's update of a saved one, never imports torch. A bigger pass loads the model; a sync that will
embed (`load_ahead`) starts that load on a thread of its own once it has chunked more than LOAD_AHEAD_CHARS, so the
words pass goes on meanwhile, and only once its batches have written more than LEAN_PASSAGES passages that found no
stored vector by hash: an unchanged sync, a moved folder or a re-read of unchanged text loads nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Optional, Protocol, Sequence

import numpy as np

from ...base.config import Config
from ...base.progress import CancelToken

if TYPE_CHECKING:
    from ...models.bi_encoder import BiEncoder
    from ...models.chunking_tokenizer import ChunkingTokenizer

__all__ = ["SyncEncoder", "SyncModels", "LEAN_PASSAGES", "LOAD_AHEAD_CHARS", "LEAN_SLICE"]

# Waiting passages a meaning pass embeds without loading the model. On a 2-core AVX2 EPYC (quiet), MiniLM
# passages of ~200 word pieces: NumPy 0.42 s for 1, 2.0 s for 16, 3.6 s for 32 (its load included); torch 2.4 s to
# load, then 0.94 s for 16 and 4.0 s for 64. Even ~38; below 24 the lean path wins by a margin that a busy machine
# (where importing torch takes seconds more) only widens.
LEAN_PASSAGES = 24
# Characters chunked before a sync that will embed starts loading the model: about LEAN_PASSAGES passages' worth
# (200 word pieces of ~5 characters each); fewer are embedded by the lean path and need no model.
LOAD_AHEAD_CHARS = LEAN_PASSAGES * 200 * 5
# Passages handed to the query path at once: what a search in the window waits for (~0.5 s on two AVX2 cores), yet
# ~800 rows, which NumPy still runs on two BLAS threads (query_encoder.PACKED_ROWS_PER_THREAD).
LEAN_SLICE = 4


class SyncModels(Protocol):
    """What a sync's encoder asks of the library's models (model_set.ModelSet)."""

    config: Config

    @property
    def encoder(self) -> BiEncoder: ...

    @property
    def loaded_encoder(self) -> Optional[BiEncoder]: ...

    def chunker(self) -> ChunkingTokenizer: ...

    def wait_for_load(self, cancel: Optional[CancelToken]) -> None: ...

    def load_encoder_ahead(self) -> None: ...

    def may_use_gpu(self) -> bool: ...

    def query_path_reads_passages(self) -> bool: ...

    def encode_passages_lean(self, texts: list[str]) -> np.ndarray: ...


class SyncEncoder:
    """A sync's encoder (see the module's docstring). `pending`: how many passages the library has waiting for a
    vector (the store's count); without it every meaning pass loads the model, as before decision 0164."""

    spec: str
    max_seq_length: int  # the chunker's, looked up at its first use (__getattr__)

    def __init__(self, models: SyncModels, *, load_ahead: bool = False,
                 pending: Optional[Callable[[], int]] = None) -> None:
        self._models = models
        self._load_ahead = load_ahead
        self._pending = pending
        self._chunked = 0  # characters handed to the chunker so far (LOAD_AHEAD_CHARS)
        # Passages this sync wrote with no stored vector for their model input (`passages_waiting`): a move, a
        # rename or a re-read of unchanged text chunks everything and finds every vector by hash, so the text
        # chunked alone does not say the model will be needed (decision 0164, its review of 0.27.0)
        self._waiting = 0
        self._chunker: Optional[ChunkingTokenizer] = None  # chosen at the first chunking, kept for the sync: its passages are cut alike
        self.spec = models.config.models.bi_encoder  # what BiEncoder.spec is: messages name the model by it

    @property
    def loaded(self) -> bool:
        return self._models.loaded_encoder is not None

    def _chunking(self, chars: int = 0) -> ChunkingTokenizer:
        """The chunker; `chars`: how much text the caller is about to cut (what decides the load ahead)."""
        if self._chunker is None:
            self._chunker = self._models.chunker()
        self._chunked += chars
        self._maybe_load_ahead()
        return self._chunker

    def passages_waiting(self, n: int) -> None:
        """A words batch wrote `n` passages that found no stored vector by hash (sync/batches.Batcher): only
        those will be embedded, so only they count towards the load ahead."""
        self._waiting += n
        self._maybe_load_ahead()

    def _maybe_load_ahead(self) -> None:
        """Start loading the model beside the words pass once this sync has chunked more than LOAD_AHEAD_CHARS
        and written more than LEAN_PASSAGES passages waiting for a vector: fewer go through the query path,
        none (a move, an unchanged re-read) need no model at all."""
        if self._load_ahead and (self._pending is None or (
                self._chunked > LOAD_AHEAD_CHARS and self._waiting > LEAN_PASSAGES)):
            self._models.load_encoder_ahead()  # once a process: later calls return at once

    @property
    def words_alone(self) -> bool:
        return bool(self._chunking().words_alone)

    def token_offsets(self, text: str) -> list[tuple[int, int]]:
        return self._chunking(len(text)).token_offsets(text)

    def token_bounds(self, text: str) -> tuple[np.ndarray, np.ndarray]:
        return self._chunking(len(text)).token_bounds(text)

    def token_offsets_batch(self, texts: Sequence[str]) -> list[list[tuple[int, int]]]:
        return self._chunking(sum(map(len, texts))).token_offsets_batch(texts)

    def token_bounds_many(self, texts: Sequence[str]) -> Optional[list[tuple[np.ndarray, np.ndarray]]]:
        many = getattr(self._chunking(sum(map(len, texts))), "token_bounds_many", None)
        return many(texts) if many is not None else None

    def chunking_spec(self) -> tuple[str, int, bool]:
        # Asked for a read-ahead worker, which a sync starts only for a thousand files or more: counted as much
        # text, so the load starts at its first batch that leaves passages waiting (a moved folder's leaves none).
        return self._chunking(LOAD_AHEAD_CHARS + 1).chunking_spec()

    def remember_joined(self, prefix: str, texts: Sequence[str], joined: Sequence[str]) -> None:
        # The bi-encoder keeps ids for `encode` only when it chunked them; the tokenizer alone keeps nothing.
        self._chunking().remember_joined(prefix, texts, joined)

    def encode(self, texts: Sequence[str], **kw: Any) -> np.ndarray:
        if self._lean():
            return self._encode_lean(list(texts), **kw)
        return self._models.encoder.encode(texts, **kw)

    def wait_for_load(self, cancel: Optional[CancelToken]) -> None:
        """Wait for the model loading ahead, giving up at a stop (ModelSet.wait_for_load)."""
        self._models.wait_for_load(cancel)

    def loads_next(self) -> bool:
        """Whether the next `encode` loads the model first (seconds on a small CPU: the progress says so, where it
        would otherwise sit at 0 with no word of why: meaning_rate.aside_note)."""
        return self._models.loaded_encoder is None and not self._lean()

    def _lean(self) -> bool:
        """Whether these passages go through the query path (module docstring): a CPU's pass of at most
        LEAN_PASSAGES waiting, the model not loaded, and a model that reads passages as it reads queries (no
        prompts). Asked at each encode until the model loads: a pass that starts larger loads it at its first
        batch, and every later batch finds it loaded."""
        m = self._models
        return (self._pending is not None and m.loaded_encoder is None and not m.may_use_gpu()
                and m.query_path_reads_passages() and self._pending() <= LEAN_PASSAGES)

    def _encode_lean(self, texts: list[str], **kw: Any) -> np.ndarray:
        """The query path's vectors, LEAN_SLICE passages at a time with a cancel check before each slice: in the
        window that path is also its searches' (one BLAS call at a time, query_encoder._BLAS_LOCK), so a search
        waits for the slice under way, not for the pass, and the sync's token steps aside while it runs
        (in_flight.YieldingCancel). A passage the path has no vector for (a NaN row: it declined the model, or
        failed) goes through the bi-encoder, so what is stored is always a vector the model gives."""
        cancel = kw.get("cancel")
        rows: list[np.ndarray] = []
        for a in range(0, len(texts), LEAN_SLICE):
            if cancel is not None:
                cancel.check()
            rows.extend(self._models.encode_passages_lean(texts[a:a + LEAN_SLICE]))
        missing = [i for i, row in enumerate(rows) if not np.isfinite(row).all()]
        if missing:  # a row the path declined is (1,) NaN, not (dim,): replaced, then stacked
            rest: np.ndarray = self._models.encoder.encode([texts[i] for i in missing], **kw)
            for i, vector in zip(missing, rest, strict=True):
                rows[i] = vector
        return np.stack(rows)

    @property
    def bulk_batch(self) -> int:
        """BiEncoder.bulk_batch, without waiting for the model where it can only be 0 (no GPU it could use):
        the sync asks at its first words batch, and the words pass must not stop there for a load."""
        if self._models.loaded_encoder is None and not self._models.may_use_gpu():
            return 0
        return int(self._models.encoder.bulk_batch)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        if name == "max_seq_length":
            value = self.__dict__[name] = int(self._chunking().max_seq_length)
            return value
        return getattr(self._models.encoder, name)
