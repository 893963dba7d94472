"""Opening an hnswlib file through hnsw_state.read_state (hnswlib.Index(params)) instead of load_index.

The dict must be what hnswlib itself holds after load_index of the same file, array by array (deletions, upper
levels, a capacity above the count), and the graph built from it must answer as the loaded one does; a file
whose link lists do not add up is refused as corrupt, never handed to hnswlib."""

from __future__ import annotations

from pathlib import Path

import hnswlib
import numpy as np
import pytest

from searchapp.ann import hnsw
from searchapp.ann.hnsw_state import read_state
from searchapp.base.errors import IndexCorruptError

DIM = 24


def _saved(tmp_path: Path, n: int, deleted: int, seed: int, m: int = 8) -> tuple[Path, np.ndarray]:
    rng = np.random.default_rng(seed)
    raw = hnswlib.Index(space="cosine", dim=DIM)
    raw.init_index(max_elements=max(2 * n, 16), M=m, ef_construction=40, random_seed=seed)
    labels = (rng.permutation(7 * n + 1)[:n] * 131 + 5).astype(np.int64)  # distinct, in no order
    if n:
        raw.add_items(rng.standard_normal((n, DIM)).astype(np.float32), labels)
    for label in labels[:deleted]:
        raw.mark_deleted(int(label))
    path = tmp_path / f"g{seed}.hnsw"
    raw.save_index(str(path))
    return path, labels


def _state(path: Path, capacity: int) -> dict:
    header, labels, deleted = hnsw._scan(path, DIM)
    return read_state(path, header["fields"], hnsw._HEADER.size, labels=labels, deleted=deleted, dim=DIM,
                      capacity=capacity)


@pytest.mark.parametrize("n,deleted,seed", [(0, 0, 1), (1, 0, 2), (40, 0, 3), (2500, 0, 4), (2500, 300, 5),
                                            (6000, 5999, 6)])
def test_state_is_hnswlibs_own_after_load_index(tmp_path, n, deleted, seed):
    path, labels = _saved(tmp_path, n, deleted, seed)
    capacity = max(n, 1024)
    loaded = hnswlib.Index(space="cosine", dim=DIM)
    loaded.load_index(str(path), max_elements=capacity)
    want = loaded.__getstate__()[0]
    got = _state(path, capacity)
    assert set(got) == set(want)
    for key, value in want.items():
        if key in ("seed", "num_threads"):  # load_index leaves the seed unset; threads are the machine's
            continue
        if key.startswith("label_lookup"):  # hnswlib lists its hash map in no particular order
            order_w, order_g = np.argsort(want["label_lookup_external"]), np.argsort(got["label_lookup_external"])
            assert np.array_equal(np.asarray(got[key])[order_g], value[order_w]), key
        elif isinstance(value, np.ndarray):
            assert np.array_equal(np.asarray(got[key]).astype(value.dtype), value), key
        else:
            assert got[key] == value, key
    if n:
        assert want["element_levels"].max() > 0 or n < 8  # upper levels exist: the jumping walk is exercised
    built = hnswlib.Index(params=got)
    assert built.element_count == loaded.element_count == n
    live = n - deleted
    if live:
        q = np.random.default_rng(seed + 100).standard_normal((7, DIM)).astype(np.float32)
        k = min(10, live)
        got_ids, got_d = built.knn_query(q, k=k)
        want_ids, want_d = loaded.knn_query(q, k=k)
        assert np.array_equal(got_ids, want_ids) and np.allclose(got_d, want_d)
        assert not set(got_ids.ravel().tolist()) & set(labels[:deleted].tolist())


def test_hnsw_index_opened_this_way_keeps_working(tmp_path):
    """HnswIndex.load goes through read_state: search, add past the capacity, delete, save and load again."""
    from searchapp.ann import HnswIndex, load_index
    from searchapp.base.config import IndexConfig

    rng = np.random.default_rng(9)
    vecs = rng.standard_normal((1500, DIM)).astype(np.float32)
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    config = IndexConfig(backend="hnsw")
    index = HnswIndex(DIM, config)
    index.add(np.arange(1500), vecs)
    index.remove(range(0, 1500, 7))
    index.save(tmp_path / "v.hnsw", 3)
    again = load_index(tmp_path / "v.hnsw", config, DIM)
    ids, sims = again.search(vecs[1], 5)
    assert ids[0][0] == 1 and sims[0][0] == pytest.approx(1.0, abs=1e-5)
    assert 7 not in again.search(vecs[7], 50)[0][0].tolist()
    extra = rng.standard_normal((3000, DIM)).astype(np.float32)
    again.add(np.arange(5000, 8000), extra / np.linalg.norm(extra, axis=1, keepdims=True))
    assert len(again) == 1500 - len(range(0, 1500, 7)) + 3000
    assert again.search(extra[10], 1)[0][0][0] == 5010


def test_link_lists_that_do_not_add_up_are_corrupt(tmp_path):
    path, _ = _saved(tmp_path, 2500, 0, 7)
    header, _, _ = hnsw._scan(path, DIM)
    tail_at = hnsw._HEADER.size + header["count"] * header["per_element"]
    data = bytearray(path.read_bytes())
    words = np.frombuffer(bytes(data[tail_at:]), dtype="<u4")
    first = int(np.flatnonzero(words)[0])  # the first element with upper levels: its size word
    bad = bytearray(data)
    bad[tail_at + 4 * first: tail_at + 4 * first + 4] = (int(words[first]) + 4).to_bytes(4, "little")
    path.write_bytes(bytes(bad))
    with pytest.raises(IndexCorruptError):
        _state(path, 4096)
    path.write_bytes(bytes(data) + b"\0\0\0\0")  # one record too many
    with pytest.raises(IndexCorruptError):
        _state(path, 4096)
    path.write_bytes(bytes(data[:-4]))  # the last record cut short
    with pytest.raises(IndexCorruptError):
        _state(path, 4096)
