"""`searchapp eval ann`: recall@k of the library's vector index against exact search, at its ef_search.

The work is Library.ann_recall (also what the GUI shows); this wraps it as an evaluator.
"""

from __future__ import annotations

from typing import Any, Optional

__all__ = ["evaluate_ann"]


def evaluate_ann(library: Any, *, k: int = 10, sample: int = 200, ef: Optional[int] = None, seed: int = 0) -> dict[str, Any]:
    """A dict of metrics with "primary_metric" ("recall@k"); recall is None for a library with < 2 vectors."""
    result: dict[str, Any] = dict(library.ann_recall(k=k, sample=sample, ef=ef, seed=seed))
    result.setdefault("primary_metric", f"recall@{k}")
    result["data_dir"] = str(library.data_dir)
    return result
