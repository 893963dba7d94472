"""One query through a BERT bi-encoder in NumPy: a cold command-line search without torch or transformers.

A dense or hybrid search from a fresh process needs one vector for a few words. Importing torch and
transformers and building the model costs seconds of start-up on a small CPU; the forward pass for ten
word pieces costs milliseconds. This module runs that pass with NumPy on the same safetensors weights and
the same tokenizer.json (the `tokenizers` package, no torch), in float32. Its vectors agree with
BiEncoder's to cosine >= 0.9999 (tests/e2e/test_fast_start.py), the tolerance vectors of any precision meet.

Only the plain BERT family (model_type "bert", absolute positions, gelu/relu) with mean, cls or max pooling
is handled; anything else returns None from `load_query_encoder` and the caller uses BiEncoder. Indexing
(thousands of passages) always uses BiEncoder, which batches, uses the GPU and bf16 where they exist.
"""

from __future__ import annotations

import functools
import json
import math
import os
import threading
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional, Sequence

import numpy as np

from ..base.cpu_share import CpuShare, threads_beside, usable_cores
from ..base.errors import ModelLoadError

if TYPE_CHECKING:
    from tokenizers import Tokenizer

__all__ = ["NumpyQueryEncoder", "load_query_encoder", "SUPPORTED_POOLING"]

SUPPORTED_POOLING = ("mean", "cls", "max")
_ACTS = {"gelu", "relu", "gelu_new", "gelu_pytorch_tanh"}
# Packed rows (word pieces of all texts at once) per BLAS thread: below it one thread is faster (hand-offs).
PACKED_ROWS_PER_THREAD = 256
# The BLAS thread limit is the process's, whichever encoder sets it: one call at a time over all of them.
_BLAS_LOCK = threading.Lock()
# Rows activated at once: the erf of 16 packed passages in one go took 0.50 s against 0.21 s one passage at a time
# (2026-11-30, AVX-512 EPYC: its float64 temporaries of ~50 MB ran from memory, not the cache).
ACTIVATE_ROWS = 256


def _erf(x: np.ndarray) -> np.ndarray:
    """erf to ~1e-7 (Abramowitz & Stegun 7.1.26), vectorized: NumPy has no erf and SciPy costs an import."""
    s = np.sign(x)
    a = np.abs(x).astype(np.float64)
    t = 1.0 / (1.0 + 0.3275911 * a)
    poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))))
    out: np.ndarray = (s * (1.0 - poly * np.exp(-a * a))).astype(np.float32)
    return out


