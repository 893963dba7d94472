"""A filtered search keeps its allowed passages' vectors between searches (search/scope_vectors.py): after any
change to the library it must answer exactly as scoring every allowed passage's stored vector would, both ways:
nothing returned that should not be (a deleted passage, one still waiting for its vector, one outside the
filter), nothing left out that should be there (a passage added or embedded since the vectors were kept)."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

from searchapp.library import Library, SearchFilters

WORDS = ("bread oven flour river canoe paddle violin chord melody glacier summit rope tax invoice ledger "
         "comet orbit telescope garden tulip soil").split()
QUERIES = ("baking bread in an oven", "a canoe on the river", "playing the violin", "climbing a glacier",
           "paying the invoice")
TOL = 1e-5


def write(path: Path, rng: random.Random) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    sentences = [" ".join(rng.choice(WORDS) for _ in range(rng.randint(4, 9))).capitalize() + "."
                 for _ in range(rng.randint(1, 3))]
    path.write_text(" ".join(sentences) + "\n", encoding="utf-8")


def exact(lib: Library, filters: SearchFilters, qvec: np.ndarray) -> dict[int, float]:
    """Every allowed passage with a stored vector -> its cosine to the query, straight from SQLite."""
    store = lib.reader()
    ids, vecs = store.vectors(store.chunk_ids_where(filters.where()).tolist(), int(qvec.size))
    return dict(zip(ids.tolist(), (vecs.astype(np.float64) @ qvec.astype(np.float64)).tolist(), strict=True))


def check(lib: Library, docs: Path, filters: SearchFilters, query: str, k: int) -> dict:
    res = lib.search(query, k=k, mode="dense", rerank=False, group="passage", candidates=k, filters=filters)
    want = exact(lib, filters, np.asarray(lib.models.encode_query(query), dtype=np.float32).reshape(-1))
    got = [(h.chunk_id, h.scores.dense) for h in res.hits]
    assert len(got) == min(k, len(want))
    for cid, score in got:  # nothing wrong returned: each hit allowed, embedded, alive, with its exact score
        assert cid in want, f"passage {cid} is not an allowed passage with a stored vector"
        assert abs(score - want[cid]) <= TOL
    if got:  # nothing right left out: no passage outside the hits scores above the weakest hit
        floor = min(s for _, s in got)
        shown = {c for c, _ in got}
        assert all(s <= floor + TOL for c, s in want.items() if c not in shown)
    assert [s for _, s in got] == sorted((s for _, s in got), reverse=True)
    for h in res.hits:
        rel = Path(h.path).relative_to(docs).as_posix()
        assert (not filters.folders or rel.startswith("a/")) and (not filters.types or rel.endswith(".md"))
    return res.filter_stats


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_kept_vectors_answer_as_exact_scoring_after_every_change(tmp_path, make_config, tiny_encoder, seed):
    rng = random.Random(seed)
    docs = tmp_path / "docs"
    for i in range(12):
        write(docs / rng.choice("ab") / f"f{i:02d}.{rng.choice(['md', 'txt'])}", rng)
    filters = [SearchFilters.build(folders=[str(docs / "a")]), SearchFilters.build(types=["md"]),
               SearchFilters.build(folders=[str(docs / "a")], types=["md"])]
    serial = 100
    with Library(make_config(models={"reranker": ""}), encoder=tiny_encoder) as lib:
        lib.add_folder(docs)
        for f in filters:  # warm: each filter's vectors are kept, then asked again with nothing changed
            check(lib, docs, f, QUERIES[0], 50)
            assert check(lib, docs, f, QUERIES[1], 3)["dense_vectors_read"] == 0
        kinds = ["add pending", "add", "embed", "delete", "rewrite", "remove+undo", "reindex"]
        # Each kind of change at least once (passages waiting for their vector while kept ones are asked again
        # first), then a random run of them.
        for op in ["add pending", "delete", "embed", "rewrite", "add pending", "remove+undo", "embed"] + \
                [rng.choice(kinds) for _ in range(8)]:
            files = sorted(p for p in docs.rglob("*") if p.is_file())
            if op in ("add pending", "add"):  # "add pending": words only, its passages wait for their vector
                for _ in range(rng.randint(1, 3)):
                    serial += 1
                    write(docs / rng.choice("ab") / f"n{serial}.{rng.choice(['md', 'txt'])}", rng)
                lib.sync(embed=op == "add")
            elif op == "embed":
                lib.sync()
            elif op == "delete" and files:
                for p in rng.sample(files, min(len(files) - 1, rng.randint(1, 2))):
                    p.unlink()
                lib.sync(embed=rng.random() < 0.5)
            elif op == "rewrite" and files:  # new passages (new ids) for the same file; the old ones deleted
                write(rng.choice(files), rng)
                lib.sync(embed=rng.random() < 0.5)
            elif op == "remove+undo":
                lib.remove_folder(docs, undoable=True)
                for f in filters:
                    check(lib, docs, f, rng.choice(QUERIES), 50)  # nothing allowed any more
                lib.undo_remove()
            elif op == "reindex":
                lib.reindex(embed=rng.random() < 0.5)
            for f in filters:
                for k in (3, 50):
                    check(lib, docs, f, rng.choice(QUERIES), k)


def test_kept_vectors_stay_within_their_caps(tmp_path, make_config, tiny_encoder):
    from searchapp.library.search.scope_vectors import ScopeVectors

    rng = random.Random(7)
    docs = tmp_path / "docs"
    for i in range(8):
        write(docs / f"f{i}.txt", rng)
    with Library(make_config(models={"reranker": ""}), encoder=tiny_encoder) as lib:
        lib.add_folder(docs)
        store = lib.reader()
        ids = store.chunk_ids()
        dim = store.vectors(ids[:1].tolist())[1].shape[1]
        row = dim * 4 + 16  # a vector and its id twice (allowed, with a vector)
        kept = ScopeVectors(max_bytes=3 * row, max_scopes=2)
        for i in range(3):  # one passage a scope: the oldest of three goes (max_scopes)
            kept.vectors(store, i, ids[i:i + 1], dim)
        assert kept.last_read == 1 and list(kept._kept) == [(1, dim), (2, dim)]
        kept.vectors(store, 1, ids[1:2], dim)
        assert kept.last_read == 0  # still kept
        got = kept.vectors(store, "big", ids[:4], dim)  # larger than max_bytes: answered, never kept
        assert len(got[0]) == 4 and ("big", dim) not in kept._kept
        kept.vectors(store, "two", ids[:2], dim)  # two rows: the least recently asked scope (2) goes
        assert list(kept._kept) == [(1, dim), ("two", dim)]
        assert sum(e.vectors.nbytes + e.ids.nbytes + e.allowed.nbytes for e in kept._kept.values()) == 3 * row
