"""The hashes a library keys its entries by: a file's sha256 (is it the bytes indexed?) and a passage's text
hash (its stored vector is reused for the same text, in any file)."""

from __future__ import annotations

import hashlib
from pathlib import Path

from .safe_open import open_regular

__all__ = ["file_sha256", "text_hash"]


def file_sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open_regular(path) as fh:  # a FIFO put in the file's place must not hang the sync
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def text_hash(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()
