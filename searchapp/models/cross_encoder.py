"""Cross-encoder reranker: reads query and passage together, returns one relevance logit per pair.

On a bf16 CPU the transformer body runs with bf16 matmuls (see transformer.mixed_bf16; ≈2.5× faster than
fp32) while the pooler and classification head stay fp32, so logits keep full precision for ordering
near-ties (a bf16 logit of 8.53 would be rounded to a step of 0.06).

On CUDA the candidates of a query go through in one forward (batch 128 by default: measured on an H100,
rerank 50 cost 57 ms as 4 batches of 16, each with its own host round-trip), and the logits come back in one
copy. A plain BERT classifier (the ms-marco MiniLM rerankers) runs there as lean_bert's forward replayed from
CUDA graphs (cuda_graphs.py): the forward was launch-bound, ~7.5 ms of Python for well under a millisecond
of kernels. It is used only when its logits agree with transformers' own on a probe batch at load. On the
CPU the same forward runs on oneDNN-packed weights with GELU fused (cpu_linear.py), under the same check.
"""

from __future__ import annotations

import logging
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional, Sequence

import numpy as np
import torch

from ..base.config import DEFAULT_RERANKER
from ..base.errors import ConfigError, ModelLoadError
from . import cpu_linear, plain_bert
from .batching import length_sorted_batches, restore_order
from .device import choose_device, choose_dtype
from .lean_bert import LeanBertScorer
from .resolve import ResolvedModel, resolve_model
from .tokenizer_file import FileTokenizer
from .transformer import (
    apply_dtype,
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

if TYPE_CHECKING:  # imported where used: only a CUDA device builds one
    from .cuda_graphs import GraphedForward

__all__ = ["CrossEncoder", "sigmoid"]

log = logging.getLogger(__name__)
PROBE_ATOL = 0.05  # fp16 logits of the same pairs through two kernel orders differ by ~1e-2 at most
_FP32_PROBE_ATOL = 1e-3  # fp32 through oneDNN vs MKL: ~1e-6 on logits of a few units
# A query and passages of other lengths (so the batch is padded) the lean forwards are checked on at load.
_PROBE = ("which passage answers this question about probes",
          ["a short one.", "A longer passage with more words in it, so the rows differ in length. " * 3,
           "Ünïcode, digits 2024 and punctuation — all in one line."])


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
        graphs: bool = True,
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
        self._tokenizer, self._model = self._load(path)
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
        self._pair_backend: Any = None  # pair_arrays' copy of the Rust tokenizer, made on first use
        self._graphed: Optional[GraphedForward] = None  # the CUDA-graph forward score() uses when set
        self._fused: Optional[LeanBertScorer] = None  # the CPU's fused forward _forward_all uses when set
        if graphs and self.device.type == "cuda":
            self._graphed = self._graphed_forward()
        elif self.device.type == "cpu":
            self._fused = self._fused_forward()

    def _load(self, path: Path) -> tuple[Any, Any]:
        """(tokenizer, model): from tokenizer.json and the safetensors alone for a plain BERT classifier on the CPU
        (plain_bert.py, decision 0129: no transformers import, ~6 s less start on a 2-core CPU); through
        transformers otherwise. `loaded_by` says which. A classifier with several labels is refused either way."""
        self.loaded_by = "transformers"
        if self.device.type == "cpu":
            tok = FileTokenizer.from_files(path)  # None for a folder needing its own code: refused below
            model = plain_bert.load_classifier(path) if tok is not None else None
            if model is not None:
                _refuse_labels(path, model.config.num_labels)
                self.loaded_by = "files"
                return tok, apply_dtype(model, self.dtype)
        _check_single_label(path)
        return load_tokenizer(path), load_model(path, "AutoModelForSequenceClassification", self.device, self.dtype)

    @property
    def path(self) -> str:
        """Which forward scores pairs: "cuda graphs", "fused" (the CPU's), or the module's own: "plain"
        (plain_bert's) or "transformers" (benchmarks)."""
        if self._graphed is not None or self._fused is not None:
            return "cuda graphs" if self._graphed is not None else "fused"
        return "plain" if self.loaded_by == "files" else "transformers"

    def _fused_forward(self) -> Optional[LeanBertScorer]:
        """lean_bert's forward on oneDNN-packed weights (cpu_linear), if this model has one and its logits agree
        with the module's own (transformers' or plain_bert's) on a probe batch. Rerank-50 p50 on this 2-core AVX-512 BF16 CPU (bench_rerank_cpu.py):
        bf16 600 → 524 ms, fp32 1,488 → 790 ms (sentence-transformers fp32: 1,518 ms)."""
        if self._autocast_dtype is not None or self.dtype not in (torch.float32, torch.bfloat16) \
                or not cpu_linear.available():
            return None
        try:
            fused = LeanBertScorer.build(self._model, cpu_linear.packed_linear(self.dtype))
            if fused is None:
                return None
            self._check_on_probe("_fused", fused, PROBE_ATOL if self.dtype == torch.bfloat16 else _FP32_PROBE_ATOL)
        except Exception as exc:  # the module's own forward answers instead
            log.info("reranker %s: %s forward (no fused one: %s)", self.spec, self.loaded_by, exc)
            return None
        return fused

    def _check_on_probe(self, attr: str, forward: Any, atol: float) -> None:
        """Raise unless score() with `forward` set as `attr` gives the module's own logits (within `atol`) on a probe
        batch; `attr` is None again afterwards (the caller sets it from its return value)."""
        want = self.score(*_PROBE)  # the module's own forward: `attr` is still None
        setattr(self, attr, forward)
        try:
            got = self.score(*_PROBE)
            if getattr(self, attr) is not forward:  # score() fell back (and said why)
                raise RuntimeError("it failed on the probe batch")
            if not np.allclose(want, got, atol=atol, rtol=0):
                raise RuntimeError(f"logits differ by {float(np.abs(want - got).max()):.3g}")
        finally:
            setattr(self, attr, None)

    def _graphed_forward(self) -> Optional[GraphedForward]:
        """The lean forward in CUDA graphs, if this model has one and it agrees with transformers' logits."""
        from .cuda_graphs import WIDTH_STEP, GraphedForward

        lean = LeanBertScorer.build(self._model)
        positions = int(getattr(self._model.config, "max_position_embeddings", 0) or 0)
        if (lean is None or not getattr(self._tokenizer, "is_fast", False)
                or -(-self.max_length // WIDTH_STEP) * WIDTH_STEP > positions):  # padded widths must have positions
            return None
        graphed = GraphedForward(lean, self.device, max_rows=self.batch_size, max_width=self.max_length,
                                 pad_values=self._pad_values)
        try:
            self._check_on_probe("_graphed", graphed, PROBE_ATOL)
        except Exception as exc:  # transformers' forward answers instead
            log.info("reranker %s: no CUDA-graph forward (%s)", self.spec, exc)
            return None
        return graphed

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
            if self._graphed is not None:
                arrays = self.pair_arrays(query, passages, strategy)
            else:
                enc = self._tokenizer([query] * len(passages), passages, truncation=strategy,
                                      max_length=self.max_length, padding=False)
        if self._graphed is not None:
            try:
                return self._graphed_logits(arrays, self._graphed)
            except RuntimeError as exc:  # e.g. no GPU memory left to capture a new shape: not worth a failed search
                log.warning("reranker %s: CUDA graphs failed (%s); using the module's own forward from now on",
                            self.spec, exc)
                self._graphed = None
                return self.score(query, passages)
        return self._forward_all(model_inputs(self._tokenizer, enc))

    def pair_arrays(self, query: str, passages: Sequence[str], strategy: str) -> dict[str, np.ndarray]:
        """The pairs as (n, w) int64 arrays straight from the Rust tokenizer, padded there to a multiple of 32
        (the graphs' width step): what the tokenizer's __call__ gives, without its per-pair Python lists.
        Callers hold self._lock (the truncation setting is per call)."""
        from .cuda_graphs import WIDTH_STEP

        if self._pair_backend is None:
            import copy

            tok = self._tokenizer
            backend = copy.deepcopy(tok.backend_tokenizer)  # the tokenizer's own stays as transformers set it
            backend.enable_padding(pad_id=int(tok.pad_token_id), pad_type_id=self._pad_values["token_type_ids"],
                                   pad_token=str(tok.pad_token), pad_to_multiple_of=WIDTH_STEP)
            self._pair_backend = backend
        self._pair_backend.enable_truncation(self.max_length, strategy=strategy)
        encs = self._pair_backend.encode_batch([(query, p) for p in passages])
        return {"input_ids": np.array([e.ids for e in encs], dtype=np.int64),
                "attention_mask": np.array([e.attention_mask for e in encs], dtype=np.int64),
                "token_type_ids": np.array([e.type_ids for e in encs], dtype=np.int64)}

    def _graphed_logits(self, arrays: dict[str, np.ndarray], graphed: GraphedForward) -> np.ndarray:
        n = len(arrays["input_ids"])
        results: list[Any] = []  # torch tensors
        lengths = arrays["attention_mask"].sum(axis=1)
        for start in range(0, n, self.batch_size):
            rows = slice(start, start + self.batch_size)
            width = int(lengths[rows].max())  # a later slice may need fewer columns than the longest pair
            results.append(graphed({k: v[rows, :width] for k, v in arrays.items()}))
        logits: np.ndarray = torch.cat(results).cpu().numpy().astype(np.float32, copy=False)  # one copy, one sync
        return logits

    def _forward_all(self, features: dict[str, list[Any]]) -> np.ndarray:
        """Transformers' forward over unpadded tokenizer output, in length-sorted batches."""
        batches = length_sorted_batches([len(ids) for ids in features["input_ids"]], self.batch_size)
        results = []
        round_to = 16 if self.dtype == torch.bfloat16 and self.device.type == "cpu" else 1
        for idx in batches:
            inputs = collate(
                features, idx, pad_values=self._pad_values, padding_side=self._tokenizer.padding_side,
                device=self.device, round_to=round_to,
            )
            with torch_threads(self.threads), torch.inference_mode():
                if self._fused is not None:
                    logits = self._fused(inputs["input_ids"], inputs["attention_mask"], inputs.get("token_type_ids"))
                else:
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
    _refuse_labels(path, n)


def _refuse_labels(path: Path, n: int) -> None:
    if n != 1:
        raise ModelLoadError(
            f"{path} has {n} output labels; a reranker must give one relevance score per (query, passage) "
            "pair (num_labels = 1, e.g. cross-encoder/ms-marco-MiniLM-L-6-v2). A model with several labels "
            "is a classifier (e.g. NLI: entailment / neutral / contradiction) and cannot rank passages."
        )
