"""One conformance suite run over every backend in BACKENDS, plus HNSW recall against exact search.

Recall is measured on clustered vectors (50 centroids + noise), not uniform random ones: random
high-dimensional points have no real neighbourhoods and make any ANN index look broken.
"""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import numpy as np
import pytest

from searchapp.ann import BACKENDS, ExactIndex, HnswIndex, VectorIndex, create_index, load_index, read_sidecar
from searchapp.base.config import IndexConfig
from searchapp.base.errors import ConfigError, IndexCorruptError

DIM = 32


def unit(x: np.ndarray) -> np.ndarray:
    return (x / np.linalg.norm(x, axis=-1, keepdims=True)).astype(np.float32)


def clustered(n: int, dim: int, centroids: int, seed: int, noise: float = 0.12) -> np.ndarray:
    """Unit vectors around random unit centroids; `noise` is the per-coordinate standard deviation."""
    rng = np.random.default_rng(seed)
    centres = unit(rng.standard_normal((centroids, dim)))
    points = centres[rng.integers(0, centroids, n)] + noise * rng.standard_normal((n, dim))
    return unit(points)


@pytest.fixture(params=sorted(BACKENDS))
def backend(request) -> str:
    return request.param


@pytest.fixture
def config(backend) -> IndexConfig:
    # Smaller ef_construction than the default keeps the suite fast; recall is tested separately.
    return IndexConfig(backend=backend, ef_construction=100)


@pytest.fixture(scope="module")
def vectors() -> np.ndarray:
    return clustered(600, DIM, centroids=12, seed=1)


@pytest.fixture
def filled(config, vectors) -> VectorIndex:
    index = create_index(config, DIM)
    index.add(np.arange(len(vectors), dtype=np.int64) * 3 + 7, vectors)  # ids are not row numbers
    return index


def labels_of(vectors: np.ndarray) -> np.ndarray:
    return np.arange(len(vectors), dtype=np.int64) * 3 + 7


# ---- conformance: every backend ------------------------------------------------------------------


def test_registry_and_factory(backend, config):
    index = create_index(config, DIM)
    assert isinstance(index, BACKENDS[backend]) and index.name == backend
    assert index.dim == DIM and len(index) == 0 and index.generation == 0
    assert index.ids().dtype == np.int64 and index.ids().shape == (0,)


def test_unknown_backend_is_a_config_error():
    with pytest.raises(ConfigError, match="unknown"):
        create_index(IndexConfig(backend="faiss"), DIM)


def test_build_and_search(filled, vectors):
    ids, sims = filled.search(vectors[:20], 5)
    assert ids.shape == sims.shape == (20, 5)
    assert ids.dtype == np.int64 and sims.dtype == np.float32
    assert np.array_equal(ids[:, 0], labels_of(vectors)[:20])  # each point finds itself first
    np.testing.assert_allclose(sims[:, 0], 1.0, atol=1e-5)
    assert (np.diff(sims, axis=1) <= 1e-6).all()  # best first
    assert (sims <= 1.0).all() and (sims >= -1.0).all()
    assert len(filled) == len(vectors)
    assert np.array_equal(filled.ids(), labels_of(vectors))


def test_similarities_are_cosines(filled, vectors):
    q = vectors[5] + 0.3 * vectors[100]
    ids, sims = filled.search(q, 10)
    by_label = dict(zip(labels_of(vectors).tolist(), vectors, strict=True))
    want = np.array([by_label[i] @ unit(q) for i in ids[0]])
    np.testing.assert_allclose(sims[0], want, atol=1e-5)


def test_single_and_batch_queries(filled, vectors):
    single_ids, single_sims = filled.search(vectors[3], 4)
    assert single_ids.shape == (1, 4)
    batch_ids, batch_sims = filled.search(vectors[[3, 4, 5]], 4)
    assert batch_ids.shape == (3, 4)
    assert np.array_equal(batch_ids[0], single_ids[0])
    np.testing.assert_allclose(batch_sims[0], single_sims[0], atol=1e-6)


def test_unnormalized_input_is_normalized(config, vectors):
    index = create_index(config, DIM)
    index.add(labels_of(vectors), vectors * 7.5)
    ids, sims = index.search(vectors[0] * 0.01, 1)
    assert ids[0, 0] == labels_of(vectors)[0]
    np.testing.assert_allclose(sims[0, 0], 1.0, atol=1e-5)