def load_query_encoder(path: Path, *, pooling: str, max_seq_length: int,
                       prompts: bool = True) -> Optional["NumpyQueryEncoder"]:
    """A NumPy encoder for the model folder `path`, or None when this model or pooling is not supported.
    `pooling`: models.pooling ("auto": the model's declared one); the model's query prompt goes in front."""
    from .sentence_conventions import read_conventions, resolve_pooling

    try:
        conventions = read_conventions(path, prompts=prompts)
        pooling = resolve_pooling(pooling, conventions)
    except ModelLoadError:  # the torch bi-encoder says why, in one line
        return None
    if pooling not in SUPPORTED_POOLING:
        return None
    try:
        cfg = json.loads((path / "config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if (cfg.get("model_type") != "bert" or cfg.get("position_embedding_type", "absolute") != "absolute"
            or cfg.get("hidden_act", "gelu") not in _ACTS or not (path / "tokenizer.json").is_file()
            or not (path / "model.safetensors").is_file()):
        return None
    # A malformed folder (a config without num_attention_heads, weights missing or of the wrong shape, a
    # truncated safetensors file) or weights that give NaN: this fast path declines and the caller loads
    # the torch BiEncoder, which either works (transformers reads more layouts than this module) or
    # refuses the folder with its own ModelLoadError (exit 5). Falling back rather than failing here keeps
    # one judge of what a usable model is; a probe query catches what only shows when the weights are used.
    try:
        encoder = NumpyQueryEncoder(path, cfg, pooling=pooling, max_seq_length=max_seq_length,
                                    prompt=conventions.query_prompt)
        probe = encoder.encode_one("a test sentence")
    except Exception:  # any failure of the optional fast path means "use the torch encoder"
        return None
    if probe.shape != (encoder.dim,) or not np.isfinite(probe).all():
        return None
    return encoder


def _stamp(path: Path) -> tuple[tuple[int, int, int], ...]:
    """What says the folder's weights and tokenizer are the ones read before: (inode, size, mtime) of each."""
    return tuple((st.st_ino, st.st_size, st.st_mtime_ns)
                 for st in (os.stat(path / "model.safetensors"), os.stat(path / "tokenizer.json")))


@functools.lru_cache(maxsize=2)
def _model_files(path: str, max_seq_length: int,
                 stamp: tuple[tuple[int, int, int], ...]) -> tuple[dict[str, np.ndarray], "Tokenizer"]:
    """The weights (float32, read-only) and the truncating tokenizer of a model folder, read once a process while
    its files stay the same (`stamp`): every Library a process opens on the same model (the window switching
    libraries, a test suite's hundreds) shares them instead of reading ~90 MB and parsing tokenizer.json again
    (~0.15 CPU s). Shared safely: the arrays cannot be written, and the tokenizer is configured here, once, and
    only encodes after (a Rust tokenizer's encode reads it)."""
    from safetensors.numpy import load_file
    from tokenizers import Tokenizer

    weights = load_file(str(Path(path) / "model.safetensors"))
    # BertModel saves "embeddings.…"; a model saved from a task head prefixes "bert.".
    prefix = "bert." if "bert.embeddings.word_embeddings.weight" in weights else ""
    w = {k[len(prefix):]: v.astype(np.float32, copy=False) for k, v in weights.items() if k.startswith(prefix)}
    for array in w.values():
        array.flags.writeable = False
    tokenizer = Tokenizer.from_file(str(Path(path) / "tokenizer.json"))
    tokenizer.no_padding()
    tokenizer.enable_truncation(max_length=max_seq_length)
    return w, tokenizer


def _blas_threads(threads: int) -> AbstractContextManager[Any]:
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # without it BLAS picks its own thread count: right, only slower on a busy CPU
        return nullcontext()
    limits: AbstractContextManager[Any] = threadpool_limits(threads, user_api="blas")
    return limits


class NumpyQueryEncoder:
    def __init__(self, path: Path, cfg: dict[str, Any], *, pooling: str, max_seq_length: int, prompt: str = "") -> None:
        self.pooling = pooling
        self.prompt = prompt  # the model's query prompt, put in front of every query (sentence_conventions.py)
        self.heads = int(cfg["num_attention_heads"])
        self.layers = int(cfg["num_hidden_layers"])
        self.eps = float(cfg.get("layer_norm_eps", 1e-12))
        self.act = cfg.get("hidden_act", "gelu")
        # Other programs' share of the cores, from before the weights load: a command line's first search has
        # read them (~0.1-0.3 s) by the time its passages come, enough for /proc/stat to tell (base/cpu_share.py).
        self._cpu_share = CpuShare()
        self.w, self.tokenizer = _model_files(str(path), max_seq_length, _stamp(path))
        self.dim = int(self.w["embeddings.word_embeddings.weight"].shape[1])

    def encode_one(self, text: str) -> np.ndarray:
        """(dim,) float32 unit vector of `text`."""
        vector: np.ndarray = self.encode_many([text])[0]
        return vector

    def encode_many(self, texts: Sequence[str]) -> np.ndarray:
        """(n, dim) float32 unit vectors of `texts` (a NaN row for a text of no word pieces), packed: every text's
        word pieces are rows of one matrix, with no padding, and attention reads each text's own rows alone.
        So n passages cost one matrix product per weight instead of n (search/meaning_now.py embeds a search's
        passages this way in a process without torch), and each vector is the one `encode_one` gives."""
        texts = list(texts)
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        with _BLAS_LOCK:
            encs = self.tokenizer.encode_batch([self.prompt + t for t in texts])
            with _blas_threads(self._threads(sum(len(e.ids) for e in encs))):
                return self._encode(encs)

    def _threads(self, rows: int) -> int:
        """A few rows per matrix product (a query): one BLAS thread, as more only add hand-offs (measured 35 ms on
        one thread against 2.6 s with OpenBLAS's default pool on a 2-core CPU under load). Many rows (a search's
        passages): the cores other programs left since the last reading (base/cpu_share.py), one when that is
        unknown (no /proc/stat, or under 0.1 s since)."""
        if rows < PACKED_ROWS_PER_THREAD:
            return 1
        share = self._cpu_share.read()
        if share is None:
            return 1
        cores = usable_cores()
        return max(1, min(threads_beside(cores, share[0], cores), rows // PACKED_ROWS_PER_THREAD))

    def _encode(self, encs: Sequence[Any]) -> np.ndarray:
        lengths = np.asarray([len(e.ids) for e in encs], dtype=np.int64)
        out = np.full((len(encs), self.dim), np.nan, dtype=np.float32)
        kept = np.flatnonzero(lengths)  # a text of no word pieces has no vector (the caller drops a NaN row)
        if not kept.size:
            return out
        ids = np.concatenate([np.asarray(encs[int(i)].ids, dtype=np.int64) for i in kept])
        types = np.concatenate([np.asarray(encs[int(i)].type_ids, dtype=np.int64) for i in kept])
        n = lengths[kept]
        ends = np.cumsum(n)
        starts = ends - n
        positions = np.arange(int(ends[-1])) - np.repeat(starts, n)
        w = self.w
        x = (w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][positions]
             + w["embeddings.token_type_embeddings.weight"][types])
        x = self._norm(x, "embeddings.LayerNorm")
        spans = list(zip(starts.tolist(), ends.tolist(), strict=True))
        for i in range(self.layers):
            x = self._layer(x, f"encoder.layer.{i}.", spans)
        if self.pooling == "mean":
            v = np.add.reduceat(x, starts, axis=0) / n[:, None].astype(np.float32)
        elif self.pooling == "cls":
            v = x[starts]
        else:
            v = np.maximum.reduceat(x, starts, axis=0)
        v = v.astype(np.float32)
        out[kept] = v / np.maximum(np.linalg.norm(v, axis=1, keepdims=True), np.float32(1e-12))
        return out

    def _linear(self, x: np.ndarray, name: str) -> np.ndarray:
        y: np.ndarray = x @ self.w[name + ".weight"].T + self.w[name + ".bias"]
        return y

    def _norm(self, x: np.ndarray, name: str) -> np.ndarray:
        mu = x.mean(axis=-1, keepdims=True)
        var = ((x - mu) ** 2).mean(axis=-1, keepdims=True)
        y: np.ndarray = (x - mu) / np.sqrt(var + self.eps) * self.w[name + ".weight"] + self.w[name + ".bias"]
        return y

    def _layer(self, x: np.ndarray, p: str, spans: Sequence[tuple[int, int]]) -> np.ndarray:
        d = x.shape[1]
        h = self.heads
        dh = d // h
        q = self._linear(x, p + "attention.self.query")
        k = self._linear(x, p + "attention.self.key")
        v = self._linear(x, p + "attention.self.value")
        ctx = np.empty_like(q)
        scale = np.float32(math.sqrt(dh))
        for a, b in spans:  # each text attends to its own rows: unpadded, so no mask
            qs, ks, vs = (m[a:b].reshape(b - a, h, dh).transpose(1, 0, 2) for m in (q, k, v))  # (h, t, dh)
            scores = qs @ ks.transpose(0, 2, 1) / scale
            scores = np.exp(scores - scores.max(axis=-1, keepdims=True))
            scores /= scores.sum(axis=-1, keepdims=True)
            ctx[a:b] = (scores @ vs).transpose(1, 0, 2).reshape(b - a, d)
        x = self._norm(self._linear(ctx, p + "attention.output.dense") + x, p + "attention.output.LayerNorm")
        inner = self._activate(self._linear(x, p + "intermediate.dense"))
        return self._norm(self._linear(inner, p + "output.dense") + x, p + "output.LayerNorm")

    def _activate(self, x: np.ndarray) -> np.ndarray:
        if len(x) > ACTIVATE_ROWS:  # packed texts: in blocks of rows whose float64 temporaries stay in the cache
            return np.concatenate([self._activate(x[a:a + ACTIVATE_ROWS]) for a in range(0, len(x), ACTIVATE_ROWS)])
        if self.act == "relu":
            relu: np.ndarray = np.maximum(x, 0)
            return relu
        if self.act == "gelu":  # exact (erf) GELU, as BERT and transformers' "gelu"
            return (0.5 * x * (1.0 + _erf(x / np.float32(math.sqrt(2.0))))).astype(np.float32)
        return 0.5 * x * (1.0 + np.tanh(np.float32(math.sqrt(2.0 / math.pi)) * (x + 0.044715 * x ** 3)))
