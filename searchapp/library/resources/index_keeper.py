"""The vector index's lifecycle, kept in step with SQLite (the source of truth): open, follow other writers,
repair, save, compact.

The index is saved with the store's generation. On open, a different generation or count means a
sync was interrupted between its SQLite commit and the index save: the index is repaired by diffing
its ids against the stored chunk ids (no re-embedding), or rebuilt from stored vectors when unreadable.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional

import numpy as np

from ...ann import VectorIndex, create_index, load_ids, load_index
from ...ann.storage import remove_stale_temps
from ...base.config import IndexConfig
from ...base.errors import IndexCorruptError, StoreError
from ...base.progress import ProgressFn, report
from ...store import Store
from .background_load import BackgroundLoad
from .lock import writer_holder, writer_lock

__all__ = ["IndexKeeper", "index_path", "open_vector_index", "IndexOpenReport", "rebuild_index", "repair_index"]

REBUILD_BATCH = 4096
COMPACT_DELETED_FRACTION = 0.2  # rebuild the vector index from stored vectors when more of it is dead

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class IndexOpenReport:
    action: str  # "loaded" | "repaired" | "rebuilt" | "created" | "following" (a live sync elsewhere)
    message: str = ""


def index_path(data_dir: Path, config: IndexConfig) -> Path:
    return data_dir / f"vectors.{config.backend}"


def rebuild_index(store: Store, config: IndexConfig, dim: int, progress: Optional[ProgressFn] = None) -> VectorIndex:
    index = create_index(config, dim)
    ids = store.embedded_ids()
    for i in range(0, len(ids), REBUILD_BATCH):
        part_ids, vecs = store.vectors(ids[i:i + REBUILD_BATCH].tolist(), dim)
        if len(part_ids):
            index.add(part_ids, vecs)
        report(progress, "rebuilding index", min(i + REBUILD_BATCH, len(ids)), len(ids))
    return index


def open_vector_index(store: Store, data_dir: Path, config: IndexConfig, dim: int,
                      progress: Optional[ProgressFn] = None,
                      before_read: Optional[Callable[[float], None]] = None) -> tuple[VectorIndex, IndexOpenReport]:
    """`before_read`: see VectorIndex.load (not called when the index is missing and rebuilt)."""
    path = index_path(data_dir, config)
    generation = store.generation()
    if not path.exists():
        if not store.has_chunks():
            return create_index(config, dim), IndexOpenReport("created")
        index = rebuild_index(store, config, dim, progress)
        return index, IndexOpenReport("rebuilt", f"vector index was missing; rebuilt {len(index)} vectors from the library database")
    try:
        index = load_index(path, config, dim, before_read)
    except IndexCorruptError as exc:
        index = rebuild_index(store, config, dim, progress)
        return index, IndexOpenReport("rebuilt", f"vector index was unreadable ({exc}); rebuilt {len(index)} vectors from the library database")
    if index.generation == generation and len(index) == store.chunk_count() - store.pending_count():
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
    want = store.embedded_ids()  # passages still waiting for a vector (vector_queue.py) are not in the index
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


class IndexKeeper:
    """The library's one vector index. Writes (add, remove, save, compact, drop) happen under the library's
    writer lock; reads never wait for it. Also the IndexWriter a sync writes its batches through."""

    def __init__(self, store: Store, reader: Callable[[], Store], data_dir: Path, config: IndexConfig,
                 lock: threading.RLock, read_only: bool) -> None:
        self.store, self._reader, self.data_dir, self.config = store, reader, data_dir, config
        self._lock, self._read_only = lock, read_only
        self._index: Optional[VectorIndex] = None
        self._report: Optional[IndexOpenReport] = None
        self._generation = -1  # the store generation the in-memory index reflects (see follow_writers)
        self._loading: Optional[BackgroundLoad] = None  # while the index opens on a thread of its own

    def dim(self) -> Optional[int]:
        dim = self.store.get_meta("dim")
        return int(dim) if dim else None

    def index(self, progress: Optional[ProgressFn] = None,
              before_read: Optional[Callable[[float], None]] = None, wait: bool = True) -> Optional[VectorIndex]:
        """The index, opened (or made) under the library's lock the first time. `wait=False`: None rather than wait
        for that lock while a sync of this process holds it (a first sync holds it from before its first vector
        until its end; `status` for the window's counts waited all its words pass)."""
        if self._index is not None:
            return self._index  # no lock: a search must not wait for a sync (the index guards itself)
        if not self._lock.acquire(blocking=wait):
            return None
        try:
            if self._index is None:
                dim = self.dim()
                if dim is None:
                    return None
                self._generation = self.store.generation()
                self._index, self._report = open_vector_index(self.store, self.data_dir, self.config, dim, progress,
                                                              before_read)
                writer = writer_holder(self.data_dir) if self._report.action == "repaired" else None
                if writer is not None:  # not interrupted: a live sync saves its own index when it is done
                    self._report = IndexOpenReport("following", f"a sync is running (process {writer}); searches "
                                                   "see every batch it has committed so far")
                elif self._report.action in ("repaired", "rebuilt"):
                    self._persist_repair()
            return self._index
        finally:
            self._lock.release()

    def current_ids(self, store: Store) -> Optional[np.ndarray]:
        """The ids the index holds, read from its file without building the graph (sorted int64), when this
        process has not opened it and the file is current with `store` (the generation and count `index()`
        finds "loaded"); None otherwise, and then `index()` opens it (and repairs, rebuilds or follows a live
        sync as it must). For `status` in a one-shot command: 0.2 s at a million vectors instead of 1.5 s."""
        if self._index is not None or self._loading is not None:
            return None
        dim = self.dim()
        path = index_path(self.data_dir, self.config)
        if dim is None or not path.exists():
            return None
        generation = store.generation()
        try:
            ids, saved = load_ids(path, self.config, dim)
        except IndexCorruptError:
            return None
        if saved != generation or len(ids) != store.chunk_count() - store.pending_count():
            return None
        return ids if store.generation() == generation else None  # no commit between the reads

    # -- opened in the background (background_load.py) --------------------------------------------------
    def load_in_background(self, on_done: Optional[Callable[[], None]] = None, *,
                           give_up_after: Optional[float] = None) -> bool:
        """Open the index on a thread of its own; `on_done()` runs on that thread when it ends. `give_up_after`:
        seconds after which the index is of no use (a one-shot command): the load stops before parsing when it
        could not be done by then. False when there is nothing to load (no vectors yet, open, or loading)."""
        with self._lock:
            if self._index is not None or self._loading is not None or self.dim() is None:
                return False

            def load(before_read: Callable[[float], None]) -> bool:
                return self.index(before_read=before_read) is not None

            def done(_loaded: bool) -> None:
                # From now on a search opens the index itself, as without a background load; but one given up at
                # its deadline stays given up: the command's later searches answer by words too, never past it.
                if not loading.abandoned:
                    self._loading = None
                if on_done is not None:
                    on_done()

            self._loading = loading = BackgroundLoad(load, deadline=give_up_after, on_done=done)
        loading.start()
        return True

    def loading(self) -> bool:
        """Whether the index is opening in the background now."""
        loading = self._loading
        return loading is not None and not loading.done.is_set()

    def wait_loaded(self, seconds: float) -> bool:
        """Wait at most `seconds` for a background load: True when a search may use the index (open, no load was
        under way, or it failed and opening it again says why); False: answer by words (loading, or given up)."""
        loading = self._loading
        return self._index is not None or loading is None or loading.wait(seconds)

    def stop_loading(self) -> None:
        """Closing: a background load that has not begun parsing stops there."""
        loading = self._loading
        if loading is not None:
            loading.close()

    def follow_writers(self, wait: bool = True) -> Optional[VectorIndex]:
        """The index, brought up to date with what another process (or Library) committed since it was read.

        One generation read per call; on a change, the stored chunk ids are diffed against the index and
        only the difference is added or removed (no re-embedding, no file reload). Never waits: while this
        process writes (it holds the lock), its own sync keeps the index current. `wait`: as index()'s.
        """
        index = self.index(wait=wait)
        if index is None:
            return None
        generation = self._reader().generation()
        if generation == self._generation or not self._lock.acquire(blocking=False):
            return index
        try:
            index = self._index
            if index is not None and generation != self._generation:
                dim = self.dim()
                if dim is not None:
                    repair_index(index, self._reader(), dim)
                    self.compact_if_needed()
                self._generation = generation
            return self._index
        finally:
            self._lock.release()

    def _persist_repair(self) -> None:
        """Save a repaired index so the next open is clean, but only if no writer is busy: a syncing
        process saves its own newer index, and two savers would just overwrite each other's work."""
        if self._read_only:
            return
        try:
            with writer_lock(self.data_dir, wait=0):
                self.save()
        except StoreError:  # another writer holds the lock, or the disk is read-only / full
            log.info("repaired vector index kept in memory only; it is repaired again on the next open")

    def writable(self, dim: Callable[[], int]) -> VectorIndex:
        """The index, or a new empty one of `dim()` dimensions for a library without vectors yet."""
        index = self.index()
        if index is None:
            self._index = index = create_index(self.config, dim())
            self._report = IndexOpenReport("created")
        return index

    # IndexWriter: what a sync calls after each committed batch.
    def add(self, ids: np.ndarray, vectors: np.ndarray) -> None:
        self._opened().add(ids, vectors)

    def remove(self, ids: list[int]) -> None:
        self._opened().remove(ids)

    def _opened(self) -> VectorIndex:
        if self._index is None:  # a sync asks for writable() before its first batch
            raise RuntimeError("no vector index is open to write to")
        return self._index

    def save(self) -> None:
        """Call with the writer lock held (then any temp file beside the index is a dead process's)."""
        if self._index is None:
            return
        path = index_path(self.data_dir, self.config)
        try:
            remove_stale_temps(path)
            self._index.save(path, self.store.generation())
        except OSError as exc:
            raise StoreError(
                f"cannot save the vector index {path}: {exc.strerror or exc}. The previous index file is kept; "
                "the library database has every change and repairs the index on the next open") from None

    def catch_up(self) -> None:
        """After another process wrote while this one had handed the writer lock over (sync/handover.py): the index
        follows the store (what it removed; it embeds nothing, so nothing is missing), then is current again."""
        index, dim = self._index, self.dim()
        if index is not None and dim is not None:
            repair_index(index, self.store, dim)
            self.compact_if_needed()
        self.mark_current()

    def before_write(self) -> None:
        """This process has taken the writer lock: what other processes committed since its index last followed
        the store goes in first. Its own batches move the generation on, and mark_current after them would
        otherwise hide the others' (a watch's served search lost a manual `index`'s vectors so, until a restart,
        and `status --check` said the library was not consistent). Only when another process has committed since:
        then the ids are diffed (~0.5-1 s at a million passages, the cost a search pays to follow it too)."""
        if self._index is not None and self.store.generation() != self._generation:
            self.catch_up()

    def mark_current(self) -> None:
        """After this process's own write and save: the index reflects the store's generation."""
        self._generation = self.store.generation()

    def compact_if_needed(self) -> bool:
        """Rebuild the vector index from stored vectors (no re-embedding) once deleted slots pass
        COMPACT_DELETED_FRACTION: hnswlib only marks deletions, so the file and search cost keep them."""
        index = self._index
        if index is None or index.deleted_fraction() <= COMPACT_DELETED_FRACTION:
            return False
        fresh = rebuild_index(self.store, self.config, index.dim)
        self._index = fresh  # one reference swap: a search holding the old index finishes on it
        return True

    def drop(self) -> None:
        """Forget the index and delete its files (a reindex builds it again). Call with the writer lock held."""
        self._index = None
        for p in self.data_dir.glob("vectors.*"):
            p.unlink()

    def notice(self) -> Optional[str]:
        report = self._report
        if report and report.action == "following" and writer_holder(self.data_dir) is None:
            return None  # that sync has ended (a window stays open longer than one sync)
        return report.message if report and report.message else None
