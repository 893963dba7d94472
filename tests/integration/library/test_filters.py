"""Search filters: folder subtree, file types, modified-date range, applied before the top k are cut."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest

import discover_corpus
from searchapp.base.search_modes import SEARCH_MODES
from searchapp.base.errors import ConfigError
from searchapp.cli.main import main
from searchapp.library import Library, SearchFilters
from searchapp.library.search import filter_scope


@pytest.fixture(scope="module")
def indexed(tmp_path_factory, packaged_encoder):
    """discover_corpus plus 100 bulk files about bread, so a filtered-out majority crowds every top k (100: more
    than the largest k asked below, 80; MiniLM embedding them is most of this module's time)."""
    from searchapp.base.config import load_config

    root = tmp_path_factory.mktemp("filters")
    docs = discover_corpus.make(root / "docs")
    bulk = docs / "bulk"
    bulk.mkdir()
    for i in range(100):
        (bulk / f"loaf{i:03d}.txt").write_text(f"Recipe {i}: knead the bread dough, let it rise and bake the loaf "
                                               f"at {180 + i % 60} degrees.", encoding="utf-8")
    config = load_config(root / "library", env={})
    with Library(config, encoder=packaged_encoder) as lib:
        lib.add_folder(docs)
    return docs, config, packaged_encoder


def names(res, docs) -> list[str]:
    return [Path(h.path).relative_to(docs).as_posix() for h in res.hits]


@pytest.mark.parametrize("mode", SEARCH_MODES)
def test_folder_filter_returns_k_hits_from_a_small_subset(indexed, mode):
    docs, config, enc = indexed
    # Lexical hits need the words: the subset's own rare words are added (BM25 of the bulk files is unchanged).
    query = "baking bread dough loaf" + (" pod magma drummer moat" if mode == "lexical" else "")
    with Library(config, encoder=enc) as lib:
        if mode != "lexical":
            plain = lib.search(query, k=4, mode=mode, rerank=False, candidates=10)
            assert all(n.startswith("bulk/") for n in names(plain, docs))  # the subset is not in the top k unfiltered
        res = lib.search(query, k=4, mode=mode, rerank=False, candidates=10,
                         filters=SearchFilters.build(folders=[str(docs / "misc"), str(docs / "old")]))
    got = names(res, docs)
    assert len(got) == 4 and all(n.split("/")[0] in ("misc", "old") for n in got)
    assert res.filter_stats["allowed_passages"] == 2 * len(discover_corpus.UNRELATED)


def test_widened_vector_index_search_reaches_k(indexed, monkeypatch):
    docs, config, enc = indexed
    monkeypatch.setattr(filter_scope, "EXACT_SUBSET_MAX", 0)  # force the vector-index path at this small size
    with Library(config, encoder=enc) as lib:
        res = lib.search("baking bread dough loaf", k=3, mode="dense", rerank=False, candidates=3,
                         filters=SearchFilters.build(folders=[str(docs / "drafts")]))
    assert sorted(names(res, docs)) == ["drafts/basics.txt", "drafts/reworded.md"]  # all there are
    assert res.filter_stats["dense_strategy"] == "vector index, widened"
    assert res.filter_stats["dense_rounds"] >= 1 and res.filter_stats["dense_examined"] >= 3
    # old/* are edited copies of misc/*: near copies would share rows (decision 0198) and leave fewer than the
    # candidates this widening is about, so the fold is off here (test_near_copies.py tests it)
    unfolded = dataclasses.replace(config, search=dataclasses.replace(config.search, fold_near_copies=False))
    with Library(unfolded, encoder=enc) as lib:
        res = lib.search("baking bread dough loaf", k=3, mode="dense", rerank=False, candidates=3,
                         filters=SearchFilters.build(folders=[str(docs / "misc"), str(docs / "old")]))
    assert len(res.hits) == 3 and all(n.split("/")[0] in ("misc", "old") for n in names(res, docs))


def test_type_and_date_filters(indexed):
    docs, config, enc = indexed
    with Library(config, encoder=enc) as lib:
        md = lib.search("schedule pods castles", k=10, mode="hybrid", rerank=False,
                        filters=SearchFilters.build(types=["MD", ".md"]))
        assert md.hits and all(h.path.endswith(".md") for h in md.hits)
        old = lib.search("volcano magma", k=50, mode="dense", rerank=False,
                         filters=SearchFilters.build(before="2021-01-01"))
        assert sorted(names(old, docs)) == sorted(f"old/{n}" for n in discover_corpus.UNRELATED)
        recent = lib.search("volcano magma", k=50, mode="dense", rerank=False,
                            filters=SearchFilters.build(after="2021-01-01", folders=[str(docs / "misc")]))
        assert sorted(names(recent, docs)) == sorted(f"misc/{n}" for n in discover_corpus.UNRELATED)
        none = lib.search("volcano", k=5, mode="hybrid", rerank=False,
                          filters=SearchFilters.build(types=["pdf"]))
        assert none.hits == []


def test_bad_filter_values_are_config_errors():
    with pytest.raises(ConfigError, match="date"):
        SearchFilters.build(after="31/01/2026")
    with pytest.raises(ConfigError, match="extensions"):
        SearchFilters.build(types=["pdf;drop table"])
    with pytest.raises(ConfigError, match="no file can match"):
        SearchFilters.build(after="2026-02-01", before="2026-01-01")
    assert not SearchFilters.build().active


def test_search_cli_filters_and_timings(indexed, capsys):
    docs, config, enc = indexed
    code = main(["--data-dir", str(config.data_dir), "search", "bread", "--mode", "lexical", "--json",
                 "--in", str(docs / "drafts"), "--type", "txt,md"])
    out, err = capsys.readouterr()
    assert code == 0, err
    res = json.loads(out)
    assert [Path(h["path"]).name for h in res["hits"]] == ["basics.txt"]
    assert res["timings"]["allowed_passages"] == 2 and res["timings"]["filter"]["type"] == ["txt", "md"]
    code = main(["--data-dir", str(config.data_dir), "search", "bread", "--after", "tomorrow"])
    err = capsys.readouterr().err
    assert code == 2 and "date" in err and err.count("\n") == 1


def test_similar_cli_accepts_filters(indexed, capsys):
    docs, config, enc = indexed
    code = main(["--data-dir", str(config.data_dir), "similar", str(docs / "reports" / "original.txt"), "--json",
                 "--type", "md", "--in", str(docs)])
    res = json.loads(capsys.readouterr().out)
    assert code == 0 and res["hits"] and all(h["path"].endswith(".md") for h in res["hits"])
    assert Path(res["hits"][0]["path"]).name == "reworded.md"



def test_a_scope_widened_again_reads_the_allowed_vectors_once(indexed, monkeypatch):
    """A search by file asks the dense side again with a larger k until enough files are found."""
    from searchapp.store import Store

    docs, config, enc = indexed
    reads: list[int] = []
    vectors = Store.vectors
    monkeypatch.setattr(Store, "vectors", lambda self, ids, dim: reads.append(len(ids)) or vectors(self, ids, dim))
    with Library(config, encoder=enc) as lib:
        store = lib.reader()
        q = enc.encode_query("baking bread dough loaf")
        flt = SearchFilters.build(folders=[str(docs / "bulk")])
        scope = filter_scope.FilterScope(store, flt)
        got = [scope.dense(None, q, k, q.size) for k in (5, 20, 80)]
        fresh = filter_scope.FilterScope(store, flt).dense(None, q, 80, q.size)
    assert reads == [100]  # once for the three asks; the fresh scope of the same filter finds them kept
    assert all(np.array_equal(g[0], fresh[0][:, : g[0].shape[1]]) for g in got)
    assert np.array_equal(got[2][1], fresh[1])
