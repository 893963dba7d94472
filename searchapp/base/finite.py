"""Vectors a model produced are checked to be finite before anything uses or stores them.

A NaN or infinity from a broken checkpoint (or an fp16 overflow) written to the library made every later
index rebuild, `status` and dense search fail until the library was removed. Refusing it at the door
keeps the library usable and says which model is at fault.
"""

from __future__ import annotations

import numpy as np

from .errors import ModelLoadError

__all__ = ["require_finite"]


def require_finite(vectors: np.ndarray, model: str, what: str) -> None:
    """ModelLoadError (exit 5) when `vectors` holds a NaN or an infinity; `what` says what was being done."""
    arr = np.asarray(vectors)
    if arr.size and not np.isfinite(arr).all():
        raise ModelLoadError(f"the bi-encoder {model} produced values that are not numbers (NaN or infinity) "
                             f"{what}: its weights are broken or its precision overflows; use another model or "
                             "models.precision = \"fp32\"")
