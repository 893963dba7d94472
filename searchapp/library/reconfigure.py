"""Open a library again under new settings, keeping models that are already loaded when they still fit.

The GUI's settings dialog uses this so saving a setting that does not touch a model never reloads one.
"""

from __future__ import annotations

from ..base.config import Config
from ..models.identity import library_settings, reindex_reasons
from .library import Library

__all__ = ["reopen_library", "needs_reindex"]

_ENCODER_KEYS = ("bi_encoder", "pooling", "device", "precision", "batch_size", "threads")
_RERANKER_KEYS = ("reranker", "device", "precision", "rerank_max_length", "threads")


def _same(a: Config, b: Config, keys: tuple[str, ...]) -> bool:
    return all(getattr(a.models, k) == getattr(b.models, k) for k in keys)


def needs_reindex(old: Config, new: Config) -> bool:
    """True when passages or vectors built under `old` cannot be used under `new` (the one rule:
    models.identity.reindex_reasons; chunking.title_context is soft, so it alone is not a reason)."""
    return bool(reindex_reasons(library_settings(old), library_settings(new)))


def reopen_library(old: Library, config: Config) -> Library:
    """A Library on `config` that reuses `old`'s loaded encoder and reranker where their settings are unchanged."""
    encoder = old.models.loaded_encoder if _same(old.config, config, _ENCODER_KEYS) else None
    reranker = old.models.loaded_reranker if _same(old.config, config, _RERANKER_KEYS) else None
    return Library(config, encoder=encoder, reranker=reranker)
