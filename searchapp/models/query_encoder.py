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
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional

import numpy as np

from ..base.errors import ModelLoadError

if TYPE_CHECKING:
    from tokenizers import Tokenizer

__all__ = ["NumpyQueryEncoder", "load_query_encoder", "SUPPORTED_POOLING"]

SUPPORTED_POOLING = ("mean", "cls", "max")
_ACTS = {"gelu", "relu", "gelu_new", "gelu_pytorch_tanh"}


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


class NumpyQueryEncoder:
    def __init__(self, path: Path, cfg: dict[str, Any], *, pooling: str, max_seq_length: int, prompt: str = "") -> None:
        self.pooling = pooling
        self.prompt = prompt  # the model's query prompt, put in front of every query (sentence_conventions.py)
        self.heads = int(cfg["num_attention_heads"])
        self.layers = int(cfg["num_hidden_layers"])
        self.eps = float(cfg.get("layer_norm_eps", 1e-12))
        self.act = cfg.get("hidden_act", "gelu")
        self.w, self.tokenizer = _model_files(str(path), max_seq_length, _stamp(path))
        self.dim = int(self.w["embeddings.word_embeddings.weight"].shape[1])
        self._lock = threading.Lock()  # the BLAS thread limit is process-wide: one query at a time

    def encode_one(self, text: str) -> np.ndarray:
        """(dim,) float32 unit vector of `text`."""
        try:
            from threadpoolctl import threadpool_limits
        except ImportError:  # without it BLAS picks its own thread count: right, only slower on a busy CPU
            with self._lock:
                return self._encode(text)
        # A few rows per matrix product: BLAS threads only add hand-offs (measured 35 ms on one thread
        # against 2.6 s with OpenBLAS's default pool on this 2-core CPU under load).
        with self._lock, threadpool_limits(1, user_api="blas"):
            return self._encode(text)

    def _encode(self, text: str) -> np.ndarray:
        enc = self.tokenizer.encode(self.prompt + text)
        ids = np.asarray(enc.ids, dtype=np.int64)
        types = np.asarray(enc.type_ids, dtype=np.int64)
        w = self.w
        x = (w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][: len(ids)]
             + w["embeddings.token_type_embeddings.weight"][types])
        x = self._norm(x, "embeddings.LayerNorm")
        for i in range(self.layers):
            x = self._layer(x, f"encoder.layer.{i}.")
        if self.pooling == "mean":
            v = x.mean(axis=0)
        elif self.pooling == "cls":
            v = x[0]
        else:
            v = x.max(axis=0)
        v = v.astype(np.float32)
        unit: np.ndarray = v / max(float(np.linalg.norm(v)), 1e-12)
        return unit

    def _linear(self, x: np.ndarray, name: str) -> np.ndarray:
        y: np.ndarray = x @ self.w[name + ".weight"].T + self.w[name + ".bias"]
        return y

    def _norm(self, x: np.ndarray, name: str) -> np.ndarray:
        mu = x.mean(axis=-1, keepdims=True)
        var = ((x - mu) ** 2).mean(axis=-1, keepdims=True)
        y: np.ndarray = (x - mu) / np.sqrt(var + self.eps) * self.w[name + ".weight"] + self.w[name + ".bias"]
        return y

    def _layer(self, x: np.ndarray, p: str) -> np.ndarray:
        t, d = x.shape
        h = self.heads
        dh = d // h

        def split(m: np.ndarray) -> np.ndarray:
            return m.reshape(t, h, dh).transpose(1, 0, 2)  # (h, t, dh)

        q = split(self._linear(x, p + "attention.self.query"))
        k = split(self._linear(x, p + "attention.self.key"))
        v = split(self._linear(x, p + "attention.self.value"))
        scores = q @ k.transpose(0, 2, 1) / np.float32(math.sqrt(dh))  # one unpadded text: no mask
        scores = np.exp(scores - scores.max(axis=-1, keepdims=True))
        scores /= scores.sum(axis=-1, keepdims=True)
        ctx = (scores @ v).transpose(1, 0, 2).reshape(t, d)
        x = self._norm(self._linear(ctx, p + "attention.output.dense") + x, p + "attention.output.LayerNorm")
        inner = self._activate(self._linear(x, p + "intermediate.dense"))
        return self._norm(self._linear(inner, p + "output.dense") + x, p + "output.LayerNorm")

    def _activate(self, x: np.ndarray) -> np.ndarray:
        if self.act == "relu":
            relu: np.ndarray = np.maximum(x, 0)
            return relu
        if self.act == "gelu":  # exact (erf) GELU, as BERT and transformers' "gelu"
            return (0.5 * x * (1.0 + _erf(x / np.float32(math.sqrt(2.0))))).astype(np.float32)
        return 0.5 * x * (1.0 + np.tanh(np.float32(math.sqrt(2.0 / math.pi)) * (x + 0.044715 * x ** 3)))
