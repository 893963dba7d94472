"""The models a library uses: the bi-encoder, the query encoders (ONNX Runtime, NumPy), the cross-encoder and what
went wrong loading it.

Models load lazily: status, lexical search, an unchanged sync and a sync's words pass never import torch or read
weights (the words pass chunks with the model folder's tokenizer.json alone). The configured bi-encoder's identity
(fingerprint, vector size) is read from its files until the model is loaded.
"""

from __future__ import annotations

import logging
import os
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Literal, Mapping, Optional, Protocol, Union

import numpy as np

from ...base.config import DEFAULT_RERANKER, Config
from ...base.errors import ModelLoadError, ModelMismatchError, ModelNotFoundError
from ...base.progress import CancelToken
from ...base.finite import require_finite
from ...models.sentence_conventions import LibraryKeep, library_keep
from .sync_encoder import SyncEncoder

if TYPE_CHECKING:
    from ...models.bi_encoder import BiEncoder
    from ...models.chunking_tokenizer import ChunkingTokenizer
    from ...models.cross_encoder import CrossEncoder
    from ...models.identity import ModelIdentity
    from ...models.onnx_query import OnnxQueryEncoder
    from ...models.query_encoder import NumpyQueryEncoder

__all__ = ["ModelSet", "LibraryMeta", "MODELS_LOCK"]

log = logging.getLogger(__name__)
LOAD_THREAD = "searchapp-load-bi-encoder"  # load_encoder_ahead's thread

# Models are built one at a time in the process: two threads building at once (the GUI's warm-up and a
# first sync) raced in transformers' lazy imports ("cannot import name 'AutoTokenizer'") and built twice.
MODELS_LOCK = threading.RLock()
LEAN_GROUP = 16  # passages packed into one pass of the query path: ~4,000 rows of MiniLM passages


class LibraryMeta(Protocol):
    """What check_library reads of a library's store: a Store, or a shared library's PgStore."""

    def meta(self) -> Mapping[str, str]: ...

    def has_chunks(self) -> bool: ...