def test_k_larger_than_count(config, vectors):
    index = create_index(config, DIM)
    index.add(np.array([10, 20, 30]), vectors[:3])
    ids, sims = index.search(vectors[:2], 50)
    assert ids.shape == sims.shape == (2, 3)
    assert sorted(ids[0].tolist()) == [10, 20, 30]
    assert index.search(vectors[0], 0)[0].shape == (1, 0)
    with pytest.raises(ValueError):
        index.search(vectors[0], -1)


def test_empty_index(config, tmp_path, vectors):
    index = create_index(config, DIM)
    for queries, q in ((vectors[0], 1), (vectors[:4], 4)):
        ids, sims = index.search(queries, 10)
        assert ids.shape == sims.shape == (q, 0)
        assert ids.dtype == np.int64 and sims.dtype == np.float32
    index.remove([1, 2, 3])  # unknown ids are ignored
    index.add(np.array([], dtype=np.int64), np.empty((0, DIM), np.float32))
    path = tmp_path / "empty.idx"
    index.save(path, generation=3)
    loaded = load_index(path, config, DIM)
    assert len(loaded) == 0 and loaded.generation == 3
    assert loaded.search(vectors[0], 5)[0].shape == (1, 0)
    loaded.add(np.array([5]), vectors[:1])
    assert loaded.search(vectors[0], 5)[0].tolist() == [[5]]


def test_everything_deleted(filled, vectors):
    filled.remove(labels_of(vectors).tolist())
    assert len(filled) == 0 and filled.ids().size == 0
    assert filled.search(vectors[:3], 10)[0].shape == (3, 0)


def test_delete_then_search_never_returns_deleted(filled, vectors, config, tmp_path):
    labels = labels_of(vectors)
    gone = set(labels[::2].tolist())
    filled.remove(list(gone) + [999_999])  # an unknown id is ignored
    assert len(filled) == len(vectors) - len(gone)
    assert set(filled.ids().tolist()) == set(labels.tolist()) - gone
    ids, _ = filled.search(vectors, len(vectors))  # ask for everything: deleted must still be absent
    assert ids.shape == (len(vectors), len(filled))
    assert not gone & set(ids.ravel().tolist())
    for row in ids:
        assert len(set(row.tolist())) == len(row)  # no label twice
    filled.remove(list(gone))  # removing twice is harmless
    path = tmp_path / "idx"
    filled.save(path, generation=1)
    loaded = load_index(path, config, DIM)
    assert len(loaded) == len(filled)
    assert not gone & set(loaded.search(vectors[:50], 10)[0].ravel().tolist())


def test_readd_deleted_id(filled, vectors, config, tmp_path):
    label = int(labels_of(vectors)[10])
    filled.remove([label])
    assert label not in filled.search(vectors[10], 5)[0]
    moved = unit(vectors[10] + vectors[300])  # a different vector under the same label
    filled.add(np.array([label]), moved[None])
    assert len(filled) == len(vectors) and label in filled.ids()
    ids, sims = filled.search(moved, 1)
    assert ids[0, 0] == label and sims[0, 0] == pytest.approx(1.0, abs=1e-5)
    # the deleted state survives a save/load, and a re-add after load works too
    filled.remove([label])
    path = tmp_path / "idx"
    filled.save(path, generation=2)
    loaded = load_index(path, config, DIM)
    assert label not in loaded.ids() and len(loaded) == len(vectors) - 1
    loaded.add(np.array([label]), vectors[10][None])
    assert loaded.search(vectors[10], 1)[0][0, 0] == label
    assert len(loaded) == len(vectors)


def test_readd_live_id_replaces_vector(filled, vectors):
    label = int(labels_of(vectors)[0])
    filled.add(np.array([label]), vectors[500][None])
    assert len(filled) == len(vectors)
    ids, _ = filled.search(vectors[0], 3)
    assert label not in ids[0]  # the old vector is gone
    ids, _ = filled.search(vectors[500], 2)
    assert set(ids[0].tolist()) == {label, int(labels_of(vectors)[500])}


