"""What a library's passages and vectors are, as one text: rows kept for later (a removal's Undo, store/
removed_roots.py; the shelf, store/shelf.py) belong to the library only while it is unchanged."""

from __future__ import annotations

from typing import Optional, Protocol

__all__ = ["IDENTITY_KEYS", "library_identity"]

# The library's own description of what its passages and vectors are (models/library_keep writes them): a change
# of any means the kept rows no longer belong.
IDENTITY_KEYS = ("model", "pooling", "chunk_max_tokens", "chunk_overlap", "passage_prompt", "model_fingerprint", "dim",
                 "chunk_context")


class _Meta(Protocol):
    def get_meta(self, key: str) -> Optional[str]: ...


def library_identity(store: _Meta) -> str:
    """The identity keys' values as one text."""
    return "\n".join(f"{key}={store.get_meta(key) or ''}" for key in IDENTITY_KEYS)
