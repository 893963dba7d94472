"""A real library database for the store's unit tests: files with passages, written through Store itself."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Optional, Sequence

import numpy as np

from searchapp.store import NewChunk, Store


def put_file(store: Store, root_id: int, path: str, passages: Sequence[str | tuple[str, Optional[int]]], *,
             mtime_ns: int = 1, sha: Optional[str] = None, status: str = "indexed") -> int:
    """A file of `passages` (text, or (text, page)), each with a unit vector; its id."""
    with store.atomic():
        fid = store.upsert_file(root_id, path, 10, mtime_ns, sha, status, None, "txt", len(passages))
        chunks = []
        for i, p in enumerate(passages):
            text, page = (p, None) if isinstance(p, str) else p
            vec = np.zeros(4, np.float32)
            vec[i % 4] = 1.0
            chunks.append(NewChunk(i, 0, len(text), page, text, hashlib.sha256(text.encode()).hexdigest(), vec))
        store.insert_chunks(fid, chunks)
    return fid


def new_store(tmp_path: Path) -> tuple[Store, int]:
    store = Store(tmp_path / "library.sqlite")
    with store.atomic():
        root = store.add_root("/r")
    return store, root


def batch_sizes(monkeypatch, store_class: type) -> list[int]:
    """The passages each batch writes, as `store_class` (Store or PgStore) is asked to insert them, in order."""
    sizes: list[int] = []
    insert = store_class.insert_chunks_of

    def counted(store, rows):
        sizes.append(len(rows))
        return insert(store, rows)

    monkeypatch.setattr(store_class, "insert_chunks_of", counted)
    return sizes
