"""Approximate cosine search with hnswlib (HNSW graph; label = chunk id).

hnswlib facts this module is built around (0.8.0):
- space "cosine" returns distances 1 - cos: converted back to similarities.
- the capacity is fixed at init: `resize_index` before adding past it (grown ×1.5, at least 1024).
- `knn_query` raises when it cannot find k live results: k is clamped to the live count, and a rare
  failure after many deletions is retried with a wider ef, then answered exactly.
- `ef` is index state (`knn_query` takes none) and forgotten by `load_index`: `search(..., ef=)` sets it and
  queries under one hold of the lock, so a search beside another with a different ef gets its own.
- `add_items`/`resize_index` are unsafe beside `knn_query`: an RLock is held per call.
- deletion only marks a node; re-adding a deleted label unmarks it and replaces its vector. We do not
  use `allow_replace_deleted`: slot reuse has returned deleted labels in third-party property tests,
  so deleted slots stay until the library compacts (rebuilds from SQLite) on `deleted_fraction()`.
- the python binding cannot list deleted labels, so `load` reads them from the file's level-0 block
  (layout checked field by field against the header; anything unexpected is IndexCorruptError).
"""

from __future__ import annotations

import errno
import struct
from pathlib import Path
from typing import Any, Iterable, Optional

import numpy as np

from ..base.config import IndexConfig
from ..base.errors import ConfigError, IndexCorruptError
from ..base.safe_open import open_regular
from .base import VectorIndex, empty_result
from .hnsw_state import read_state

try:
    import hnswlib
except ImportError:  # pragma: no cover - hnswlib is a declared dependency
    hnswlib = None

__all__ = ["HnswIndex"]

_MIN_CAPACITY = 1024
_GROWTH = 1.5
# hnswlib saveIndex header: offsetLevel0, max_elements, cur_element_count, size_data_per_element,
# label_offset, offsetData, maxlevel (int), enterpoint_node (uint), maxM, maxM0, M, mult (double),
# ef_construction.
_HEADER = struct.Struct("<QQQQQQiIQQQdQ")
_DELETE_MARK = 0x01  # bit in byte 2 of an element's level-0 link-list header
_SCAN_BLOCK = 8192


def _require_hnswlib() -> None:
    if hnswlib is None:
        raise ConfigError("index.backend = 'hnsw' needs the hnswlib package: `pip install hnswlib`, "
                          "or set index.backend = 'exact'")


