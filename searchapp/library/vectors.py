"""Keep the vector index file in step with SQLite, which is the source of truth.

The index is saved with the store's generation. On open, a different generation or count means a
sync was interrupted between its SQLite commit and the index save: the index is repaired by diffing
its ids against the stored chunk ids (no re-embedding), or rebuilt from stored vectors when unreadable.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Optional

import numpy as np

from ..ann import VectorIndex, create_index, load_index, read_sidecar
from ..base.config import IndexConfig
from ..base.errors import IndexCorruptError
from ..base.progress import ProgressFn, report
from ..store import Store

__all__ = ["index_path", "open_vector_index", "IndexOpenReport", "rebuild_index"]

REBUILD_BATCH = 4096


@dataclass(frozen=True)
class IndexOpenReport:
    action: str  # "loaded" | "repaired" | "rebuilt" | "created"
    message: str = ""


def index_path(data_dir: Path, config: IndexConfig) -> Path:
    return data_dir / f"vectors.{config.backend}"


def rebuild_index(store: Store, config: IndexConfig, dim: int, progress: Optional[ProgressFn] = None) -> VectorIndex:
    index = create_index(config, dim)
    ids = store.chunk_ids()
    for i in range(0, len(ids), REBUILD_BATCH):
        part_ids, vecs = store.vectors(ids[i:i + REBUILD_BATCH].tolist(), dim)
        if len(part_ids):
            index.add(part_ids, vecs)
        report(progress, "rebuilding index", min(i + REBUILD_BATCH, len(ids)), len(ids))
    return index


def open_vector_index(store: Store, data_dir: Path, config: IndexConfig, dim: int,
                      progress: Optional[ProgressFn] = None) -> tuple[VectorIndex, IndexOpenReport]:
    path = index_path(data_dir, config)
    generation = store.generation()
    if not path.exists():
        if store.chunk_count() == 0:
            return create_index(config, dim), IndexOpenReport("created")
        index = rebuild_index(store, config, dim, progress)
        return index, IndexOpenReport("rebuilt", f"vector index was missing; rebuilt {len(index)} vectors from the library database")
    try:
        index = load_index(path, config, dim)
    except IndexCorruptError as exc:
        index = rebuild_index(store, config, dim, progress)
        return index, IndexOpenReport("rebuilt", f"vector index was unreadable ({exc}); rebuilt {len(index)} vectors from the library database")
    if index.generation == generation and len(index) == store.chunk_count():
        return index, IndexOpenReport("loaded")
    added, removed = repair_index(index, store, dim)
    if not added and not removed:  # only rows with unusable vectors differ (left out; status reports them)
        return index, IndexOpenReport("loaded")
    return index, IndexOpenReport(
        "repaired",
        f"vector index was behind the library database (an interrupted sync); repaired: {added} added, {removed} removed",
    )


def repair_index(index: VectorIndex, store: Store, dim: int) -> tuple[int, int]:
    have = index.ids()
    want = store.chunk_ids()
    extra = np.setdiff1d(have, want, assume_unique=True)
    missing = np.setdiff1d(want, have, assume_unique=True)
    if len(extra):
        index.remove(extra.tolist())
    added = 0
    for i in range(0, len(missing), REBUILD_BATCH):
        ids, vecs = store.vectors(missing[i:i + REBUILD_BATCH].tolist(), dim)  # unusable (NaN) rows left out
        if len(ids):
            index.add(ids, vecs)
            added += len(ids)
    return added, int(len(extra))
