"""Pearson and Spearman correlation (pure NumPy; ties get their average rank, as in SciPy)."""

from __future__ import annotations

from typing import Sequence, Union

import numpy as np

Numbers = Union[Sequence[float], np.ndarray]  # a list or a 1-D array

__all__ = ["pearson", "spearman", "average_ranks"]


def average_ranks(values: Numbers) -> np.ndarray:
    """1-based ranks; tied values share the mean of the ranks they span ([10, 20, 20, 30] → [1, 2.5, 2.5, 4])."""
    x = np.asarray(values, dtype=np.float64)
    order = np.argsort(x, kind="mergesort")
    sorted_x = x[order]
    # Start index of each run of equal values, and the run each sorted position belongs to.
    starts = np.flatnonzero(np.r_[True, sorted_x[1:] != sorted_x[:-1]])
    run = np.cumsum(np.r_[True, sorted_x[1:] != sorted_x[:-1]]) - 1
    ends = np.r_[starts[1:], len(x)]
    mean_rank = (starts + ends - 1) / 2.0 + 1.0  # mean of 1-based positions start..end-1
    ranks = np.empty(len(x), dtype=np.float64)
    ranks[order] = mean_rank[run]
    return ranks


def pearson(x: Numbers, y: Numbers) -> float:
    """Pearson's r; 0.0 (not NaN) when either side is constant."""
    a, b = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    if a.shape != b.shape or a.ndim != 1:
        raise ValueError(f"need two 1-D sequences of one length, got {a.shape} and {b.shape}")
    if len(a) < 2:
        raise ValueError("correlation needs at least 2 pairs")
    a, b = a - a.mean(), b - b.mean()
    denom = np.sqrt((a * a).sum() * (b * b).sum())
    return float((a * b).sum() / denom) if denom > 0 else 0.0


def spearman(x: Numbers, y: Numbers) -> float:
    """Spearman's rho: Pearson's r of the average ranks."""
    if len(x) != len(y):
        raise ValueError(f"need two sequences of one length, got {len(x)} and {len(y)}")
    return pearson(average_ranks(x), average_ranks(y))
