"""Duplicates over a library read in batches: the same pairs as an all-pairs reference however small the
batches, passages missing from the index or the store skipped, progress and cancel in both passes. Real
SQLite and real indexes (exact and HNSW); vectors are made by the test, no model."""

from __future__ import annotations

import hashlib
import json

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


def planted_library(tmp_path, files: dict[str, tuple[np.ndarray, str]]):
    """A store of one-passage files, {name: (vector, sha256)}: a pair's similarity is its two vectors' cosine."""
    store = Store(tmp_path / "planted.sqlite")
    vec_of: dict[int, np.ndarray] = {}
    with store.atomic():
        root = store.add_root("/r")
        for name, (vec, sha) in files.items():
            fid = store.upsert_file(root, f"/r/{name}", 10, 1, sha, "indexed", None, "txt", 1)
            ids = store.insert_chunks(fid, [NewChunk(0, 0, 1, None, name, hashlib.sha256(name.encode()).hexdigest(),
                                                     vec)])
            vec_of[ids[0]] = vec
    return store, vec_of


def basis(*weights: tuple[int, float]) -> np.ndarray:
    v = np.zeros(DIM)
    for axis, w in weights:
        v[axis] = w
    return unit(v)


def planted_groups(tmp_path):
    """Four notes from one template (every two near), one pair apart, and a chain: v1 ~ v2 ~ v3, v1 and v3 not near
    (cosine 0.5), v2 with an exact copy; a file alike to none. (files {name: (vector, sha)}, report at 0.8)"""
    notes = {f"note{i}.md": (basis((0, 1.0), (1 + i, 0.1 * (i + 1))), f"n{i}") for i in range(4)}
    angle = np.radians(30)
    chain = {f"v{i + 1}.docx": (basis((10, np.cos(i * angle)), (11, np.sin(i * angle))), f"v{i}") for i in range(3)}
    chain["v2 (1).docx"] = (chain["v2.docx"][0], "v1")  # the same bytes as v2.docx
    files = {**notes, "letter.odt": (basis((6, 1.0)), "l"), "letter.txt": (basis((6, 1.0), (7, 0.2)), "t"),
             **chain, "alone.txt": (basis((20, 1.0)), "a")}
    store, vec_of = planted_library(tmp_path, files)
    try:
        return files, find_duplicates(store, exact_index(vec_of), DIM, threshold=0.8)
    finally:
        store.close()


def test_near_pairs_are_grouped_as_their_files_link_them(tmp_path):
    """Near pairs of a group are those between its files; a file is in one group at most; the weakest pair, and two
    files that are not near duplicates, are said."""
    files, rep = planted_groups(tmp_path)
    angle = np.radians(30)
    vec = {f"/r/{name}": v for name, (v, _) in files.items()}
    cos = {(p.a, p.b): float(vec[p.a] @ vec[p.b]) for p in rep.near}
    assert rep.exact == [["/r/v2 (1).docx", "/r/v2.docx"]]
    groups = rep.near_groups
    assert [[p[3:] for p in g.paths] for g in groups] == [  # the surest first: by the weakest near pair
        ["letter.odt", "letter.txt"], ["note0.md", "note1.md", "note2.md", "note3.md"],
        ["v1.docx", "v2 (1).docx", "v2.docx", "v3.docx"]]
    pair, template, versions = groups
    for g in groups:  # a group's near pairs are exactly those between its files
        assert {(p.a, p.b) for p in (rep.near[i] for i in g.near)} == {k for k in cos if k[0] in g.paths}
        assert rep.near[g.weakest].similarity == g.lowest == pytest.approx(min(cos[k] for k in cos
                                                                                if k[0] in g.paths), abs=1e-5)
        assert g.highest == pytest.approx(max(cos[k] for k in cos if k[0] in g.paths), abs=1e-5)
    assert pair.lowest == pair.highest == pytest.approx(1 / np.sqrt(1.04), abs=1e-5) and not pair.caution
    # every two notes near: 6 pairs, 0.889 (note2 ~ note3) to 0.976 (note0 ~ note1); below ONE_DOCUMENT: a caution
    assert len(template.near) == 6 and template.not_near == 0 and template.apart is None
    assert template.lowest == pytest.approx(1 / np.sqrt(1.09 * 1.16), abs=1e-5) and template.caution
    assert template.highest == pytest.approx(1 / np.sqrt(1.01 * 1.04), abs=1e-5)
    # the chain: its near pairs 0.866 each, but v1 and v3 are not near duplicates (0.5), said with how they link
    assert len(versions.near) == 4 and versions.lowest == pytest.approx(np.cos(angle), abs=1e-5)
    assert versions.not_near == 1 and versions.apart == ("/r/v1.docx", "/r/v3.docx", 2) and versions.caution
    assert rep.caution == duplicates.CAUTION
    # --json keeps every near pair as it was, the groups beside them
    out = rep.to_json()
    assert [(p["a_key"], p["b_key"], p["similarity"]) for p in out["near"]] == [
        (p.a, p.b, round(p.similarity, 4)) for p in rep.near] and len(out["near"]) == 11
    assert set(out["near"][0]) == {"a", "b", "a_key", "b_key", "similarity", "pairs"}
    assert [g["keys"] for g in out["near_groups"]] == [g.paths for g in groups]
    assert sorted(i for g in out["near_groups"] for i in g["near"]) == list(range(11))
    last = out["near_groups"][2]
    assert last["apart"] == {"a": "/r/v1.docx", "b": "/r/v3.docx", "a_key": "/r/v1.docx", "b_key": "/r/v3.docx",
                             "steps": 2} and last["not_near"] == 1 and last["caution"] is True
    assert "apart" not in out["near_groups"][1] and out["near_groups"][0]["caution"] is False


def test_duplicates_text_lists_groups_and_a_pair_as_before(tmp_path):
    from argparse import Namespace
    from io import StringIO

    from searchapp.cli.commands.discover import print_duplicates

    _, rep = planted_groups(tmp_path)
    out = StringIO()
    assert print_duplicates(Namespace(json=False), rep, out) == 0
    text = out.getvalue()
    assert "near duplicates (3 groups of 11 pairs, similarity >= 0.80):\n" in text
    assert "  0.981  /r/letter.odt\n         /r/letter.txt\n" in text  # a group of two: its pair, as before groups
    assert ("  4 files, 6 near pairs, similarity 0.889–0.976:\n         /r/note0.md\n         /r/note1.md\n"
            "         /r/note2.md\n         /r/note3.md\n         weakest pair 0.889: note2.md  ≈  note3.md\n") in text
    assert "  4 files, 4 near pairs, similarity <0.80–0.866:\n" in text  # two of them are not near at all
    assert ("         not every two are near duplicates: v1.docx and v3.docx are linked only through 1 other file "
            "(1 of 6 pairs of files are not near duplicates)\n") in text
    assert "note0.md  ≈  note1.md" not in text  # the pairs inside a group are --json's
    as_json = StringIO()
    print_duplicates(Namespace(json=True), rep, as_json)
    assert json.loads(as_json.getvalue()) == rep.to_json()
