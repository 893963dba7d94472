"""Smart batching: sort by length, batch neighbours, pad each batch only to its own longest, restore order.

Pure Python/NumPy so both encoders (and anything else that batches) share it.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

__all__ = ["length_sorted_batches", "restore_order"]


def length_sorted_batches(lengths: Sequence[int], batch_size: int) -> list[list[int]]:
    """Indices into `lengths`, grouped in batches of at most `batch_size`, longest first.

    Longest first so the biggest batch (peak memory) comes at once, not after minutes of work; ties keep
    input order, so the batching is deterministic.
    """
    if batch_size < 1:
        raise ValueError("batch_size must be >= 1")
    order = sorted(range(len(lengths)), key=lambda i: (-lengths[i], i))
    return [order[i : i + batch_size] for i in range(0, len(order), batch_size)]


def restore_order(batches: Sequence[Sequence[int]], results: Sequence[np.ndarray]) -> np.ndarray:
    """Stack per-batch results (rows in batch order) back into input order: out[batches[b][j]] = results[b][j]."""
    if len(batches) != len(results):
        raise ValueError(f"{len(batches)} batches but {len(results)} results")
    n = sum(len(b) for b in batches)
    if n == 0:
        return np.asarray(results[0] if results else np.zeros((0,)))[:0]
    first = np.asarray(results[0])
    out = np.empty((n,) + first.shape[1:], dtype=first.dtype)
    seen = np.zeros(n, dtype=bool)
    for idx, rows in zip(batches, results, strict=True):
        rows = np.asarray(rows)
        if len(idx) != len(rows):
            raise ValueError(f"a batch of {len(idx)} indices got {len(rows)} results")
        out[list(idx)] = rows
        seen[list(idx)] = True
    if not seen.all():
        raise ValueError("batches do not cover every index exactly once")
    return out
