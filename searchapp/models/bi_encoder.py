"""Sentence-BERT bi-encoder: texts → L2-normalized float32 vectors, compared by dot product (= cosine).

Precision decision (tests/benchmarks/bench_encode.py, this 2-core AVX512-BF16 CPU, quiet, 2 threads;
256 scifact passages of ~195 word pieces / 1,000 STS-B sentences; vs sentence-transformers fp32):
  bf16 everywhere (weights + residual stream)   3.00× / 3.35×   min cosine 0.99992   top-10 0.991 / 0.990
  autocast bf16                                 2.52× / 3.19×   min cosine 0.99997   top-10 0.995
  mixed bf16 (chosen, transformer.mixed_bf16)   2.61× / 3.14×   min cosine 0.99997   top-10 0.995
bf16 everywhere passes 0.9999 by a hair (0.99991 on 1,500 passages) and flips twice as many neighbours;
autocast re-casts every weight on every call. Mixed keeps Linear weights in bf16 and LayerNorm/embeddings
in fp32, so residual sums and normalizations stay fp32: autocast's fidelity for 5-12% of bf16's speed.
"auto" therefore means mixed bf16 on CPUs where it is native and faster (models/cpu.bf16_pays), fp32 on other CPUs, fp16 weights on CUDA.
Re-measured against mixed (tests/benchmarks/bench_passage_paths.py, 2026-11-26): bf16 everywhere was no
faster on this AMD CPU nor on an AMX Xeon, and lost 0.46 nDCG@10 on TrecQA (mixed: 0.04); it is not offered.
The forward (2026-11-26, late): on the CPU a plain BERT pooled from its last layer runs lean_bert's body on
oneDNN-packed weights (cpu_linear.py): one QKV matmul on one cast instead of three of each, GELU inside the
up-projection. Same run (bench_passage_paths.py, 128 passages, 5 rounds, load 0.6-1.5), against
transformers' module tree: auto 94.9 -> 110.1 passages/s (2.69x -> 3.12x sentence-transformers fp32), fp32
35.2 -> 63.0 (1.00x -> 1.78x); min cosine to transformers' fp32 0.999976 and 1.0. It is used only when its
vectors agree with transformers' on a probe batch at load (`path` says which runs).
Pooling and normalization always run in float32. Vectors from any precision agree to that tolerance,
which is why the fingerprint leaves precision out.

Throughput and latency:
- One tokenization per passage: the chunker verifies passages through `token_offsets_batch`, which keeps
  the word-piece ids; `encode` takes them from there (truncated and given [CLS]/[SEP] by the tokenizer's
  own post-processor, checked equal to a fresh tokenization at load) instead of tokenizing again.
- Queries never wait for a bulk batch: `encode_query` has its own tokenizer and runs the forward beside
  a sync's (inference does not mutate the model) on 1 intra-op thread, so a 2-core CPU stays responsive.
- CUDA: batches are built in pinned host memory and copied with non_blocking=True; the embeddings of
  all batches stay on the device and come back in one copy at the end (one host sync per call, not per batch).
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional, Sequence

import numpy as np
import torch
import torch.nn.functional as F

from ..base.config import PACKAGED_BI_ENCODER
from ..base.cpu_share import CpuShare, threads_beside, usable_cores
from ..base.errors import ConfigError, ModelLoadError
from ..base.finite import require_finite
from ..base.progress import CancelToken, ProgressFn, report
from . import cpu_linear, plain_bert
from .batching import length_sorted_batches, restore_order
from .device import choose_device, choose_dtype
from .identity import model_fingerprint
from .lean_bert import BertBody
from .pooling import POOLING_MODES, needs_hidden_states, pool
from .resolve import ResolvedModel, resolve_model
from .sentence_conventions import read_conventions, resolve_pooling
from .tokenizer_file import FileTokenizer
from .transformer import (
    apply_dtype,
    collate,
    load_model,
    load_tokenizer,
    model_inputs,
    pad_values_for,
    precision_context,
    torch_threads,
)
from .chunking_tokenizer import ChunkingTokenizer

if TYPE_CHECKING:
    from tokenizers import Encoding, Tokenizer

__all__ = ["BiEncoder"]

log = logging.getLogger(__name__)

# Texts tokenized per lock hold: a query waiting behind a 10,000-text sync waits for one slice, not all.
_TOKENIZE_SLICE = 1024
# Word-piece ids the chunker computed, kept for `encode` (a sync encodes its passages within a batch of
# BATCH_CHUNKS of chunking them). Bounded: texts never encoded (e.g. split again) age out.
_IDS_CACHE = 8192
# Passages per forward on CUDA, whatever models.batch_size says for the CPU. Host work between forwards
# (tokenizing, collating) is what a GPU waits for: 20k chunk-sized passages on an H200 (bench_cuda.py,
# 2026-11-26) ran 2,519/s at 128 and 4,469/s at 512 (sentence-transformers at 128: 3,036 fp32, 3,061 fp16).
_CUDA_MIN_BATCH = 512
# Model input name -> the field of a tokenizers.Encoding that holds it.
_ENCODING_FIELDS = {"input_ids": "ids", "attention_mask": "attention_mask", "token_type_ids": "type_ids"}
# The fused CPU forward's vectors vs transformers' on the probe batch: bf16 rounding differs by ~1e-5
# (0.999987 at worst over 256 chunk-sized passages); a wrong mask or a skipped layer falls far below.
_LEAN_MIN_COSINE = 0.9999


class BiEncoder(ChunkingTokenizer):
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
        ChunkingTokenizer.__init__(self, self._tokenizer.backend_tokenizer.to_str(), self.max_seq_length)
        self._ids_cache: "OrderedDict[str, Encoding]" = OrderedDict()  # text -> its ids, no specials
        post = self._offsets_tokenizer.post_processor
        self._n_specials = int(post.num_special_tokens_to_add(False)) if post is not None else 0
        self._input_names = tuple(model_inputs(self._tokenizer, dict.fromkeys(_ENCODING_FIELDS, 0)))
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

    def _load(self, path: Path) -> tuple[Any, Any]:
        """(tokenizer, model): from tokenizer.json and the safetensors alone for a plain BERT on the CPU pooled from
        its last layer (plain_bert.py: no transformers import, ~6 s less start on a 2-core CPU); through
        transformers otherwise. `loaded_by` says which."""
        self.loaded_by = "transformers"
        if self.device.type == "cpu" and not self._needs_hidden:
            tok = FileTokenizer.from_files(path)  # None for a folder needing its own code: refused below
            model = plain_bert.load(path) if tok is not None else None
            if model is not None:
                self.loaded_by = "files"
                return tok, apply_dtype(model, self.dtype)
        # BERT's pooler (a dense layer on [CLS]) is never read by token pooling, so checkpoints may lack it.
        return (load_tokenizer(path, require_fast=True),
                load_model(path, "AutoModel", self.device, self.dtype, optional_prefixes=("pooler.",)))

    def token_offsets_batch(self, texts: Sequence[str]) -> list[list[tuple[int, int]]]:
        """ChunkingTokenizer's, and the ids are kept for `encode`, so a passage the chunker verified is not
        tokenized twice."""
        texts = list(texts)
        if not texts:
            return []
        with self._offsets_lock:
            encs = self._offsets_tokenizer.encode_batch(texts, add_special_tokens=False)
            if self._reuse_ids:
                cache = self._ids_cache
                for t, enc in zip(texts, encs, strict=True):
                    cache[t] = enc
                    cache.move_to_end(t)
                while len(cache) > _IDS_CACHE:
                    cache.popitem(last=False)
        return [enc.offsets for enc in encs]

    def remember_joined(self, prefix: str, texts: Sequence[str], joined: Sequence[str]) -> None:
        """Keep for `encode` the ids of each `joined[i]` (= prefix + line break + texts[i], see
        ingest/passage_context.py) made from the chunker's ids of texts[i] and one tokenization of `prefix`: a
        title in front of every passage costs one tokenization per file, not a second one per passage. Only for
        tokenizers where this equals tokenizing the joined text (checked once); others tokenize it in `encode`."""
        if not self._join_ids:
            return
        from tokenizers import Encoding

        with self._offsets_lock:
            cache = self._ids_cache
            found = [(cache.get(text), whole) for text, whole in zip(texts, joined, strict=True)]
            if all(enc is None for enc, _ in found):  # no passage was tokenized on its own: nothing to join
                return
            head = cache.get(prefix) or self._offsets_tokenizer.encode(prefix, add_special_tokens=False)
            for (enc, whole), text in zip(found, texts, strict=True):
                if enc is not None and whole != text:
                    cache[whole] = Encoding.merge([head, enc], growing_offsets=True)
                    cache.move_to_end(whole)
            while len(cache) > _IDS_CACHE:
                cache.popitem(last=False)

    def count_tokens(self, text: str) -> int:
        """Word pieces in `text`, special tokens excluded (the model adds 2, e.g. [CLS] and [SEP])."""
        with self._offsets_lock:
            return len(self._offsets_tokenizer.encode(text, add_special_tokens=False).ids)

    def encode(
        self,
        texts: Sequence[str],
        *,
        batch_size: Optional[int] = None,
        progress: Optional[ProgressFn] = None,
        cancel: Optional[CancelToken] = None,
        background: bool = False,
    ) -> np.ndarray:
        """(n, dim) float32 unit vectors in input order; texts longer than max_seq_length are truncated.
        `background` (a sync's meaning pass): on a CPU, each batch uses the threads other processes leave, at
        least one and at most the setting (base/cpu_share.py; `last_threads` says what the last batch used)."""
        if isinstance(texts, str):
            raise TypeError("encode() takes a sequence of strings; wrap a single text in a list")
        texts = list(texts)
        for t in texts:
            if not isinstance(t, str):
                raise TypeError(f"encode() takes strings, got {type(t).__name__}")
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        features = self._tokenize(texts)
        lengths = [len(ids) for ids in features["input_ids"]]
        size = batch_size or self.batch_size
        if batch_size is None and self.device.type == "cuda":
            size = max(size, _CUDA_MIN_BATCH)  # a CPU-sized batch leaves the GPU idle between host round-trips
        batches = length_sorted_batches(lengths, size)
        results: list[torch.Tensor] = []
        done = 0
        for idx in batches:
            if cancel is not None:
                cancel.check()
            inputs = self._collate(features, idx)
            # No lock: inference does not mutate the model, so a query's forward runs beside this one.
            results.append(self._forward(inputs, self._batch_threads(background)))
            done += len(idx)
            report(progress, "embedding", done, len(texts))
        return restore_order(batches, _to_host(results))

    def _batch_threads(self, background: bool) -> int:
        """The intra-op threads for the next batch (0: torch's setting, off the CPU)."""
        configured = self._configured_threads
        if background and self.device.type == "cpu" and configured > 1:
            share = self._cpu_share.read()  # since the previous batch (or call)
            if share is not None:
                self._background_threads = threads_beside(configured, share[0], usable_cores())
            threads = self._background_threads or configured
        else:
            threads = configured if self.device.type == "cpu" else self.threads
        self.last_threads = threads or configured
        return threads

    def stepping_aside(self) -> tuple[int, int]:
        """(threads the last background batch used, the setting): fewer while other programs keep the CPU busy."""
        return (self._background_threads or self._configured_threads), self._configured_threads

    @property
    def bulk_batch(self) -> int:
        """How many texts a bulk caller (a sync's meaning pass) should at least hand `encode` at once: on CUDA
        one forward's worth (a smaller call leaves the GPU idle); 0 elsewhere, where the caller's own batch
        keeps cancelling and progress fine-grained."""
        return max(self.batch_size, _CUDA_MIN_BATCH) if self.device.type == "cuda" else 0

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
        row: np.ndarray = _to_host([self._forward(inputs, threads)])[0][0]  # the one row of a (1, dim) batch
        return row

    def _collate(self, features: dict[str, list[list[int]]], idx: Sequence[int]) -> dict[str, torch.Tensor]:
        return collate(
            features,
            idx,
            pad_values=self._pad_values,
            padding_side=self._tokenizer.padding_side,
            device=self.device,
            round_to=16 if self.dtype == torch.bfloat16 and self.device.type == "cpu" else 1,
        )

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
        from tokenizers import Tokenizer

        try:
            tok = Tokenizer.from_str(self._tokenizer.backend_tokenizer.to_str())
            tok.no_padding()
            tok.enable_truncation(self.max_seq_length, direction=self._tokenizer.truncation_side)
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
        return {k: [getattr(e, _ENCODING_FIELDS[k]) for e in encs] for k in self._input_names}

    def _finish(self, enc: "Encoding", names: Sequence[str]) -> dict[str, list[int]]:
        """A chunker encoding (no specials) → model inputs: truncated, then the tokenizer's own specials."""
        enc.truncate(self.max_seq_length - self._n_specials)
        enc = self._offsets_tokenizer.post_process(enc, None, True)
        row = {"input_ids": enc.ids, "attention_mask": enc.attention_mask, "token_type_ids": enc.type_ids}
        return {k: v for k, v in row.items() if k in names}

    def _joining_matches_tokenizer(self) -> bool:
        """Whether ids(prefix) + ids(text) == ids(prefix + "\n" + text) for this tokenizer (WordPiece: yes;
        tokenizers that mark a word's leading space may not be)."""
        from tokenizers import Encoding

        prefix, text = "Probe title: one tokenization", "per passage, checked once."
        try:
            tok = self._offsets_tokenizer
            merged = Encoding.merge([tok.encode(prefix, add_special_tokens=False),
                                     tok.encode(text, add_special_tokens=False)], growing_offsets=True)
            return merged.ids == tok.encode(f"{prefix}\n{text}", add_special_tokens=False).ids
        except Exception:
            return False

    def _prompt_joins(self, prompt: str) -> Optional["Encoding"]:
        """The ids of `prompt` alone if ids(prompt) + ids(text) == ids(prompt + text) on probe texts (WordPiece
        with a prompt ending in a space or colon: yes), else None."""
        from tokenizers import Encoding

        tok = self._offsets_tokenizer
        try:
            head = tok.encode(prompt, add_special_tokens=False)
            for text in ("Probe passage, checked once.", "ünïcödé 東京 12,345"):
                merged = Encoding.merge([head, tok.encode(text, add_special_tokens=False)], growing_offsets=True)
                if merged.ids != tok.encode(prompt + text, add_special_tokens=False).ids:
                    return None
            return head
        except Exception:  # each passage is tokenized with its prompt instead
            return None

    def _reuse_matches_tokenizer(self) -> bool:
        """Whether `_finish` reproduces the tokenizer's own output (else `encode` always tokenizes anew)."""
        probe = "Probe: one tokenization per passage, checked once. " * 40
        try:
            mine = self._finish(self._offsets_tokenizer.encode(probe, add_special_tokens=False), self._input_names)
            ref = model_inputs(self._tokenizer, self._tokenizer(probe, truncation=True, max_length=self.max_seq_length))
            return all(list(ref[k]) == mine.get(k) for k in ref)
        except Exception:  # a tokenizer without these hooks simply tokenizes twice
            return False

    @property
    def path(self) -> str:
        """Which forward encodes: "fused" (lean_bert's body on oneDNN-packed weights), "plain" (plain_bert's, on
        F.linear) or "transformers" (its module tree)."""
        if self._lean is not None:
            return "fused"
        return "plain" if self.loaded_by == "files" else "transformers"

    def _lean_forward(self) -> Optional[BertBody]:
        """lean_bert's body on oneDNN-packed weights, for a plain BERT on the CPU pooled from its last layer,
        if its vectors agree with the module's own forward (transformers' or plain_bert's) on a probe batch; None
        keeps that forward."""
        if (self.device.type != "cpu" or self._needs_hidden or self._autocast_dtype is not None
                or self.dtype not in (torch.float32, torch.bfloat16) or not cpu_linear.available()):
            return None
        texts = ["a short probe.", "A longer probe passage, so the batch is padded and the mask matters. " * 4]
        try:
            lean = BertBody.build(self._model, cpu_linear.packed_linear(self.dtype))
            if lean is None:
                return None
            enc = self._tokenizer(texts, truncation=True, max_length=self.max_seq_length, padding=False)
            inputs = self._collate(model_inputs(self._tokenizer, enc), [0, 1])
            want = self._forward(inputs, 0)  # the module's own forward: self._lean is still None
            self._lean = lean
            got = self._forward(inputs, 0)
            agree = float((want * got).sum(dim=1).min())
            if not agree >= _LEAN_MIN_COSINE:  # NaN fails too
                raise RuntimeError(f"min cosine {agree:.6f} to the module's own forward")
        except Exception as exc:  # the module's own forward encodes instead
            log.info("bi-encoder %s: %s forward (no fused one: %s)", self.spec, self.loaded_by, exc)
            return None
        finally:
            self._lean = None  # set by the caller from the return value
        return lean

    def _forward(self, inputs: dict[str, torch.Tensor], threads: int) -> torch.Tensor:
        """(batch, dim) float32 unit vectors, left on the model's device (the caller copies them back once)."""
        with torch_threads(threads), torch.inference_mode():
            if self._lean is not None:
                hidden = self._lean(inputs["input_ids"], inputs["attention_mask"], inputs.get("token_type_ids"))
                emb = pool(hidden, inputs["attention_mask"], self.pooling)  # (batch, dim) float32
                return F.normalize(emb, p=2, dim=1)
            with precision_context(self.device, self._autocast_dtype):
                out = self._model(**inputs, output_hidden_states=self._needs_hidden, return_dict=True)
            emb = pool(
                out.last_hidden_state,  # (batch, seq, dim) in the model's dtype
                inputs["attention_mask"],
                self.pooling,
                hidden_states=out.hidden_states if self._needs_hidden else None,
            )  # (batch, dim) float32
            return F.normalize(emb.float(), p=2, dim=1)

    def _choose_max_seq_length(self, requested: Optional[int]) -> int:
        # Position embeddings bound what the model can read at all.
        limit = int(getattr(self._model.config, "max_position_embeddings", 512) or 512)
        tok_max = int(self._tokenizer.model_max_length or 0)
        if 0 < tok_max < 100_000:  # unset tokenizers report a huge sentinel
            limit = min(limit, tok_max)
        if requested is not None:
            if requested < 2 or requested > limit:
                raise ConfigError(f"max_seq_length {requested} is outside 2..{limit} for {self.resolved.path}")
            return int(requested)
        configured = sentence_bert_max_seq_length(self.resolved.path)
        return min(configured, limit) if configured else min(limit, 512)


def _to_host(results: list[torch.Tensor]) -> list[np.ndarray]:
    """Per-batch device tensors → NumPy, with one device-to-host copy (one CUDA sync) for all of them."""
    if not results:
        return []
    if results[0].device.type == "cpu":
        return [r.numpy().astype(np.float32, copy=False) for r in results]
    flat = torch.cat(results).cpu().numpy().astype(np.float32, copy=False)
    out, at = [], 0
    for r in results:
        out.append(flat[at : at + len(r)])
        at += len(r)
    return out


def sentence_bert_max_seq_length(path: Path) -> Optional[int]:
    """max_seq_length from sentence_bert_config.json, beside the weights or one level up (module folders)."""
    import json

    folders = [path] + ([path.parent] if (path.parent / "modules.json").is_file() else [])
    for folder in folders:
        cfg = folder / "sentence_bert_config.json"
        if cfg.is_file():
            try:
                value = json.loads(cfg.read_text(encoding="utf-8")).get("max_seq_length")
            except (OSError, ValueError) as exc:
                raise ModelLoadError(f"{cfg}: {exc}") from None
            return int(value) if value else None
    return None