class HnswIndex(VectorIndex):
    name = "hnsw"

    def __init__(self, dim: int, config: Optional[IndexConfig] = None, *, _index: Any = None) -> None:
        _require_hnswlib()
        super().__init__(dim, config)
        if _index is None:
            _index = hnswlib.Index(space="cosine", dim=self.dim)
            _index.init_index(max_elements=_MIN_CAPACITY, M=self.config.m,
                              ef_construction=self.config.ef_construction, random_seed=100)
        self._index = _index
        self._ef = max(1, self.config.ef_search)  # the default of a search without `ef`; never changed
        self._live: set[int] = set()
        self._deleted: set[int] = set()  # labels marked deleted: still in the graph, never returned

    def __len__(self) -> int:
        return len(self._live)

    def ids(self) -> np.ndarray:
        with self._lock:
            return self._sorted_live()

    def _sorted_live(self) -> np.ndarray:
        """The live labels as a sorted int64 array (read straight from the set: no list of a million ints)."""
        live = np.fromiter(self._live, dtype=np.int64, count=len(self._live))
        live.sort()
        return live

    def deleted_fraction(self) -> float:
        with self._lock:
            slots = self._index.element_count
            return len(self._deleted) / slots if slots else 0.0

    def params(self) -> dict[str, Any]:
        return {
            "space": "cosine",
            "m": int(self._index.M),
            "ef_construction": int(self._index.ef_construction),
            "ef_search": self._ef,
            "capacity": int(self._index.max_elements),
            "deleted": len(self._deleted),
        }

    def _reserve(self, needed: int) -> None:
        capacity = self._index.max_elements
        if needed > capacity:
            self._index.resize_index(max(needed, int(capacity * _GROWTH), _MIN_CAPACITY))

    def add(self, ids: Any, vectors: Any) -> None:
        ids, vectors = self._prepare_add(ids, vectors)
        if not len(ids):
            return
        labels = ids.tolist()
        with self._lock:
            revived = [i for i in labels if i in self._deleted]
            fresh = sum(1 for i in labels if i not in self._live and i not in self._deleted)
            self._reserve(self._index.element_count + fresh)
            for label in revived:  # explicit, so we do not rely on add_items unmarking implicitly
                self._index.unmark_deleted(label)
                self._deleted.discard(label)
            self._index.add_items(vectors, ids)  # existing labels: vector replaced, graph repaired
            self._live.update(labels)

    def remove(self, ids: Iterable[int]) -> None:
        with self._lock:
            for label in ids:
                label = int(label)
                if label in self._live:
                    self._index.mark_deleted(label)
                    self._live.discard(label)
                    self._deleted.add(label)

    def search(self, queries: Any, k: int, *, ef: Optional[int] = None) -> tuple[np.ndarray, np.ndarray]:
        q, k = self._prepare_queries(queries, k, ef)
        ef = self._ef if ef is None else int(ef)
        with self._lock:  # set_ef and knn_query under one hold: another thread's ef cannot slip between
            k = min(k, len(self._live))
            if k == 0:
                return empty_result(len(q))
            self._index.set_ef(max(ef, k))
            try:
                labels, distances = self._index.knn_query(q, k=k)
            except RuntimeError:
                labels, distances = self._search_harder(q, k, ef)
        # float error can put 1 - d a hair outside [-1, 1]
        return labels.astype(np.int64), np.clip(1.0 - distances, -1.0, 1.0).astype(np.float32)

    def _search_harder(self, q: np.ndarray, k: int, ef: int) -> tuple[np.ndarray, np.ndarray]:
        """Fewer than k live nodes were reachable (possible after many deletions): widen, then go exact."""
        try:
            self._index.set_ef(max(ef, k, self._index.element_count))
            found: tuple[np.ndarray, np.ndarray] = self._index.knn_query(q, k=k)  # hnswlib is untyped
            return found
        except RuntimeError:
            pass
        live = self._sorted_live()
        vectors = np.asarray(self._index.get_items(live), dtype=np.float32)  # (live, dim), unit rows
        scores = q @ vectors.T
        top = np.argsort(-scores, axis=1, kind="stable")[:, :k]
        return live[top], 1.0 - np.take_along_axis(scores, top, axis=1)

    # ---- persistence ------------------------------------------------------------------------------

    def _write(self, tmp: Path) -> None:
        self._index.save_index(str(tmp))
        # hnswlib writes through an unchecked std::ofstream: a full disk gives a short file and no error.
        _check_complete(tmp, self.dim, self._index.element_count)

    @classmethod
    def _read_ids(cls, path: Path, dim: int, config: IndexConfig, meta: dict[str, Any]) -> np.ndarray:
        # The labels and delete marks only (0.2 s at 1M, where building the graph takes 1.3 s more); the link
        # lists are not read, so a file whose links alone are damaged passes here and fails `load`.
        _header, labels, deleted = _scanned(path, dim, meta)
        live: np.ndarray = labels[~deleted]
        live.sort()
        return live

    @classmethod
    def _read(cls, path: Path, dim: int, config: IndexConfig, meta: dict[str, Any]) -> "HnswIndex":
        _require_hnswlib()
        header, labels, deleted = _scanned(path, dim, meta)
        # Capacity: what is stored plus headroom, not the file's (possibly oversized) max_elements. Built from
        # the file read here rather than load_index, whose parse holds the interpreter lock throughout
        # (hnsw_state.py); hnswlib checks every layout field of the dict against its own before copying.
        state = read_state(path, header["fields"], _HEADER.size, labels=labels, deleted=deleted, dim=dim,
                           capacity=max(len(labels), _MIN_CAPACITY))
        try:
            raw = hnswlib.Index(params=state)
        except (RuntimeError, ValueError, TypeError) as exc:
            raise IndexCorruptError(f"{path}: hnswlib refused the graph ({exc})") from None
        del state  # the memory map of the file's vectors: hnswlib has its own copy now
        if raw.element_count != len(labels):
            raise IndexCorruptError(f"{path}: hnswlib read {raw.element_count} elements, header says "
                                    f"{len(labels)}")
        index = cls(dim, config, _index=raw)
        index._live = set(labels[~deleted].tolist())
        index._deleted = set(labels[deleted].tolist())
        return index