def test_duplicate_ids_in_one_batch_last_wins(config, vectors):
    index = create_index(config, DIM)
    index.add(np.array([4, 4, 9]), vectors[[0, 1, 2]])
    assert len(index) == 2 and index.ids().tolist() == [4, 9]
    assert index.search(vectors[1], 1)[0][0, 0] == 4


def test_large_int64_ids(config, vectors):
    index = create_index(config, DIM)
    big = np.array([2**40, 2**62 + 5, 0], dtype=np.int64)
    index.add(big, vectors[:3])
    assert index.search(vectors[1], 1)[0][0, 0] == 2**62 + 5
    assert index.ids().tolist() == sorted(big.tolist())


def test_bad_input_rejected(config, vectors):
    index = create_index(config, DIM)
    with pytest.raises(ValueError):
        index.add(np.array([1]), np.ones((1, DIM + 1), np.float32))
    with pytest.raises(ValueError):
        index.add(np.array([-1]), vectors[:1])
    with pytest.raises(ValueError):
        index.add(np.array([1, 2]), vectors[:1])
    with pytest.raises(ValueError):
        index.add(np.array([1]), np.full((1, DIM), np.nan, np.float32))
    with pytest.raises(ValueError):
        index.search(np.ones(DIM + 1, np.float32), 3)
    assert len(index) == 0


def test_save_load_round_trip(filled, vectors, config, tmp_path):
    path = tmp_path / "vectors.idx"
    filled.save(path, generation=42)
    assert filled.generation == 42
    loaded = load_index(path, config, DIM)
    assert type(loaded) is type(filled) and loaded.generation == 42
    assert len(loaded) == len(filled) and np.array_equal(loaded.ids(), filled.ids())
    a_ids, a_sims = filled.search(vectors[:50], 10)
    b_ids, b_sims = loaded.search(vectors[:50], 10)
    assert np.array_equal(a_ids, b_ids)
    np.testing.assert_allclose(a_sims, b_sims, atol=1e-6)


def test_append_after_load_grows_past_capacity(filled, vectors, config, tmp_path):
    path = tmp_path / "vectors.idx"
    filled.save(path, generation=1)
    loaded = load_index(path, config, DIM)
    more = clustered(1500, DIM, centroids=12, seed=2)  # 600 + 1500 crosses the 1024 minimum capacity
    more_ids = np.arange(10_000, 10_000 + len(more), dtype=np.int64)
    for start in range(0, len(more), 500):
        loaded.add(more_ids[start:start + 500], more[start:start + 500])
    assert len(loaded) == len(vectors) + len(more)
    ids, _ = loaded.search(more[[0, 777, 1499]], 1)
    assert ids[:, 0].tolist() == more_ids[[0, 777, 1499]].tolist()
    ids, _ = loaded.search(vectors[:5], 1)
    assert ids[:, 0].tolist() == labels_of(vectors)[:5].tolist()


def test_sidecar_records_and_round_trips_generation(filled, config, tmp_path):
    path = tmp_path / "vectors.idx"
    assert read_sidecar(path) is None
    for generation in (1, 7):
        filled.save(path, generation=generation)
        meta = read_sidecar(path)
        assert meta["backend"] == config.backend and meta["dim"] == DIM
        assert meta["count"] == len(filled) and meta["generation"] == generation
        assert isinstance(meta["params"], dict)
        assert load_index(path, config, DIM).generation == generation
    assert (tmp_path / "vectors.idx.json").is_file()
    if config.backend == "hnsw":
        assert meta["params"]["m"] == config.m and meta["params"]["ef_construction"] == config.ef_construction
    # vectors stay out of the sidecar: SQLite holds them
    assert (tmp_path / "vectors.idx.json").stat().st_size < 1000


def test_atomic_save_leaves_no_temp_files(filled, tmp_path):
    path = tmp_path / "vectors.idx"
    filled.save(path, generation=1)
    filled.save(path, generation=2)  # over an existing pair
    assert sorted(p.name for p in tmp_path.iterdir()) == ["vectors.idx", "vectors.idx.json"]


