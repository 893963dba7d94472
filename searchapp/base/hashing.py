"""The hashes a library keys its entries by: a file's sha256 (is it the bytes indexed?) and a passage's text
hash (its stored vector is reused for the same text, in any file)."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Optional

from .safe_open import open_regular, read_at_most

__all__ = ["file_sha256", "file_sha256_and_bytes", "text_hash", "EMPTY_SHA256"]

EMPTY_SHA256 = hashlib.sha256(b"").hexdigest()  # a file of 0 bytes: known without opening it


def file_sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open_regular(path) as fh:  # a FIFO put in the file's place must not hang the sync
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def file_sha256_and_bytes(path: Path, max_bytes: int) -> tuple[str, Optional[bytes]]:
    """(the file's sha256, its bytes when it holds at most `max_bytes`, else None): a file small enough to be
    extracted from memory is read once for both its hash and its text, and the two are of the same bytes."""
    h = hashlib.sha256()
    with open_regular(path) as fh:
        data = read_at_most(fh, max_bytes + 1)
        h.update(data)
        if len(data) <= max_bytes:
            return h.hexdigest(), data
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest(), None


def text_hash(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()
