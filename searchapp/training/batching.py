"""Length-bucketed training batches: random batches of similar length, so padding stays small.

Shuffle, cut into buckets of `bucket_batches` batches, sort each bucket by length, cut into batches and
shuffle the batch order: every epoch sees a different order, yet each batch pads to a near-equal length.
"""

from __future__ import annotations

import random
from typing import Sequence

__all__ = ["bucketed_batches"]


def bucketed_batches(lengths: Sequence[int], batch_size: int, *, seed: int = 0,
                     bucket_batches: int = 32) -> list[list[int]]:
    """Indices into `lengths` in batches of at most `batch_size` (only the last batch of a bucket is short)."""
    if batch_size < 1:
        raise ValueError("batch_size must be >= 1")
    rng = random.Random(seed)
    order = list(range(len(lengths)))
    rng.shuffle(order)
    span = batch_size * max(1, bucket_batches)
    batches: list[list[int]] = []
    for start in range(0, len(order), span):
        bucket = sorted(order[start : start + span], key=lambda i: lengths[i])
        batches.extend(bucket[j : j + batch_size] for j in range(0, len(bucket), batch_size))
    rng.shuffle(batches)
    return batches
