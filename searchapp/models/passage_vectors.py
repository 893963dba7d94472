"""Passages -> vectors in batches: `encode`, the loop a sync's meaning pass runs.

The texts become model inputs (passage_tokenizer.py), are cut into batches of similar length (batching.py) and
each batch goes through the forward (bi_encoder_forward.py) on the threads encode_threads.py gives it; the
vectors come back in input order. Cancelling and progress are checked between batches.

CUDA: batches are built in pinned host memory and copied with non_blocking=True; the embeddings of all batches
stay on the device and come back in one copy at the end (one host sync per call, not per batch); unless the caller
names a batch size, a batch is at least `_CUDA_MIN_BATCH` passages, so the GPU waits less for the host.
"""

from __future__ import annotations

from typing import Optional, Sequence

import numpy as np
import torch

from ..base.progress import CancelToken, ProgressFn, report
from .batching import length_sorted_batches, restore_order
from .bi_encoder_forward import BiEncoderForward, to_host
from .encode_threads import EncodeThreads
from .passage_tokenizer import PassageTokenizer

__all__ = ["PassageVectors"]

# Passages per forward on CUDA, whatever models.batch_size says for the CPU. Host work between forwards
# (tokenizing, collating) is what a GPU waits for: 20k chunk-sized passages on an H200 (bench_cuda.py,
# 2026-11-26) ran 2,519/s at 128 and 4,469/s at 512 (sentence-transformers at 128: 3,036 fp32, 3,061 fp16).
_CUDA_MIN_BATCH = 512


class PassageVectors(PassageTokenizer, BiEncoderForward, EncodeThreads):
    """`encode` and the batch size a bulk caller should use (BiEncoder sets the attributes below)."""

    dim: int
    batch_size: int  # models.batch_size: passages per forward on the CPU

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
        return restore_order(batches, to_host(results))

    @property
    def bulk_batch(self) -> int:
        """How many texts a bulk caller (a sync's meaning pass) should at least hand `encode` at once: on CUDA
        one forward's worth (a smaller call leaves the GPU idle); 0 elsewhere, where the caller's own batch
        keeps cancelling and progress fine-grained."""
        return max(self.batch_size, _CUDA_MIN_BATCH) if self.device.type == "cuda" else 0
