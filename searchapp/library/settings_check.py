"""Whether the configured model, pooling or chunking differs from what the library was built with,
decided from the stored settings alone (no model is loaded: `status` stays fast).

The exact check (`Library.check_model`, by weights fingerprint) runs before every dense search and sync;
this one compares the settings by name, so a model named two ways (a folder and its id) reads as a change.
"""

from __future__ import annotations

import os
from typing import Optional

from ..base.config import Config

__all__ = ["settings_mismatch"]


def _same_model(a: str, b: str) -> bool:
    if a == b:
        return True
    if os.path.isdir(a) and os.path.isdir(b):
        return os.path.realpath(a) == os.path.realpath(b)
    return False


def settings_mismatch(config: Config, meta: dict[str, str]) -> Optional[str]:
    """A one-line reason ending in what to run, or None when the settings match (or nothing is recorded)."""
    m, c = config.models, config.chunking
    diffs = []
    built_model = meta.get("model")
    if built_model and not _same_model(built_model, m.bi_encoder):
        diffs.append(f"model {built_model!r} (configured {m.bi_encoder!r})")
    if meta.get("pooling") and meta["pooling"] != m.pooling:
        diffs.append(f"pooling {meta['pooling']!r} (configured {m.pooling!r})")
    for key, value in (("chunk_max_tokens", str(c.max_tokens)), ("chunk_overlap", str(c.overlap))):
        if meta.get(key) and meta[key] != value:
            diffs.append(f"{key} {meta[key]} (configured {value})")
    if meta.get("chunk_max_tokens"):  # a built library; one from before the setting existed had no title context
        context = "title" if c.title_context else "none"
        if meta.get("chunk_context", "none") != context:
            diffs.append(f"chunk_context {meta.get('chunk_context', 'none')} (configured {context})")
    if not diffs:
        return None
    return ("the library was built with " + "; ".join(diffs) +
            ": run `searchapp reindex` to rebuild it with the current settings, or change them back")