def test_failed_save_keeps_the_old_pair(filled, vectors, config, tmp_path, monkeypatch):
    path = tmp_path / "vectors.idx"
    filled.save(path, generation=1)
    before = path.read_bytes(), (tmp_path / "vectors.idx.json").read_bytes()

    def broken(tmp: Path) -> None:
        tmp.write_bytes(b"half a file")
        raise OSError("disk full")

    filled.add(np.array([123_456]), vectors[:1])
    monkeypatch.setattr(filled, "_write", broken)
    with pytest.raises(OSError, match="disk full"):
        filled.save(path, generation=2)
    assert (path.read_bytes(), (tmp_path / "vectors.idx.json").read_bytes()) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["vectors.idx", "vectors.idx.json"]
    assert filled.generation == 1
    assert load_index(path, config, DIM).generation == 1


def test_truncated_file_is_corrupt(filled, config, tmp_path):
    path = tmp_path / "vectors.idx"
    filled.save(path, generation=1)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(IndexCorruptError):
        load_index(path, config, DIM)
    path.write_bytes(b"")
    with pytest.raises(IndexCorruptError):
        load_index(path, config, DIM)


def test_flipped_byte_is_corrupt(filled, config, tmp_path):
    path = tmp_path / "vectors.idx"
    filled.save(path, generation=1)
    data = bytearray(path.read_bytes())
    data[len(data) // 3] ^= 0xFF
    path.write_bytes(bytes(data))
    with pytest.raises(IndexCorruptError, match="sidecar"):
        load_index(path, config, DIM)


def _forge_sidecar(path: Path) -> None:
    """Make the sidecar match whatever bytes `path` now holds, so the backend's own parser is tested."""
    from searchapp.ann.storage import file_checksum

    meta = read_sidecar(path)
    meta["file_size"], meta["crc32"] = file_checksum(path)
    Path(str(path) + ".json").write_text(json.dumps(meta))


@pytest.mark.parametrize("garbage", [b"", b"\x00" * 64, b"\x93NUMPY" + b"\xff" * 300, os.urandom(5000)])
def test_malformed_file_with_matching_sidecar_is_corrupt(filled, config, tmp_path, garbage):
    path = tmp_path / "vectors.idx"
    filled.save(path, generation=1)
    path.write_bytes(garbage)
    _forge_sidecar(path)
    with pytest.raises(IndexCorruptError):
        load_index(path, config, DIM)


def test_truncated_file_with_matching_sidecar_is_corrupt(filled, config, tmp_path):
    path = tmp_path / "vectors.idx"
    filled.save(path, generation=1)
    path.write_bytes(path.read_bytes()[:-100])
    _forge_sidecar(path)
    with pytest.raises(IndexCorruptError):
        load_index(path, config, DIM)


def test_wrong_dim_is_corrupt(filled, config, tmp_path):
    path = tmp_path / "vectors.idx"
    filled.save(path, generation=1)
    with pytest.raises(IndexCorruptError, match="dim"):
        load_index(path, config, DIM * 2)
    # the file itself disagrees with the dimension (sidecar edited to match): still caught
    meta = read_sidecar(path)
    meta["dim"] = DIM * 2
    Path(str(path) + ".json").write_text(json.dumps(meta))
    with pytest.raises(IndexCorruptError):
        load_index(path, config, DIM * 2)


def test_sidecar_problems_are_corrupt(filled, config, tmp_path):
    path = tmp_path / "vectors.idx"
    sidecar = tmp_path / "vectors.idx.json"
    filled.save(path, generation=1)
    good = sidecar.read_text()
    sidecar.unlink()
    with pytest.raises(IndexCorruptError, match="sidecar"):
        load_index(path, config, DIM)
    sidecar.write_text("{not json")
    with pytest.raises(IndexCorruptError, match="sidecar"):
        load_index(path, config, DIM)
    for key, value in (("count", 1), ("generation", "x"), ("backend", "other")):
        sidecar.write_text(json.dumps({**json.loads(good), key: value}))
        with pytest.raises(IndexCorruptError):
            load_index(path, config, DIM)
    with pytest.raises(IndexCorruptError):
        load_index(tmp_path / "missing.idx", config, DIM)


def test_index_replaced_without_its_sidecar_is_corrupt(filled, vectors, config, tmp_path):
    """A crash between the index replace and the sidecar replace: new index, old sidecar."""
    path = tmp_path / "vectors.idx"
    filled.save(path, generation=1)
    old_sidecar = (tmp_path / "vectors.idx.json").read_bytes()
    filled.add(np.array([99_999]), vectors[:1])
    filled.save(path, generation=2)
    (tmp_path / "vectors.idx.json").write_bytes(old_sidecar)
    with pytest.raises(IndexCorruptError):
        load_index(path, config, DIM)


def test_other_backends_file_is_corrupt(filled, backend, tmp_path):
    path = tmp_path / "vectors.idx"
    filled.save(path, generation=1)
    for other in BACKENDS:
        if other != backend:
            with pytest.raises(IndexCorruptError, match="backend"):
                load_index(path, IndexConfig(backend=other), DIM)


def test_concurrent_add_and_search(config):
    """Writers and readers interleave (the lock is per call): no crash, only live labels come back."""
    data = clustered(3000, DIM, centroids=12, seed=3)
    index = create_index(config, DIM)
    index.add(np.arange(200), data[:200])
    errors: list[BaseException] = []

    def writer() -> None:
        try:
            for start in range(200, 3000, 200):
                index.add(np.arange(start, start + 200), data[start:start + 200])
                index.remove(range(start - 200, start - 150))
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    def reader() -> None:
        try:
            for i in range(150):
                ids, sims = index.search(data[i % 200 + 2800], 10)
                assert ids.shape[1] == min(10, ids.shape[1]) and (ids >= 0).all()
        except BaseException as exc:  # pragma: no cover
            errors.append(exc)

    threads = [threading.Thread(target=writer)] + [threading.Thread(target=reader) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    removed = {i for start in range(200, 3000, 200) for i in range(start - 200, start - 150)}
    assert len(index) == 3000 - len(removed)
    assert not removed & set(index.search(data[:100], 20)[0].ravel().tolist())


# ---- HNSW specifics ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def recall_data() -> tuple[np.ndarray, np.ndarray]:
    """5,000 base points around 50 centroids (dim 64) and 200 held-out points of the same clusters."""
    points = clustered(5200, 64, centroids=50, seed=7, noise=0.1)
    return points[:5000], points[5000:]


def recall_at_10(approx: VectorIndex, exact: VectorIndex, queries: np.ndarray) -> float:
    got, _ = approx.search(queries, 10)
    want, _ = exact.search(queries, 10)
    return float(np.mean([len(set(a) & set(b)) / 10 for a, b in zip(got.tolist(), want.tolist(), strict=True)]))


def test_hnsw_recall_against_exact(recall_data, tmp_path):
    base, queries = recall_data
    ids = np.arange(len(base), dtype=np.int64)
    hnsw = HnswIndex(64, IndexConfig(backend="hnsw"))
    exact = ExactIndex(64)
    for start in range(0, len(base), 1000):
        hnsw.add(ids[start:start + 1000], base[start:start + 1000])
    exact.add(ids, base)
    assert recall_at_10(hnsw, exact, queries) >= 0.95
    # the same after a save/load (ef must be set again after load)
    hnsw.save(tmp_path / "h", generation=1)
    loaded = load_index(tmp_path / "h", IndexConfig(backend="hnsw"), 64)
    assert recall_at_10(loaded, exact, queries) >= 0.95
    # and after churn: a third deleted, half of those re-added with new vectors, new points added
    rng = np.random.default_rng(0)
    gone = rng.choice(ids, size=len(ids) // 3, replace=False)
    loaded.remove(gone.tolist())
    exact.remove(gone.tolist())
    back = gone[: len(gone) // 2]
    fresh = clustered(len(back) + 500, 64, centroids=50, seed=7, noise=0.1)[-(len(back) + 500):]
    new_ids = np.concatenate([back, np.arange(10_000, 10_500)])
    loaded.add(new_ids, fresh)
    exact.add(new_ids, fresh)
    assert np.array_equal(loaded.ids(), exact.ids())
    assert recall_at_10(loaded, exact, queries) >= 0.95
    assert 0.0 < loaded.deleted_fraction() < 0.2


def test_hnsw_ef_setting(recall_data):
    base, queries = recall_data
    index = HnswIndex(64, IndexConfig(backend="hnsw", ef_search=10))
    index.add(np.arange(len(base)), base)
    assert index.params()["ef_search"] == 10
    assert index.search(queries[0], 50, ef=200)[0].shape == (1, 50)
    assert index.params()["ef_search"] == 10  # ef is per call: the index's default never changes
    assert index.search(queries[0], 50)[0].shape == (1, 50)  # ef is raised to k for a query
    with pytest.raises(ValueError):
        index.search(queries[0], 5, ef=0)


def test_hnsw_capacity_grows_geometrically():
    index = HnswIndex(8, IndexConfig(backend="hnsw", ef_construction=50))
    assert index.params()["capacity"] == 1024
    data = clustered(1100, 8, centroids=4, seed=5)
    index.add(np.arange(1025), data[:1025])
    assert index.params()["capacity"] == 1536
    index.add(np.arange(2000, 2075), data[1025:])
    assert len(index) == 1100 and index.params()["capacity"] == 1536


def test_hnsw_deleted_fraction_and_slots():
    index = HnswIndex(8, IndexConfig(backend="hnsw", ef_construction=50))
    data = clustered(100, 8, centroids=4, seed=6)
    index.add(np.arange(100), data)
    assert index.deleted_fraction() == 0.0
    index.remove(range(25))
    assert index.deleted_fraction() == pytest.approx(0.25)
    index.add(np.arange(10), data[:10])  # re-adding reuses the label's own slot
    assert index.deleted_fraction() == pytest.approx(0.15)


def test_hnsw_falls_back_when_knn_query_fails(recall_data):
    """hnswlib raises when it reaches fewer than k live nodes; the search must still answer k."""
    base, queries = recall_data
    index = HnswIndex(64, IndexConfig(backend="hnsw", ef_construction=50))
    index.add(np.arange(1000), base[:1000])
    exact = ExactIndex(64)
    exact.add(np.arange(1000), base[:1000])

    class Failing:
        def __init__(self, inner, failures: int) -> None:
            self.inner, self.failures = inner, failures

        def knn_query(self, *args, **kwargs):
            if self.failures:
                self.failures -= 1
                raise RuntimeError("Cannot return the results in a contiguous 2D array.")
            return self.inner.knn_query(*args, **kwargs)

        def __getattr__(self, name):
            return getattr(self.inner, name)

    real = index._index
    for failures in (1, 2):  # wider ef succeeds / exact answer
        index._index = Failing(real, failures)
        ids, sims = index.search(queries[:5], 10)
        want_ids, want_sims = exact.search(queries[:5], 10)
        assert ids.shape == (5, 10) and ids.dtype == np.int64 and sims.dtype == np.float32
        np.testing.assert_allclose(sims, want_sims, atol=1e-5)


def test_hnsw_loaded_index_keeps_its_graph_parameters(tmp_path, recall_data):
    base, _ = recall_data
    index = HnswIndex(64, IndexConfig(backend="hnsw", m=8, ef_construction=60))
    index.add(np.arange(300), base[:300])
    index.save(tmp_path / "h", generation=1)
    loaded = load_index(tmp_path / "h", IndexConfig(backend="hnsw", m=32, ef_search=77), 64)
    assert loaded.params()["m"] == 8 and loaded.params()["ef_search"] == 77


def test_label_distinctness_check_catches_a_repeat_in_any_order():
    """The index-file scan's duplicate-label check (an O(n) path for ascending labels, a sort otherwise)."""
    from searchapp.ann.hnsw import _distinct

    assert _distinct(np.array([], dtype=np.int64)) and _distinct(np.array([7], dtype=np.int64))
    assert _distinct(np.array([1, 2, 5, 9], dtype=np.int64))
    assert _distinct(np.array([9, 1, 5, 2], dtype=np.int64))  # a sync's re-added labels come out of order
    assert not _distinct(np.array([1, 2, 2, 9], dtype=np.int64))
    assert not _distinct(np.array([9, 1, 5, 1], dtype=np.int64))


def test_file_checksum_matches_crc32_of_the_bytes(tmp_path):
    import zlib

    from searchapp.ann.storage import file_checksum

    empty = tmp_path / "empty"
    empty.write_bytes(b"")
    assert file_checksum(empty) == (0, 0)
    data = np.random.default_rng(0).bytes(3 * (1 << 20) + 17)  # spans several read blocks and a partial one
    (tmp_path / "f").write_bytes(data)
    assert file_checksum(tmp_path / "f") == (len(data), zlib.crc32(data))
