"""Sentence-BERT bi-encoder: texts → L2-normalized float32 vectors, compared by dot product (= cosine).

`BiEncoder` is what the rest of the app holds. This module sets one up (the order its parts are made in) and
reads queries; each other job it does is a module of its own, joined here as a base class:
  bi_encoder_loading.py   a model folder -> its tokenizer and model (from the files alone where it can) and
                          the longest input it reads
  chunking_tokenizer.py   the chunker's word-piece offsets (the sync's read-ahead worker uses it alone, no torch)
  kept_ids.py             the chunker's ids kept for `encode`: one tokenization per passage
  passage_tokenizer.py    passage texts -> model inputs
  bi_encoder_forward.py   model inputs -> unit vectors: precision, the fused CPU forward, pooling
  encode_threads.py       how many threads each batch runs on (a sync steps aside for other programs)
  passage_vectors.py      `encode`: passages -> vectors in length-sorted batches, CUDA batch sizes
Base classes rather than objects it holds: the encoder keeps one set of attributes, which tests and benchmarks
read and swap on an instance (`_tokenizer`, `_bulk`, `_lean`, `_forward`, ...).

Queries never wait for a bulk batch: `encode_query` has its own tokenizer and runs the forward beside
a sync's (inference does not mutate the model) on 1 intra-op thread, so a 2-core CPU stays responsive.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import TYPE_CHECKING, Any, Optional

import numpy as np
import torch

from ..base.config import PACKAGED_BI_ENCODER
from ..base.cpu_share import CpuShare
from ..base.errors import ConfigError
from ..base.finite import require_finite
from .bi_encoder_forward import to_host
from .bi_encoder_loading import BiEncoderLoading, sentence_bert_max_seq_length
from .chunking_tokenizer import ChunkingTokenizer
from .shared_tokenizers import json_of
from .device import choose_device, choose_dtype
from .identity import model_fingerprint
from .lean_bert import BertBody
from .passage_tokenizer import ENCODING_FIELDS
from .passage_vectors import PassageVectors
from .pooling import POOLING_MODES, needs_hidden_states
from .resolve import ResolvedModel, resolve_model
from .sentence_conventions import read_conventions, resolve_pooling
from .tokenizer_file import FileTokenizer
from .transformer import load_tokenizer, model_inputs, pad_values_for

if TYPE_CHECKING:
    from tokenizers import Encoding

# sentence_bert_max_seq_length: training/sentence_model.py reads it from here.
__all__ = ["BiEncoder", "sentence_bert_max_seq_length"]


class BiEncoder(PassageVectors, BiEncoderLoading):
    resolved: ResolvedModel
    dim: int
    max_seq_length: int
    device: torch.device
    dtype: torch.dtype
    fingerprint: str

    def __init__(
        self,
        spec: str = PACKAGED_BI_ENCODER,
        *,
        pooling: str = "mean",
        device: str = "auto",
        precision: str = "auto",
        batch_size: int = 32,
        max_seq_length: Optional[int] = None,
        threads: int = 0,
        prompts: bool = True,
    ) -> None:
        if pooling not in POOLING_MODES and pooling != "auto":
            raise ConfigError(f"models.pooling: unknown pooling {pooling!r} (known: auto, {', '.join(POOLING_MODES)})")
        if batch_size < 1:
            raise ConfigError("models.batch_size must be >= 1")
        self.spec = spec
        self.batch_size = batch_size
        self.threads = threads
        self.last_threads = 0  # what the last batch ran on (see encode's `background`)
        self._cpu_share = CpuShare()
        self._background_threads = 0  # the last fit of a background batch's threads (0: none yet)
        # Read once: torch's count is process-wide and a query sets it to 1 while it runs (encode_query), so a
        # sync that read it per batch could take 1 for the setting and keep it (issue 41, item 2).
        self._configured_threads = threads or torch.get_num_threads()
        self.resolved = resolve_model(spec, kind="bi-encoder")
        self.device = choose_device(device)
        self.dtype = choose_dtype(self.device, precision)
        path = self.resolved.path
        # What the model's own files declare (sentence_conventions.py): "auto" pooling takes theirs, and the
        # prompts go in front of every passage and query this encoder reads.
        # `prompts` False: a library built before they were read keeps running without (library_keep).
        self.conventions = read_conventions(path, prompts=prompts)
        self.pooling = resolve_pooling(pooling, self.conventions, spec)
        self.query_prompt = self.conventions.query_prompt
        self.passage_prompt = self.conventions.passage_prompt

        self._needs_hidden = needs_hidden_states(self.pooling)
        self._tokenizer, self._model = self._load(path)
        self._autocast_dtype: Optional[torch.dtype] = None  # the benchmark's alternative to bf16 weights
        self._pad_values = pad_values_for(self._tokenizer)
        self.dim = int(self._model.config.hidden_size)
        self.max_seq_length = self._choose_max_seq_length(max_seq_length)
        self.fingerprint = model_fingerprint(self.resolved.sha256, self.pooling, self.max_seq_length,
                                             self.passage_prompt)

        # Fast tokenizers keep truncation/padding state and fail when used from two threads at once.
        self._lock = threading.Lock()
        # The chunker's tokenizer (ChunkingTokenizer): a private copy with truncation and padding off.
        ChunkingTokenizer.__init__(self, json_of(self._tokenizer.backend_tokenizer), self.max_seq_length)
        self._ids_cache: "OrderedDict[str, Encoding]" = OrderedDict()  # text -> its ids, no specials
        post = self._offsets_tokenizer.post_processor
        self._n_specials = int(post.num_special_tokens_to_add(False)) if post is not None else 0
        self._input_names = tuple(model_inputs(self._tokenizer, dict.fromkeys(ENCODING_FIELDS, 0)))
        self._reuse_ids = self._reuse_matches_tokenizer()
        # The passage prompt's ids, put in front of a passage's kept ids; where that is not what tokenizing the
        # prompted text gives, kept ids are not used (each passage is tokenized with its prompt in `encode`).
        self._prompt_head: Optional["Encoding"] = None
        if self.passage_prompt and self._reuse_ids:
            self._prompt_head = self._prompt_joins(self.passage_prompt)
            self._reuse_ids = self._prompt_head is not None
        self._bulk = self._bulk_tokenizer()  # used under self._lock, like self._tokenizer
        self._join_ids = self._reuse_ids and self._joining_matches_tokenizer()
        # Queries: a tokenizer of their own (fast tokenizers are not shared across threads) and no wait
        # for the bulk lane's lock.
        self._query_tokenizer: Any = (self._tokenizer.copy() if isinstance(self._tokenizer, FileTokenizer)
                                      else load_tokenizer(path, require_fast=True))
        self._query_lock = threading.Lock()
        self._lean: Optional[BertBody] = None
        self._lean = self._lean_forward()
        # Broken weights (a NaN in a checkpoint) are refused at load, exit 5, before they reach a library.
        require_finite(self.encode_query("a test sentence"), spec, "on a test sentence at load")

    def __repr__(self) -> str:
        return (
            f"BiEncoder({self.spec!r}, pooling={self.pooling!r}, device={self.device}, dtype={self.dtype}, "
            f"dim={self.dim}, max_seq_length={self.max_seq_length}, fingerprint={self.fingerprint!r})"
        )

    def count_tokens(self, text: str) -> int:
        """Word pieces in `text`, special tokens excluded (the model adds 2, e.g. [CLS] and [SEP])."""
        with self._offsets_lock:
            return len(self._offsets_tokenizer.encode(text, add_special_tokens=False).ids)

    def encode_query(self, text: str) -> np.ndarray:
        """(dim,) float32 unit vector of one query: never waits for a bulk `encode` running on another thread.

        1 intra-op thread: measured on a 2-core CPU, a 2-thread query collapses when indexing holds a core
        (perf-notes), and one short sequence gains little from a second thread anyway.
        """
        if not isinstance(text, str):
            raise TypeError(f"encode_query() takes a string, got {type(text).__name__}")
        with self._query_lock:
            enc = self._query_tokenizer([self.query_prompt + text], truncation=True, max_length=self.max_seq_length,
                                        padding=False)
            features = model_inputs(self._query_tokenizer, enc)
        inputs = self._collate(features, [0])
        threads = 1 if self.device.type == "cpu" else 0
        row: np.ndarray = to_host([self._forward(inputs, threads)])[0][0]  # the one row of a (1, dim) batch
        return row
