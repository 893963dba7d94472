"""The vector index interface every backend implements: cosine similarity over unit float32 vectors.

Labels are chunk ids (non-negative int64). Persistence is shared here: the backend writes its own file
format into a temp file, this class makes it atomic and adds the JSON sidecar, and `load` checks the
sidecar (backend, dim, size, CRC-32, count) before a backend parses a byte. Any mismatch raises
IndexCorruptError: SQLite holds the vectors, so the caller rebuilds instead of serving garbage.
"""

from __future__ import annotations

import threading
import time
from abc import ABC, abstractmethod
from pathlib import Path
from typing import Any, Callable, ClassVar, Iterable, Optional, TypeVar

import numpy as np

from ..base.config import IndexConfig
from ..base.errors import IndexCorruptError, UnsupportedFileError
from .storage import atomic_write, file_checksum, read_sidecar, write_sidecar

__all__ = ["VectorIndex", "as_ids", "as_unit_vectors", "empty_result"]

_T = TypeVar("_T")


def as_ids(ids: Any) -> np.ndarray:
    """Validate labels: 1-D, integral, non-negative (hnswlib stores them as uint64)."""
    arr = np.asarray(ids)
    if arr.ndim != 1:
        raise ValueError(f"ids must be 1-D, got shape {arr.shape}")
    if arr.size == 0:
        return arr.astype(np.int64)
    if not np.issubdtype(arr.dtype, np.integer):
        raise ValueError(f"ids must be integers, got {arr.dtype}")
    arr = arr.astype(np.int64)
    if arr.min() < 0:
        raise ValueError("ids must be non-negative")
    return arr


def as_unit_vectors(vectors: Any, dim: int, what: str = "vectors") -> np.ndarray:
    """(n, dim) float32 copy with unit rows; a zero row stays zero rather than becoming NaN."""
    arr = np.array(vectors, dtype=np.float32, copy=True)
    if arr.ndim == 1:
        arr = arr[None, :]
    if arr.ndim != 2 or arr.shape[1] != dim:
        raise ValueError(f"{what} must have shape (n, {dim}) or ({dim},), got {np.shape(vectors)}")
    if not np.isfinite(arr).all():
        raise ValueError(f"{what} contain NaN or infinity")
    norms = np.linalg.norm(arr, axis=1, keepdims=True)
    np.divide(arr, norms, out=arr, where=norms > 0)
    return arr


def empty_result(n_queries: int) -> tuple[np.ndarray, np.ndarray]:
    return np.empty((n_queries, 0), dtype=np.int64), np.empty((n_queries, 0), dtype=np.float32)