class ModelSet:
    def __init__(self, config: Config, *, encoder: Optional[BiEncoder] = None,
                 reranker: Optional[CrossEncoder] = None) -> None:
        """`encoder` / `reranker` may be given already loaded (tests, the GUI sharing one model)."""
        self.config = config
        self._encoder = encoder
        # An encoder given from outside (tests, evaluation) answers its own queries: no export is made for it.
        self._export_tried = encoder is not None
        self._given_encoder = encoder is not None
        self._reranker = reranker
        self._reranker_error: Optional[str] = None
        self._reranker_exc: Optional[ModelLoadError] = None
        self._identity: Optional[ModelIdentity] = None  # ModelIdentity of the configured bi-encoder, read from its files without loading it
        # NumPy query encoder (models.query_encoder), False when not supported
        self._query_encoder: Optional[Union[NumpyQueryEncoder, Literal[False]]] = None
        # ONNX Runtime query encoder (models.onnx_query), False when there is no usable export
        self._onnx_query: Optional[Union[OnnxQueryEncoder, Literal[False]]] = None
        self._queries = 0  # answered in this process: a second query means a long-lived one
        # The chunker read from the model folder's tokenizer.json (models/tokenizer_file.py); False: not usable alone
        self._chunker: Optional[Union[ChunkingTokenizer, Literal[False]]] = None
        self._chunker_lock = threading.Lock()  # not MODELS_LOCK: chunking must not wait seconds for a model load
        self._loading: Optional[threading.Thread] = None  # load_encoder_ahead's thread
        # (meta, has passages) of the library these models serve, set by Library: a library built before models'
        # pooling and prompts were read keeps running as built (sentence_conventions.library_keep).
        self.library_state: Optional[Callable[[], tuple[Mapping[str, str], bool]]] = None
        self._keep: Optional[tuple[str, LibraryKeep]] = None  # (models.pooling it was decided for, the decision)
        # A shared library (set by SharedLibrary) keeps one model for every machine: a mismatch there is mended by
        # this desktop's settings, not by a reindex (which it refuses).
        self.shared = False

    def keep(self) -> LibraryKeep:
        """The pooling setting and whether prompts are used, for this library (sentence_conventions.library_keep)."""
        configured = self.config.models.pooling
        if self._keep is None or self._keep[0] != configured:
            meta, has = self.library_state() if self.library_state is not None else ({}, False)
            self._keep = (configured, library_keep(configured, meta, has))
        return self._keep[1]

    def library_emptied(self) -> None:
        """A reindex is about to drop every passage: from then on the model's own pooling and prompts (what
        `status` said a reindex would use), so what was loaded as the library was built is let go; keep() is
        decided again at its next call (still as built if the reindex is refused before dropping anything)."""
        if self._keep is not None and self._keep[1].kept:
            self._let_go()
        self._keep = None

    def _let_go(self) -> None:
        """Forget the decision and what was loaded under it (not an encoder handed in: the caller chose it)."""
        with MODELS_LOCK:
            if not self._given_encoder:
                self._encoder, self._export_tried = None, False
            self._identity, self._query_encoder, self._onnx_query, self._chunker = None, None, None, None
            self._keep = None

    # -- bi-encoder -----------------------------------------------------------
    @property
    def encoder(self) -> BiEncoder:
        """The bi-encoder, loaded on first use (waiting for a load started ahead, rather than racing it)."""
        loading = self._loading
        if self._encoder is None and loading is not None and loading is not threading.current_thread():
            loading.join()  # a load that failed leaves _encoder None: loaded again below, which raises its error
        if self._encoder is None:
            with MODELS_LOCK:  # the GUI's warm-up and a first sync ask at once: build it once
                if self._encoder is None:
                    from ...models import BiEncoder  # torch loads only when a model is needed

                    m, keep = self.config.models, self.keep()
                    encoder = BiEncoder(m.bi_encoder, pooling=keep.pooling, device=m.device, prompts=keep.prompts,
                                        precision=m.precision, batch_size=m.batch_size, threads=m.threads)
                    self._check_chunker(encoder)
                    self._encoder = encoder
        return self._encoder

    @property
    def loaded_encoder(self) -> Optional[BiEncoder]:
        """The bi-encoder if it is loaded (or was given), else None; never loads it."""
        return self._encoder

    def passage_encoder(self, *, load_ahead: bool = False, pending: Optional[Callable[[], int]] = None
                        ) -> SyncEncoder:
        """The bi-encoder for a sync: chunking needs only its tokenizer, the model loads for `encode` (and, with
        `load_ahead`, beside the words pass); `pending` (the store's count of passages waiting for a vector): a
        small meaning pass on a CPU is embedded without loading the model (sync_encoder.py, decision 0164)."""
        return SyncEncoder(self, load_ahead=load_ahead, pending=pending)

    def chunker(self) -> ChunkingTokenizer:
        """What cuts text into passages for the bi-encoder: the loaded bi-encoder (it keeps the ids it computes
        for `encode`), else the model folder's tokenizer.json read alone (no torch, no weights), else, where
        transformers would build another tokenizer from the folder, the bi-encoder loaded."""
        if self._encoder is not None:
            return self._encoder
        return self._file_chunker() or self.encoder

    def _file_chunker(self) -> Optional[ChunkingTokenizer]:
        """The model folder's tokenizer.json read alone, once; None where transformers would build another."""
        with self._chunker_lock:
            if self._chunker is None:
                from ...models.tokenizer_file import chunker_from_files

                ident = self._file_identity()
                self._chunker = chunker_from_files(ident.resolved.path, ident.max_seq_length) or False
        return self._chunker or None

    def knows_word(self, word: str) -> bool:
        """Whether the bi-encoder's vocabulary holds `word` whole (ChunkingTokenizer.reads_whole), asked without
        loading the model: a lexical search never loads torch. False where neither the loaded model nor the model
        folder's tokenizer.json alone can say (a missing model, a tokenizer read only by transformers)."""
        try:
            chunker = self._encoder if self._encoder is not None else self._file_chunker()
        except (ModelLoadError, OSError) as exc:  # the search goes on knowing nothing of the word
            log.debug("no vocabulary to tell a word from a typo: %s", exc)
            return False
        return chunker is not None and chunker.reads_whole(word)

    def _check_chunker(self, encoder: BiEncoder) -> None:
        """The bi-encoder just loaded: its chunking must be the tokenizer.json's this process chunked with. From
        now on the loaded model chunks (it keeps the ids for `encode`), so the file's tokenizer and the words it
        remembers are let go (a sync under way keeps its own until it ends)."""
        from ...models.tokenizer_file import same_chunking

        with self._chunker_lock:  # chunker() may be setting it on a sync's thread right now
            if self._chunker and not same_chunking(self._chunker, encoder):
                log.warning("%s: transformers builds another tokenizer than its tokenizer.json; passages are cut "
                            "with the loaded model's from now on", encoder.spec)
            self._chunker = False

    def load_encoder_ahead(self) -> None:
        """Start loading the bi-encoder on a thread of its own, once per process: a sync that will embed calls
        this once its words batches leave enough passages waiting (sync_encoder.py), so the load runs while the
        words pass goes on and `encoder` later waits only for what is left of it. A failed load is left for
        `encoder` to raise where the model is used."""
        with self._chunker_lock:
            if self._encoder is not None or self._loading is not None:
                return

            def load() -> None:
                try:
                    _ = self.encoder
                except Exception:  # raised again, with its message, where the model is needed
                    log.debug("loading the bi-encoder ahead failed", exc_info=True)

            # Not a daemon: an interpreter exiting while torch loads on another thread aborts ("terminate called
            # without an active exception", exit 134: 3 of 24 exits during a MiniLM load). A command stopped while
            # it loads ends without waiting for it otherwise (cli/abort.py: leave_unwaited, decision 0203).
            self._loading = threading.Thread(target=load, name=LOAD_THREAD)
            self._loading.start()

    def wait_for_load(self, cancel: Optional[CancelToken]) -> None:
        """Wait for a load started ahead, giving up at a stop (raises Cancelled): after a first Ctrl+C the model is
        no longer needed, and `encoder`'s join waited for the whole load before the stop was looked at."""
        loading = self._loading
        while self._encoder is None and loading is not None and loading.is_alive() \
                and loading is not threading.current_thread():
            if cancel is not None:
                cancel.check()
            loading.join(0.1)

    def may_use_gpu(self) -> bool:
        """False where the bi-encoder surely runs on the CPU, told without importing torch: models.device "cpu",
        or "auto" on macOS (no CUDA) or on Linux without a GPU device node (NVIDIA, ROCm, WSL's)."""
        device = (self.config.models.device or "auto").strip().lower()
        if device == "cpu":
            return False
        if device != "auto":
            return True
        if sys.platform == "darwin":
            return False
        if sys.platform.startswith("linux"):
            return any(os.path.exists(p) for p in ("/dev/nvidiactl", "/dev/nvidia0", "/dev/kfd", "/dev/dxg"))
        return True

    def identity(self) -> tuple[str, int]:
        """Fingerprint and vector size of the bi-encoder: from the loaded model, else from its files
        (no torch import, no weights: an unchanged sync and a mismatch check stay fast)."""
        if self._encoder is not None:
            return self._encoder.fingerprint, int(self._encoder.dim)
        ident = self._file_identity()
        return ident.fingerprint, ident.dim

    def _file_identity(self) -> ModelIdentity:
        if self._identity is None:
            from ...models.identity import bi_encoder_identity

            keep = self.keep()
            self._identity = bi_encoder_identity(self.config.models.bi_encoder, pooling=keep.pooling,
                                                 prompts=keep.prompts)
        return self._identity

    def expected_meta(self) -> dict[str, str]:
        """What a library built with these models and the configured chunking records (models.identity)."""
        from ...models.identity import library_settings

        fingerprint, dim = self.identity()
        # The pooling that runs ("auto" resolved) and the passage prompt: from the loaded model, else its files.
        meta = library_settings(self.config, fingerprint, dim, identity=self._encoder or self._file_identity())
        if self.keep().kept and not self._given_encoder:
            meta.pop("passage_prompt", None)  # still recorded as before prompts were read: kept on the next open
        return meta

    def check_library(self, reader: LibraryMeta) -> None:
        """Raise ModelMismatchError when the library (`reader`, a Store) was built with another model, pooling
        or chunking. The rule is models.identity.reindex_reasons (status and the GUI use it too)."""
        stored = reader.meta()
        if not reader.has_chunks():
            return
        from ...models.identity import reindex_message, reindex_reasons, shared_mismatch_message

        if self._keep is not None and library_keep(self.config.models.pooling, stored, True) != self._keep[1]:
            self._let_go()  # another process reindexed it since (or a reindex here was refused): decided again

        message = shared_mismatch_message if self.shared else reindex_message
        problem = message(reindex_reasons(stored, self.expected_meta()))
        if problem:
            raise ModelMismatchError(problem)

    def query_cache_dir(self) -> Path:
        """Where this library keeps its own exports of the bi-encoder (models.onnx_query.CACHE_DIR)."""
        from ...models.onnx_query import CACHE_DIR

        return Path(self.config.data_dir) / CACHE_DIR

    def encode_query(self, query: str) -> np.ndarray:
        """One query vector, by the fastest path that gives fp32's vector (tests/benchmarks/bench_query_paths.py):
        ONNX Runtime on this library's export once the process is warm (the bi-encoder loaded, or a query
        answered already: the GUI, a sync, `watch`); for a cold command-line search, whose cost is start-up,
        a NumPy pass over the same weights (no torch, no onnxruntime import); torch when neither is there."""
        vec = self._lean_vector(query)
        if vec is None or not np.isfinite(vec).all():
            vec = self.encoder.encode_query(query)  # never waits behind a sync's encoder batch
        self._queries += 1
        require_finite(vec, self.config.models.bi_encoder, "for this query")
        return vec

    def encode_passages_lean(self, texts: list[str]) -> np.ndarray:
        """Passages' vectors by the query path without torch (search/meaning_now.py, a process without the
        bi-encoder; only for a model that reads queries and passages alike: query_path_reads_passages), packed
        LEAN_GROUP at a time (decision 0139): (n, dim), a NaN row where that path has none. No torch fallback and
        no error: a passage without a finite vector is left out of one answer (the embedder drops it), where
        encode_query would load torch for it and then fail the whole search. The path already in memory goes
        first: a cold command line has just loaded NumPy's for its query, and an ONNX session would cost it
        another load; a window, whose queries are ONNX Runtime's, never loaded NumPy's."""
        numpy_first = not self._warm() or bool(self._query_encoder)
        parts: list[np.ndarray] = []
        for a in range(0, len(texts), LEAN_GROUP):  # memory grows with the rows packed: a large budget in groups
            got = self._lean_vectors(texts[a:a + LEAN_GROUP], numpy_first)
            if got is None:  # no lean path in this process (any more): the rest get no vector either
                break
            parts.append(got)
        done = np.concatenate(parts) if parts else np.zeros((0, 1), dtype=np.float32)
        rest = np.full((len(texts) - len(done), done.shape[1]), np.nan, dtype=np.float32)
        return np.concatenate([done, rest]) if len(rest) else done

    def _warm(self) -> bool:
        return self._encoder is not None or self._queries > 0

    def _lean_vector(self, query: str) -> Optional[np.ndarray]:
        """A query's vector: ONNX Runtime once warm, NumPy while cold (see encode_query)."""
        got = self._lean_vectors([query], numpy_first=not self._warm())
        return None if got is None else got[0]

    def _lean_vectors(self, texts: list[str], numpy_first: bool) -> Optional[np.ndarray]:
        paths = (self._numpy_vectors, self._onnx_vectors) if numpy_first else (self._onnx_vectors, self._numpy_vectors)
        for path in paths:
            got = path(texts)
            if got is not None:
                return got
        return None

    def _onnx_vectors(self, texts: list[str]) -> Optional[np.ndarray]:
        if self._onnx_query is None:
            with MODELS_LOCK:
                if self._onnx_query is None:
                    from ...models.onnx_query import load_onnx_query_encoder

                    fingerprint, path, max_len = self._query_model()
                    self._onnx_query = load_onnx_query_encoder(self.query_cache_dir(), fingerprint, path,
                                                               max_seq_length=max_len,
                                                               prompts=self.keep().prompts) or False
        if not self._onnx_query:
            return None
        try:
            return self._onnx_query.encode_many(texts)
        except Exception:  # e.g. onnxruntime refusing an input; torch answers instead
            log.warning("ONNX Runtime query encoder failed; this process stops using it", exc_info=True)
            self._onnx_query = False
            return None

    def _numpy_vectors(self, texts: list[str]) -> Optional[np.ndarray]:
        if self._encoder is not None:
            return None  # the loaded model answers at once; a second copy of the weights is not worth it
        if self._query_encoder is None:
            with MODELS_LOCK:  # two first searches at once (GUI start-up): load it once
                if self._query_encoder is None:
                    from ...models.query_encoder import load_query_encoder

                    ident = self._file_identity()
                    self._query_encoder = load_query_encoder(
                        ident.resolved.path, pooling=self.keep().pooling,
                        max_seq_length=ident.max_seq_length, prompts=self.keep().prompts) or False
        if not self._query_encoder:
            return None
        try:
            return self._query_encoder.encode_many(texts)
        except Exception:  # e.g. a query longer than the folder's position table
            log.warning("NumPy query encoder failed; this process stops using it", exc_info=True)
            self._query_encoder = False
            return None

    def _query_model(self) -> tuple[str, Path, int]:
        """(fingerprint, model folder, max_seq_length) of the configured bi-encoder, without loading it."""
        if self._encoder is not None:
            e = self._encoder
            return e.fingerprint, Path(e.resolved.path), int(e.max_seq_length)
        ident = self._file_identity()
        return ident.fingerprint, Path(ident.resolved.path), int(ident.max_seq_length)

    def query_path_reads_passages(self) -> bool:
        """Whether `encode_query` gives a passage the vector `encode` would: the model puts no prompt in front of
        either (one with prompts reads queries and passages differently). Never loads the model."""
        ident = self._encoder or self._file_identity()
        return not getattr(ident, "query_prompt", "") and not getattr(ident, "passage_prompt", "")

    def meaning_ready(self, rerank: bool) -> bool:
        """Whether a search by meaning (reranked when `rerank`) would load nothing first: a query encoder in
        memory and, when `rerank`, the cross-encoder loaded or known to be absent. Never loads anything."""
        query = self._encoder is not None or bool(self._onnx_query) or bool(self._query_encoder)
        return query and (not rerank or self._reranker is not None or self._reranker_error is not None)

    def load_for_search(self, rerank: bool) -> None:
        """Load, on the caller's thread, what a long-lived process's searches by meaning use (the window, when
        the first one is asked for): the path its queries take from now on (encode_query: ONNX Runtime, else
        NumPy, else torch) and, when `rerank`, the cross-encoder. Raises what loading the query path raises; a
        cross-encoder that fails to load is said beside results instead (reranker_notice)."""
        self._queries = max(self._queries, 1)  # a long-lived process: its queries take the warm path
        self.encode_query("warm-up")
        if rerank:
            self.reranker()

    def prepare_query_path(self) -> None:
        """After a sync that loaded the bi-encoder (torch is imported already): export it once for ONNX Runtime
        queries if this library has no export of it yet. Seconds, once per model and onnxruntime version."""
        if self._encoder is None or self._export_tried or self._onnx_query:
            return
        if os.environ.get("SEARCHAPP_NO_QUERY_EXPORT"):  # the test suite: not in every process that syncs
            return
        self._export_tried = True
        from ...models.onnx_query import export_query_model

        fingerprint, path, max_len = self._query_model()
        # Not under MODELS_LOCK: a reranker or a query loading meanwhile must not wait seconds for the export.
        if export_query_model(path, pooling=self.keep().pooling, max_seq_length=max_len,
                              fingerprint=fingerprint, cache_dir=self.query_cache_dir()) is not None:
            self._onnx_query = None  # the next query loads it

    def query_path(self) -> str:
        """Which path encodes queries in this process now (status, the window's device label)."""
        from ...models.onnx_query import describe_query_path

        if self._onnx_query:
            return self._onnx_query.description
        fingerprint, _, _ = self._query_model()
        dtype = str(self._encoder.dtype) if self._encoder is not None else None
        return describe_query_path(self.query_cache_dir(), fingerprint, self.keep().pooling,
                                   loaded_dtype=dtype)

    # -- cross-encoder --------------------------------------------------------
    @property
    def loaded_reranker(self) -> Optional[CrossEncoder]:
        """The cross-encoder if it is loaded (or was given), else None; never loads it."""
        return self._reranker

    @loaded_reranker.setter
    def loaded_reranker(self, cross: Optional[CrossEncoder]) -> None:
        self._reranker = cross

    def reranker(self) -> Optional[CrossEncoder]:
        """The cross-encoder, or None when none is configured or present (`reranker_notice` says why)."""
        if self._reranker is None and self._reranker_error is None:
            with MODELS_LOCK:
                self._load_reranker()
        return self._reranker

    def _load_reranker(self) -> None:
        """Call with MODELS_LOCK held; checks again, another thread may have built it meanwhile."""
        if self._reranker is None and self._reranker_error is None:
            spec = self.config.models.reranker
            if not spec:
                self._reranker_error = "reranking is disabled (models.reranker is empty)"
                return
            m = self.config.models
            try:
                from ...models.resolve import resolve_model

                # Find the weights first: when there are none, say so without importing torch (seconds).
                resolve_model(spec, kind="reranker")
                from ...models import CrossEncoder

                self._reranker = CrossEncoder(spec, device=m.device, precision=m.precision,
                                              max_length=m.rerank_max_length, threads=m.threads)
            except ModelNotFoundError as exc:
                self._reranker_exc = exc
                # Short: printed once per process beside results; `searchapp status` has the long story.
                # It says how to get one and how to stop being told: none ships, so every fresh install meets it.
                self._reranker_error = ("the reranker is not installed, so results are not reranked (`searchapp models "
                                        f"pull {spec}` gets it; [search] rerank = false hides this)"
                                        if spec == DEFAULT_RERANKER else
                                        f"cross-encoder {spec} is not installed, so results are not reranked "
                                        "(point --reranker or [models] reranker at a model folder)")
            except ModelLoadError as exc:  # found but refused (pickles only, custom code) or broken: say why
                self._reranker_exc = exc
                self._reranker_error = f"reranker not loaded: {exc}"

    def require_reranker(self) -> CrossEncoder:
        """The cross-encoder the user named explicitly: loaded, or its ModelLoadError raised (exit 5)."""
        cross = self.reranker()
        if cross is None:
            raise self._reranker_exc or ModelNotFoundError(self._reranker_error or "no reranker configured")
        return cross

    def reranker_notice(self) -> Optional[str]:
        return self._reranker_error

    def reranker_loaded(self) -> bool:
        return self._reranker is not None

    def reranker_refused(self) -> Optional[str]:
        """Why a reranker that exists was refused or failed to load (pickles only, custom code, broken), or
        None (loaded, not tried yet, disabled or simply not installed)."""
        exc = self._reranker_exc
        return str(exc) if exc is not None and not isinstance(exc, ModelNotFoundError) else None
