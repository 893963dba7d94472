"""An hnswlib file read into the binding's own state dict, so the graph is built by `hnswlib.Index(params)`.

Why: `load_index` parses the file in C++ holding Python's interpreter lock the whole time (2.9 s at a million
vectors), so a window opening a big library stood still that long, whatever thread did the opening. Here the
file is read by Python and NumPy, which let other threads run between steps: the vectors are a read-only
memory map of the file (no copy on our side), the per-element link lists are found by jumping from record to
record, and only hnswlib's final copy into its own memory holds the lock (`setAnnData`: 0.16 s at 200k,
0.76 s at 1M, where `load_index` held it 1.9-3.4 s).

The dict is what hnswlib 0.8's `getIndexParams` returns for the same file after `load_index` (tests compare
them array by array, deletions included); `hnswlib.Index(params)` runs `createFromParams`, which checks
every layout field against the header before copying anything.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np

from ..base.errors import IndexCorruptError
from ..base.safe_open import open_regular

__all__ = ["read_state"]

SER_VERSION = 1  # hnswlib 0.8's Index::ser_version
DEFAULT_SEED = 100  # init_index's default random_seed: only where later insertions put their levels


def read_state(path: Path, header: tuple[Any, ...], header_size: int, *, labels: np.ndarray, deleted: np.ndarray,
               dim: int, capacity: int) -> dict[str, Any]:
    """The params dict of the hnswlib file `path`, from what hnsw._scan read and checked of it (the unpacked
    header, the labels and delete marks), with room for `capacity` elements (at least the stored count)."""
    (offset_level0, _max_elements, count, per_element, label_offset, offset_data, max_level, entry,
     max_m, max_m0, m, mult, ef_construction) = header
    links_per_element = 4 * max_m + 4  # size_links_per_element_: maxM neighbour ids + a count
    capacity = max(capacity, count)
    level0 = np.memmap(path, dtype=np.int8, mode="r", offset=header_size, shape=(count * per_element,)) \
        if count else np.zeros(0, dtype=np.int8)
    if count:
        # One byte a page touched here, where NumPy lets other threads run: hnswlib's copy under the lock then
        # takes no page faults (at 1M: 1.2-1.8 s -> 0.76 s held; the touching 0.16 s, not held).
        np.add.reduce(level0[::4096], dtype=np.int64)
    levels, links = _upper_links(path, header_size + count * per_element, count, links_per_element, capacity)
    return {
        "ser_version": SER_VERSION, "space": "cosine", "dim": dim, "index_inited": True, "ep_added": True,
        "normalize": True, "num_threads": os.cpu_count() or 1, "seed": DEFAULT_SEED,
        "offset_level0": offset_level0, "max_elements": capacity, "cur_element_count": count,
        "size_data_per_element": per_element, "label_offset": label_offset, "offset_data": offset_data,
        "max_level": max_level, "enterpoint_node": entry, "max_M": max_m, "max_M0": max_m0, "M": m,
        "mult": mult, "ef_construction": ef_construction, "ef": 10, "has_deletions": bool(deleted.any()),
        "size_links_per_element": links_per_element, "allow_replace_deleted": False,
        "label_lookup_external": labels.astype(np.uint64), "label_lookup_internal": np.arange(count, dtype=np.uint32),
        "element_levels": levels, "data_level0": level0, "link_lists": links,
    }


def _upper_links(path: Path, start: int, count: int, per_level: int, capacity: int) -> tuple[np.ndarray, np.ndarray]:
    """(element levels (capacity,) int32, the upper-level link lists concatenated as int8) from the records after
    the level-0 block: per element a uint32 size, then that many bytes (size = levels × per_level).

    Every size and every list is a multiple of 4 bytes, so the records are read as uint32 words; most elements
    live on level 0 only (size 0), so the walk jumps from one non-zero size to the next (one step per upper
    element, ~1/M of them) instead of stepping through every element."""
    with open_regular(path) as fh:
        fh.seek(start)
        tail = fh.read()
    if len(tail) % 4:
        raise IndexCorruptError(f"{path}: link lists end mid-word")
    words = np.frombuffer(tail, dtype="<u4")
    nonzero = np.flatnonzero(words)
    levels = np.zeros(capacity, dtype=np.int32)
    pieces = []
    at, element = 0, 0
    while element < count:
        k = int(np.searchsorted(nonzero, at))  # the next non-empty record (what lies between is level 0 only)
        nxt = int(nonzero[k]) if k < len(nonzero) else len(words)
        zeros = min(nxt - at, count - element)  # one zero word per element with no upper level
        element += zeros
        at += zeros
        if element == count:
            break
        if at >= len(words):
            raise IndexCorruptError(f"{path}: link lists end after {element} of {count} elements")
        size = int(words[at])
        if size % per_level or size // per_level > 64 or at + 1 + size // 4 > len(words):
            raise IndexCorruptError(f"{path}: element {element} has a link list of {size} bytes")
        levels[element] = size // per_level
        pieces.append(words[at + 1 : at + 1 + size // 4])
        element += 1
        at += 1 + size // 4
    if at != len(words):
        raise IndexCorruptError(f"{path}: {4 * (len(words) - at)} bytes after the last link list")
    links = np.concatenate(pieces).view(np.int8) if pieces else np.zeros(0, dtype=np.int8)
    return levels, links