def _check_complete(path: Path, dim: int, count: int) -> None:
    """Raise OSError unless `path` holds a whole hnswlib file of `count` elements: the level-0 block, then
    one (size, links) record per element, ending exactly at the end of the file."""
    try:
        header, _, _ = _scan(path, dim)
    except IndexCorruptError as exc:
        raise OSError(errno.ENOSPC, f"vector index was written incompletely (disk full?): {exc}") from None
    with open_regular(path) as fh:
        fh.seek(_HEADER.size + header["count"] * header["per_element"])
        tail = fh.read()
    pos = 0
    for _ in range(header["count"]):
        if pos + 4 > len(tail):
            break
        pos += 4 + int.from_bytes(tail[pos:pos + 4], "little")
    if header["count"] != count or pos != len(tail):
        raise OSError(errno.ENOSPC, f"vector index was written incompletely (disk full?): {path}")


def _scanned(path: Path, dim: int, meta: dict[str, Any]) -> tuple[dict[str, Any], np.ndarray, np.ndarray]:
    """_scan, and the graph's M checked against the sidecar's."""
    header, labels, deleted = _scan(path, dim)
    params = meta.get("params") or {}
    if params.get("m") != header["M"]:
        raise IndexCorruptError(f"{path}: graph has M={header['M']}, sidecar says {params.get('m')!r}")
    return header, labels, deleted


def _scan(path: Path, dim: int) -> tuple[dict[str, Any], np.ndarray, np.ndarray]:
    """Check an hnswlib file's header against `dim`; return it with the labels and deleted marks."""
    with open_regular(path) as fh:
        head = fh.read(_HEADER.size)
        if len(head) < _HEADER.size:
            raise IndexCorruptError(f"{path}: too short for an hnswlib index")
        fields = _HEADER.unpack(head)
        (offset_level0, max_elements, count, per_element, label_offset, offset_data, _maxlevel, _entry,
         max_m, max_m0, m, _mult, _efc) = fields
        links0 = 4 + 4 * max_m0  # count/flags header + level-0 neighbour ids
        expected = {
            "offsetLevel0": (offset_level0, 0),
            "maxM": (max_m, m),
            "maxM0": (max_m0, 2 * m),
            "offsetData": (offset_data, links0),
            "label_offset": (label_offset, links0 + 4 * dim),
            "size_data_per_element": (per_element, links0 + 4 * dim + 8),
        }
        for field, (got, want) in expected.items():
            if got != want:
                raise IndexCorruptError(f"{path}: header {field}={got}, expected {want} for dim {dim}")
        file_size = path.stat().st_size
        if not 2 <= m < 32768 or count > max_elements or _HEADER.size + count * per_element > file_size:
            raise IndexCorruptError(f"{path}: inconsistent header (M={m}, count={count}, "
                                    f"capacity={max_elements}, {file_size} bytes)")
        record = np.dtype({"names": ["flags", "label"], "formats": ["u1", "<u8"],
                           "offsets": [2, label_offset], "itemsize": per_element})
        labels = np.empty(count, dtype=np.int64)
        deleted = np.empty(count, dtype=bool)
        # Read in blocks: the level-0 block holds every vector (~160 MB at 100k), never all at once.
        for start in range(0, count, _SCAN_BLOCK):
            block = np.fromfile(fh, dtype=record, count=min(_SCAN_BLOCK, count - start))
            labels[start : start + len(block)] = block["label"].astype(np.int64)
            deleted[start : start + len(block)] = (block["flags"] & _DELETE_MARK) != 0
    if not _distinct(labels) or (count and labels.min() < 0):
        raise IndexCorruptError(f"{path}: duplicate or out-of-range labels")
    return ({"M": int(m), "count": int(count), "capacity": int(max_elements), "per_element": int(per_element),
             "fields": fields}, labels, deleted)


def _distinct(labels: np.ndarray) -> bool:
    """Whether no label repeats. Labels are written in insertion order, i.e. mostly ascending chunk ids: one
    O(n) comparison answers that case (np.unique's hashing took 0.9 s of a 250k-vector open)."""
    if len(labels) < 2 or bool((labels[1:] > labels[:-1]).all()):
        return True
    ordered = np.sort(labels)
    return not bool((ordered[1:] == ordered[:-1]).any())
