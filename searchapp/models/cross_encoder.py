"""Cross-encoder reranker: reads query and passage together, returns one relevance logit per pair.

On a bf16 CPU the transformer body runs with bf16 matmuls (see transformer.mixed_bf16; ≈2.5× faster than
fp32) while the pooler and classification head stay fp32, so logits keep full precision for ordering
near-ties (a bf16 logit of 8.53 would be rounded to a step of 0.06).

On CUDA the candidates of a query go through in one forward (batch 128 by default: measured on an H100,
rerank 50 cost 57 ms as 4 batches of 16, each with its own host round-trip), from pinned host memory with
non-blocking copies, and the logits come back in one copy.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Optional, Sequence

import numpy as np
import torch

from ..base.config import DEFAULT_RERANKER
from ..base.errors import ConfigError, ModelLoadError
from .batching import length_sorted_batches, restore_order
from .device import choose_device, choose_dtype
from .resolve import ResolvedModel, resolve_model
from .transformer import (
    collate,
    keep_fp32,
    load_model,
    load_tokenizer,
    model_inputs,
    pad_values_for,
    precision_context,
    refuse_custom_code,
    torch_threads,
)

__all__ = ["CrossEncoder", "sigmoid"]


def sigmoid(x: np.ndarray) -> np.ndarray:
    """Logits → 0..1, numerically stable for large |x| (no overflow warnings)."""
    x = np.asarray(x, dtype=np.float32)
    out = np.empty_like(x)
    pos = x >= 0
    with np.errstate(under="ignore"):  # exp(-1000) → 0 is the right answer, not an error
        out[pos] = 1.0 / (1.0 + np.exp(-x[pos]))
        ex = np.exp(x[~pos])
        out[~pos] = ex / (1.0 + ex)
    return out


class CrossEncoder:
    resolved: ResolvedModel
    device: torch.device
    dtype: torch.dtype

    def __init__(
        self,
        spec: str = DEFAULT_RERANKER,
        *,
        device: str = "auto",
        precision: str = "auto",
        batch_size: Optional[int] = None,
        max_length: int = 256,
        threads: int = 0,
    ) -> None:
        if batch_size is not None and batch_size < 1:
            raise ConfigError("batch_size must be >= 1")
        self.spec = spec
        self.threads = threads
        self.resolved = resolve_model(spec, kind="reranker")
        self.device = choose_device(device)
        self.dtype = choose_dtype(self.device, precision)
        # CPU: small batches keep padding and memory low; CUDA: one forward for a whole candidate list.
        self.batch_size = batch_size or (128 if self.device.type == "cuda" else 16)
        path = self.resolved.path
        _check_single_label(path)

        self._tokenizer = load_tokenizer(path)
        self._model = load_model(path, "AutoModelForSequenceClassification", self.device, self.dtype)
        if self.dtype != torch.float32:
            # The head reads one vector per pair: fp32 there costs nothing and keeps the logits exact.
            pooler = getattr(getattr(self._model, "base_model", None), "pooler", None)
            for module in (pooler, getattr(self._model, "classifier", None)):
                if isinstance(module, torch.nn.Module):
                    keep_fp32(module)
        self._autocast_dtype: Optional[torch.dtype] = None
        self._pad_values = pad_values_for(self._tokenizer)
        limit = int(getattr(self._model.config, "max_position_embeddings", 512) or 512)
        tok_max = int(self._tokenizer.model_max_length or 0)
        if 0 < tok_max < 100_000:
            limit = min(limit, tok_max)
        if max_length < 8:
            raise ConfigError(f"rerank max_length {max_length} is below 8 word pieces")
        # Clamped, not refused: the configured default (256) must work with a model that reads fewer.
        self.max_length = min(max_length, limit)
        self._pair_specials = self._tokenizer.num_special_tokens_to_add(pair=True)
        # Fast tokenizers are not thread-safe; the model is (inference mutates nothing), so only
        # tokenization is serialized and two searches' forwards can run side by side.
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"CrossEncoder({self.spec!r}, device={self.device}, dtype={self.dtype}, max_length={self.max_length})"

    def score(self, query: str, passages: Sequence[str]) -> np.ndarray:
        """(n,) float32 relevance logits of (query, passage) pairs, in input order; sigmoid() maps them to 0..1."""
        if isinstance(passages, str):
            raise TypeError("score() takes a sequence of passages; wrap a single passage in a list")
        passages = list(passages)
        if not passages:
            return np.zeros((0,), dtype=np.float32)
        with self._lock:
            # "only_second" keeps the whole query; it cannot when the query alone fills max_length.
            q_len = len(self._tokenizer(query, add_special_tokens=False)["input_ids"])
            strategy = "only_second" if q_len + self._pair_specials < self.max_length else "longest_first"
            enc = self._tokenizer(
                [query] * len(passages), passages, truncation=strategy, max_length=self.max_length, padding=False
            )
        features = model_inputs(self._tokenizer, enc)
        batches = length_sorted_batches([len(ids) for ids in features["input_ids"]], self.batch_size)
        results = []
        round_to = 16 if self.dtype == torch.bfloat16 and self.device.type == "cpu" else 1
        for idx in batches:
            inputs = collate(
                features, idx, pad_values=self._pad_values, padding_side=self._tokenizer.padding_side,
                device=self.device, round_to=round_to,
            )
            with torch_threads(self.threads), torch.inference_mode():
                with precision_context(self.device, self._autocast_dtype):
                    logits = self._model(**inputs, return_dict=True).logits  # (batch, 1)
                results.append(logits.float().reshape(-1))  # stays on the device until all batches are done
        flat = torch.cat(results).cpu().numpy()  # one device-to-host copy (one CUDA sync) per call
        parts, at = [], 0
        for r in results:
            parts.append(flat[at : at + len(r)])
            at += len(r)
        return restore_order(batches, parts).astype(np.float32, copy=False)


def _check_single_label(path: Path) -> None:
    """Refuse classifiers before loading them: a reranker needs exactly one score per pair."""
    from transformers import AutoConfig

    refuse_custom_code(path)
    try:
        n = int(AutoConfig.from_pretrained(str(path), local_files_only=True, trust_remote_code=False).num_labels)
    except Exception as exc:
        raise ModelLoadError(f"cannot read {path / 'config.json'}: {exc}") from exc
    if n != 1:
        raise ModelLoadError(
            f"{path} has {n} output labels; a reranker must give one relevance score per (query, passage) "
            "pair (num_labels = 1, e.g. cross-encoder/ms-marco-MiniLM-L-6-v2). A model with several labels "
            "is a classifier (e.g. NLI: entailment / neutral / contradiction) and cannot rank passages."
        )