class VectorIndex(ABC):
    """Cosine top-k over labelled unit vectors. Thread-safe: one RLock per index, held per call."""

    name: ClassVar[str]

    def __init__(self, dim: int, config: Optional[IndexConfig] = None) -> None:
        if int(dim) < 1:
            raise ValueError(f"dim must be >= 1, got {dim}")
        self.dim = int(dim)
        self.config = config or IndexConfig(backend=self.name)
        self.generation = 0
        # Writers (add/remove/resize) must never run beside a search; reads share the lock too because
        # a search also mutates (hnswlib's ef is index state: set and used under one hold of the lock).
        self._lock = threading.RLock()

    # ---- the index itself -------------------------------------------------------------------------

    @abstractmethod
    def add(self, ids: np.ndarray, vectors: np.ndarray) -> None:
        """Add (n,) int64 labels with (n, dim) vectors; a label already present gets the new vector."""

    @abstractmethod
    def remove(self, ids: Iterable[int]) -> None:
        """Delete labels; unknown ones are ignored."""

    @abstractmethod
    def search(self, queries: np.ndarray, k: int, *, ef: Optional[int] = None) -> tuple[np.ndarray, np.ndarray]:
        """Top min(k, len(self)) labels (q, k') int64 and cosine similarities (q, k') float32, best first.
        `ef`: query-time breadth of approximate backends for this call only (None: config.ef_search; raised
        to k); exact search ignores it. Per call, never stored: two threads may search with different ones."""

    @abstractmethod
    def __len__(self) -> int:
        """Live (not deleted) vectors."""

    @abstractmethod
    def ids(self) -> np.ndarray:
        """Live labels, sorted int64."""

    def deleted_fraction(self) -> float:
        """Share of storage held by deleted vectors (a hint to compact by rebuilding)."""
        return 0.0

    def params(self) -> dict[str, Any]:
        """Build parameters recorded in the sidecar."""
        return {}

    def _prepare_queries(self, queries: Any, k: int, ef: Optional[int] = None) -> tuple[np.ndarray, int]:
        if int(k) < 0:
            raise ValueError(f"k must be >= 0, got {k}")
        if ef is not None and int(ef) < 1:
            raise ValueError(f"ef must be >= 1, got {ef}")
        return as_unit_vectors(queries, self.dim, "queries"), int(k)

    def _prepare_add(self, ids: Any, vectors: Any) -> tuple[np.ndarray, np.ndarray]:
        ids = as_ids(ids)
        vectors = as_unit_vectors(vectors, self.dim) if len(ids) else np.empty((0, self.dim), np.float32)
        if len(ids) != len(vectors):
            raise ValueError(f"{len(ids)} ids for {len(vectors)} vectors")
        if len(np.unique(ids)) != len(ids):
            # The last occurrence wins, as if the rows had been added one after the other.
            _, last = np.unique(ids[::-1], return_index=True)
            keep = np.sort(len(ids) - 1 - last)
            ids, vectors = ids[keep], vectors[keep]
        return ids, vectors

    # ---- persistence ------------------------------------------------------------------------------

    @abstractmethod
    def _write(self, tmp: Path) -> None:
        """Write the backend's file to `tmp` (called under the lock)."""

    @classmethod
    @abstractmethod
    def _read(cls, path: Path, dim: int, config: IndexConfig, meta: dict[str, Any]) -> "VectorIndex":
        """Parse a file whose sidecar and checksum were verified; raise IndexCorruptError if malformed."""

    def save(self, path: Path, generation: int) -> None:
        """Atomically replace `path`, then its sidecar `path.json`. A crash leaves the old pair or a pair
        that `load` rejects, never a silently mismatched one."""
        path = Path(path)
        with self._lock:
            size, crc = atomic_write(path, self._write)
            meta = {
                "backend": self.name,
                "dim": self.dim,
                "count": len(self),
                "generation": int(generation),
                "params": self.params(),
                "file_size": size,
                "crc32": crc,
            }
            write_sidecar(path, meta)
            self.generation = int(generation)

    @classmethod
    def load(cls, path: Path, dim: int, config: IndexConfig,
             before_read: Optional[Callable[[float], None]] = None) -> "VectorIndex":
        """`before_read(seconds)`: called once the file's checksum is verified (`seconds`: what that took, a
        measure of this file on this machine now) and before it is parsed, which for hnswlib holds the
        interpreter lock throughout; it may raise to stop there."""
        path = Path(path)
        started = time.monotonic()
        meta = cls._verified_meta(path, dim)
        if before_read is not None:
            before_read(time.monotonic() - started)
        index = cls._unreadable_as_corrupt(path, lambda: cls._read(path, int(dim), config, meta))
        index.generation = cls._checked_counts(path, meta, len(index))
        return index

    @classmethod
    def load_ids(cls, path: Path, dim: int, config: IndexConfig) -> tuple[np.ndarray, int]:
        """(the live ids `load` would give, sorted int64; the saved generation) after the same checks of the
        sidecar and checksum, without building the index (`status` of a library this process has not opened)."""
        path = Path(path)
        meta = cls._verified_meta(path, dim)
        ids = cls._unreadable_as_corrupt(path, lambda: cls._read_ids(path, int(dim), config, meta))
        return ids, cls._checked_counts(path, meta, len(ids))

    @classmethod
    def _unreadable_as_corrupt(cls, path: Path, read: Callable[[], _T]) -> _T:
        """`read()`, its failures to parse the file raised as IndexCorruptError (then the index is rebuilt)."""
        try:
            return read()
        except IndexCorruptError:
            raise
        except (OSError, ValueError, RuntimeError, MemoryError, KeyError, TypeError, EOFError,
                UnsupportedFileError) as exc:
            raise IndexCorruptError(f"{path}: unreadable {cls.name} index ({exc})") from None

    @classmethod
    def _read_ids(cls, path: Path, dim: int, config: IndexConfig, meta: dict[str, Any]) -> np.ndarray:
        """Live ids, sorted int64; backends whose file holds them apart from the graph read only those."""
        return cls._read(path, dim, config, meta).ids()

    @classmethod
    def _verified_meta(cls, path: Path, dim: int) -> dict[str, Any]:
        """The sidecar, checked against the backend, `dim` and the file's size and checksum."""
        meta = read_sidecar(path)
        if meta is None:
            raise IndexCorruptError(f"{path}: sidecar {path.name}.json is missing or unreadable")
        expected = {"backend": cls.name, "dim": int(dim)}
        for key, want in expected.items():
            if meta.get(key) != want:
                raise IndexCorruptError(f"{path}: sidecar says {key}={meta.get(key)!r}, expected {want!r}")
        try:
            size, crc = file_checksum(path)
        except (OSError, UnsupportedFileError) as exc:  # a FIFO, a device: refused, never read (it would block)
            raise IndexCorruptError(f"{path}: cannot read index file ({exc})") from None
        if size != meta.get("file_size") or crc != meta.get("crc32"):
            raise IndexCorruptError(f"{path}: index file does not match its sidecar (truncated, corrupt or "
                                    "replaced without it)")
        return meta

    @staticmethod
    def _checked_counts(path: Path, meta: dict[str, Any], count: int) -> int:
        """The sidecar's generation, once its count is `count`."""
        if count != meta.get("count"):
            raise IndexCorruptError(f"{path}: {count} vectors, sidecar says {meta.get('count')}")
        generation = meta.get("generation")
        if not isinstance(generation, int):
            raise IndexCorruptError(f"{path}: sidecar generation {generation!r} is not an integer")
        return generation

    def __repr__(self) -> str:
        return f"{type(self).__name__}(dim={self.dim}, count={len(self)}, generation={self.generation})"
