"""Duplicates over a library read in batches: the same pairs as an all-pairs reference however small the
batches, passages missing from the index or the store skipped, progress and cancel in both passes. Real
SQLite and real indexes (exact and HNSW); vectors are made by the test, no model."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from searchapp.ann import ExactIndex, HnswIndex
from searchapp.base.config import IndexConfig
from searchapp.base.errors import Cancelled
from searchapp.base.progress import CancelToken
from searchapp.library.search import duplicates
from searchapp.library.search.duplicates import find_duplicates
from searchapp.store import NewChunk, Store

DIM = 24


def unit(x: np.ndarray) -> np.ndarray:
    return (x / np.linalg.norm(x, axis=-1, keepdims=True)).astype(np.float32)


def random_library(tmp_path, seed: int, n_files: int = 60):
    """Files of 1-6 passages: a third are rewordings of an earlier file (its passages plus noise, some dropped or
    added), a few exact copies (same sha256, same vectors), the rest unrelated. Returns (store, vectors by chunk
    id, file id -> path)."""
    rng = np.random.default_rng(seed)
    store = Store(tmp_path / f"lib-{seed}.sqlite")
    with store.atomic():
        root = store.add_root("/r")
    made: list[tuple[np.ndarray, str]] = []  # (passage vectors, sha) per file
    vec_of: dict[int, np.ndarray] = {}
    paths: dict[int, str] = {}
    for f in range(n_files):
        kind = rng.random()
        if made and kind < 0.33:  # a rewording: noisy passages of an earlier file
            base = made[rng.integers(len(made))][0]
            keep = base[rng.random(len(base)) < 0.85] if len(base) > 1 else base
            extra = unit(rng.standard_normal((int(rng.integers(0, 2)), DIM)))
            vecs = unit(np.concatenate([keep + rng.uniform(0.05, 0.5) * rng.standard_normal(keep.shape) / DIM**0.5,
                                        extra]))
            sha = f"s{f}"
        elif made and kind < 0.4:  # an exact copy
            vecs, sha = made[rng.integers(len(made))]
        else:
            vecs, sha = unit(rng.standard_normal((int(rng.integers(1, 7)), DIM))), f"s{f}"
        made.append((vecs, sha))
        path = f"/r/f{f:03d}.txt"
        with store.atomic():
            fid = store.upsert_file(root, path, 10, 1, sha, "indexed", None, "txt", len(vecs))
            ids = store.insert_chunks(fid, [NewChunk(i, 0, 1, None, f"{path} #{i}",
                                                     hashlib.sha256(f"{path}{i}".encode()).hexdigest(), v)
                                            for i, v in enumerate(vecs)])
        paths[fid] = path
        vec_of.update(zip(ids, vecs, strict=True))
    return store, vec_of, paths


def reference(store: Store, vec_of: dict[int, np.ndarray], paths: dict[int, str], threshold: float, k: int = 10):
    """All pairs, no batches, float64: candidates from each passage's exact k nearest other passages, then
    min(mean best cosine A->B, B->A) for every candidate pair of files with different content."""
    ids = np.array(sorted(vec_of))
    mat = np.array([vec_of[i] for i in ids], dtype=np.float64)
    owner = store.chunk_files(ids.tolist())
    file_of = np.array([owner[int(i)] for i in ids])
    sims = mat @ mat.T
    sha = {fid: s for fid, _, s in store.file_hashes()}
    cand = set()
    for i in range(len(ids)):
        for j in np.argsort(-sims[i], kind="stable")[:k + 1]:
            if sims[i, j] >= threshold and file_of[i] != file_of[j]:
                cand.add(tuple(sorted((int(file_of[i]), int(file_of[j])))))
    out = {}
    for a, b in cand:
        if sha.get(a) == sha.get(b):
            continue
        s = sims[np.ix_(file_of == a, file_of == b)]
        out[tuple(sorted((paths[a], paths[b])))] = min(s.max(axis=1).mean(), s.max(axis=0).mean())
    return out


@pytest.fixture(autouse=True)
def any_length(monkeypatch):
    """The passages here are labels ("/r/f000.txt #0"), their vectors made by the test: the rule that few words alike
    are no rewording (test_duplicates.py) is not what this module checks."""
    monkeypatch.setattr(duplicates, "MIN_NEAR_WORDS", 0)


@pytest.fixture
def small_batches(monkeypatch):
    """Batches far smaller than the library: many neighbour batches, many blocks of files, products cut by rows."""
    monkeypatch.setattr(duplicates, "BATCH", 7)
    monkeypatch.setattr(duplicates, "BLOCK_ROWS", 12)
    monkeypatch.setattr(duplicates, "PRODUCT_CELLS", 10)


def exact_index(vec_of: dict[int, np.ndarray]) -> ExactIndex:
    index = ExactIndex(DIM)
    index.add(np.array(list(vec_of)), np.array(list(vec_of.values())))
    return index


@pytest.mark.parametrize("seed", range(6))
def test_batched_pairs_equal_the_all_pairs_reference(tmp_path, small_batches, seed):
    store, vec_of, paths = random_library(tmp_path, seed)
    try:
        want = reference(store, vec_of, paths, 0.8)
        rep = find_duplicates(store, exact_index(vec_of), DIM, threshold=0.8)
    finally:
        store.close()
    got = {(p.a, p.b): p.similarity for p in rep.near}
    borderline = {pair for pair, s in want.items() if abs(s - 0.8) < 1e-5}  # float32 vs float64 may split these
    assert {p for p in got if p not in borderline} == {p for p, s in want.items() if s >= 0.8 and p not in borderline}
    assert len(got) >= 3  # the library plants rewordings: the comparison is not of two empty sets
    for pair, s in got.items():
        assert s == pytest.approx(want[pair], abs=1e-5)
    for p in rep.near:  # each shown passage pair: a passage of a and its best match in b
        assert p.pairs and all(pp.a_text.startswith(p.a) and pp.b_text.startswith(p.b) for pp in p.pairs)
        assert [pp.similarity for pp in p.pairs] == sorted((pp.similarity for pp in p.pairs), reverse=True)


def test_hnsw_finds_what_exact_search_finds(tmp_path, small_batches):
    store, vec_of, _ = random_library(tmp_path, seed=11, n_files=80)
    try:
        want = find_duplicates(store, exact_index(vec_of), DIM, threshold=0.75)
        index = HnswIndex(DIM, IndexConfig(backend="hnsw"))
        index.add(np.array(list(vec_of)), np.array(list(vec_of.values())))
        got = find_duplicates(store, index, DIM, threshold=0.75)
    finally:
        store.close()
    assert [(p.a, p.b) for p in got.near] == [(p.a, p.b) for p in want.near] and want.near
    assert [p.similarity for p in got.near] == pytest.approx([p.similarity for p in want.near], abs=1e-5)


def test_passages_missing_from_the_index_or_the_store_are_skipped(tmp_path):
    store, vec_of, paths = random_library(tmp_path, seed=3)
    try:
        index = exact_index(vec_of)
        full = find_duplicates(store, index, DIM, threshold=0.8)
        assert full.near
        a = next(f for f, p in paths.items() if p == full.near[0].a)
        gone = store.chunk_ids_of_file(a)
        index.remove(gone)  # its vectors not in the index yet (a sync under way): neither queried nor scored
        without = find_duplicates(store, index, DIM, threshold=0.8)
        index.add(np.array(gone), np.array([vec_of[i] for i in gone]))
        index.add(np.array([10**9]), np.array([vec_of[gone[0]]]))  # in the index, deleted from SQLite since
        again = find_duplicates(store, index, DIM, threshold=0.8)
    finally:
        store.close()
    assert all(paths[a] not in (p.a, p.b) for p in without.near)
    assert [(p.a, p.b) for p in again.near] == [(p.a, p.b) for p in full.near]


@pytest.mark.parametrize("stage", ["finding duplicates", "scoring duplicate pairs"])
def test_cancel_stops_within_one_batch_of_either_pass(tmp_path, small_batches, stage):
    store, vec_of, _ = random_library(tmp_path, seed=5)
    token = CancelToken()
    seen: list[tuple[str, int, int]] = []

    def progress(p):
        seen.append((p.stage, p.done, p.total))
        if p.stage == stage:
            token.cancel()

    try:
        whole: list = []
        find_duplicates(store, exact_index(vec_of), DIM, threshold=0.8, progress=lambda p: whole.append(p))
        with pytest.raises(Cancelled):
            find_duplicates(store, exact_index(vec_of), DIM, threshold=0.8, progress=progress, cancel=token)
    finally:
        store.close()
    # both passes report progress up to their totals in an uncancelled run, each in several steps
    for name in ("finding duplicates", "scoring duplicate pairs"):
        steps = [(p.done, p.total) for p in whole if p.stage == name]
        assert len(steps) > 2 and steps[-1][0] == steps[-1][1] and [d for d, _ in steps] == sorted(d for d, _ in steps)
    # cancelled at the first report of `stage`: no batch after it
    assert [s for s in seen if s[0] == stage] == [seen[-1]] and seen[-1][1] < seen[-1][2]
