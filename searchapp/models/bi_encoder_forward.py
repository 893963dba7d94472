"""Model inputs -> L2-normalized float32 vectors: where a passage or a query becomes a vector.

One padded batch goes through the model (the fused CPU body, plain_bert's or transformers' module tree; `path`
says which), is pooled and normalized, and stays on the model's device until `to_host` brings all of a call's
batches back at once. Which precision and which forward run, and why:

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
"""

from __future__ import annotations

import logging
from typing import Any, Optional, Sequence

import numpy as np
import torch
import torch.nn.functional as F

from . import cpu_linear
from .lean_bert import BertBody
from .pooling import pool
from .transformer import collate, model_inputs, precision_context, torch_threads

__all__ = ["BiEncoderForward", "to_host"]

log = logging.getLogger(__name__)

# The fused CPU forward's vectors vs transformers' on the probe batch: bf16 rounding differs by ~1e-5
# (0.999987 at worst over 256 chunk-sized passages); a wrong mask or a skipped layer falls far below.
_LEAN_MIN_COSINE = 0.9999


class BiEncoderForward:
    """The forward of a BiEncoder (which loads the model and sets the attributes below)."""

    spec: str
    loaded_by: str  # "files" (plain_bert) or "transformers"
    device: torch.device
    dtype: torch.dtype
    pooling: str
    max_seq_length: int
    _model: Any
    _tokenizer: Any
    _pad_values: dict[str, int]
    _needs_hidden: bool  # the pooling reads hidden states before the last layer
    _autocast_dtype: Optional[torch.dtype]  # the benchmark's alternative to bf16 weights
    _lean: Optional[BertBody]  # the fused CPU body, when it agreed at load

    def _collate(self, features: dict[str, list[list[int]]], idx: Sequence[int]) -> dict[str, torch.Tensor]:
        return collate(
            features,
            idx,
            pad_values=self._pad_values,
            padding_side=self._tokenizer.padding_side,
            device=self.device,
            round_to=16 if self.dtype == torch.bfloat16 and self.device.type == "cpu" else 1,
        )

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


def to_host(results: list[torch.Tensor]) -> list[np.ndarray]:
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
