"""No file can flood the results: a log of one line repeated thousands of times and a table of near-identical
rows beside a few topical files. The real packaged MiniLM, real SQLite, real hnswlib."""

from __future__ import annotations

import json

import pytest

import corpus
from searchapp.base.search_modes import SEARCH_MODES
from searchapp.library import Library

TOPICAL = {name: corpus.TOPICS[name] for name in ("bread.txt", "cluster.md")}
TOPICAL["volcano.txt"] = "\n\n".join(corpus.TOPICS["volcano.html"])
# (query, file): paraphrases for dense/hybrid, and words of the text so lexical finds them too.
QUERIES = [
    ("keeping a wild yeast sourdough starter alive for baking bread", "bread.txt"),
    ("which node does the kubernetes scheduler put a pod on", "cluster.md"),
    ("magma erupting as lava from a volcano", "volcano.txt"),
]
LOG_LINE = "2026-11-23 12:00:00 INFO worker heartbeat ok, queue empty, nothing to do\n"


@pytest.fixture(scope="module")
def flooded(tmp_path_factory, packaged_encoder):
    from searchapp.base.config import load_config

    root = tmp_path_factory.mktemp("flood")
    docs = root / "docs"
    docs.mkdir()
    for name, text in TOPICAL.items():
        (docs / name).write_text(text if isinstance(text, str) else "\n\n".join(text), encoding="utf-8")
    # ~2,600 passages of the very same text before dedupe (200 word pieces each): enough to cut the
    # vector graph off from the topical passages on the old code.
    (docs / "service.log").write_text(LOG_LINE * 30000, encoding="utf-8")
    # Near-identical rows: distinct passages whose vectors all sit close together. ~26 passages (was 197 from
    # 3,000 rows, then 66 from 1,000, then 46 from 700: MiniLM embedding them was most of this module's time)
    # against 5 candidates per retriever (a by-file search asks 20 passages first): the table fills the first
    # ask, as 197 barely filled 200.
    rows = ["id,item,colour,price"] + [f"{i},widget,blue,{3 + (i % 7) / 10:.2f}" for i in range(400)]
    (docs / "inventory.csv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    cfg = load_config(root / "library", env={}, overrides={"search": {"rerank": False, "candidates": 5}})
    lib = Library(cfg, encoder=packaged_encoder)
    rep = lib.add_folder(docs)
    assert rep.failed == 0 and rep.added == 5
    yield lib
    lib.close()


def test_identical_passages_of_one_file_are_stored_once_with_every_place(flooded):
    db = flooded.store
    (log_id,) = db.conn.execute("SELECT id FROM files WHERE path LIKE '%service.log'").fetchone()
    n_passages, n_distinct = db.conn.execute(
        "SELECT count(*), count(DISTINCT text_hash) FROM chunks WHERE file_id = ?", (log_id,)).fetchone()
    assert n_passages == n_distinct <= 3  # dedupe of 2,600: the old code stored every copy
    n_repeats = db.conn.execute(
        "SELECT count(*) FROM chunk_spans s JOIN chunks c ON c.id = s.chunk_id WHERE c.file_id = ?", (log_id,)).fetchone()[0]
    assert n_repeats > 1000  # every other occurrence is kept, for the preview
    # The hit says where else its text occurs.
    res = flooded.search("worker heartbeat queue", mode="lexical")
    log_hit = next(h for h in res.hits if h.path.endswith("service.log"))
    assert len(log_hit.repeats) > 1000
    text = (flooded.store.path.parent.parent / "docs" / "service.log").read_text()
    a, b, _ = log_hit.repeats[-1]
    assert text[a:b] == log_hit.text
    # Status stays consistent: one vector per stored passage.
    st = flooded.status()
    assert st.consistent and st.chunks == st.vectors


@pytest.mark.parametrize("mode", SEARCH_MODES)
@pytest.mark.parametrize("group", ["file", "passage"])
def test_each_topical_query_finds_its_file_first(flooded, mode, group):
    for query, name in QUERIES:
        res = flooded.search(query, mode=mode, group=group)
        assert res.hits, (mode, query)
        assert res.hits[0].path.endswith(name), (mode, group, query, [h.path for h in res.hits[:3]])


def test_flooding_file_does_not_crowd_others_out_of_the_candidates(flooded):
    # A query about the table itself: its rows fill every passage list, yet the other files still come back.
    res = flooded.search("blue widget price list", mode="dense", k=5)
    names = [h.path.rsplit("/", 1)[-1] for h in res.hits]
    assert names[0] == "inventory.csv"
    assert len(names) == len(set(names)) == 5  # each file once, and all five files reached
    assert len(res.hits[0].more) > 5  # the table's other rows are listed with it, not as rows of their own


def test_eval_ann_measures_the_library_as_it_is(flooded):
    res = flooded.ann_recall(k=5, sample=200)
    assert res["recall@5"] >= 0.9
    assert res["queries"] == min(200, res["distinct_vectors"]) and res["distinct_vectors"] <= res["vectors"]


def test_hnsw_recall_with_thousands_of_identical_vectors_is_reported(tmp_path):
    """`eval ann` on an index holding 3,000 copies of one vector beside 40 others: queries are drawn from the
    distinct vectors, so a graph that cannot reach the others shows as low recall instead of 1.0."""
    import numpy as np

    from searchapp.ann import create_index
    from searchapp.base.config import IndexConfig
    from searchapp.library.report.ann_recall import measure_ann_recall

    rng = np.random.default_rng(0)
    dup = rng.normal(size=32).astype(np.float32)
    others = rng.normal(size=(40, 32)).astype(np.float32)
    vecs = np.vstack([np.tile(dup, (3000, 1)), others])
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    ids = np.arange(len(vecs), dtype=np.int64)
    index = create_index(IndexConfig(), 32)
    index.add(ids, vecs)
    res = measure_ann_recall(index, ids, vecs, k=10, sample=200, ef=100)
    assert res["queries"] == 41 == res["distinct_vectors"] and res["vectors"] == 3040
    # hnswlib's graph cannot leave a cluster of identical vectors: the 40 others are unreachable, and the
    # measure says so (drawn from all 3,040 vectors, it reported about 0.99).
    assert res["recall@10"] < 0.5
    json.dumps(res)
