"""What a person sees first: word matches are not buried while meaning is unfinished, and the score a row shows
is the one that ordered the list (it never rises down the list)."""

from __future__ import annotations

import pytest

from searchapp.base.search_modes import SEARCH_MODES
from searchapp.library import Library

EMBEDDED = {  # a folder whose meaning is done; none of these shares a word with the query below
    "bees.txt": "Honey bees communicate the direction of flowers through a waggle dance inside the hive.",
    "tides.txt": "The moon's gravity pulls on the oceans and raises two tidal bulges each day.",
    "rust.txt": "Iron oxidises in damp air and forms a flaky red layer that weakens steel bridges.",
    "chess.txt": "An opening gambit sacrifices a pawn early for faster development of the pieces.",
}
WORDS_ONLY = {  # a folder searchable by its words only (its meaning pass has not run)
    "glacier.txt": "Glacier moraine deposits mark where a glacier stopped advancing; moraine ridges of till.",
    "desert.txt": "Sand dunes migrate downwind as grains saltate over the crest of the dune.",
}
QUERY = "glacier moraine till"


@pytest.fixture
def partial(tmp_path, make_config, tiny_encoder):
    for folder, texts in (("done", EMBEDDED), ("words", WORDS_ONLY)):
        (tmp_path / folder).mkdir()
        for name, text in texts.items():
            (tmp_path / folder / name).write_text(text + "\n", encoding="utf-8")
    lib = Library(make_config(models={"reranker": ""}), encoder=tiny_encoder)
    lib.add_folder(tmp_path / "done")
    lib.add_folder(tmp_path / "words", embed=False)
    with_vectors, passages = lib.meaning()
    assert 0 < with_vectors < passages  # the state under test: part of the library has no vectors
    yield lib
    lib.close()


def test_a_word_match_without_a_vector_is_not_buried_under_embedded_files(partial):
    lexical = [h.path for h in partial.search(QUERY, mode="lexical").hits]
    hybrid = [h.path for h in partial.search(QUERY, mode="hybrid").hits]
    assert lexical[0].endswith("glacier.txt")
    # Every embedded file is a dense candidate here, and none shares a word with the query.
    assert hybrid[0].endswith("glacier.txt"), hybrid
    assert set(hybrid) >= {p for p in hybrid if p.endswith(tuple(EMBEDDED))}  # they are still listed below


def test_once_everything_is_embedded_hybrid_orders_by_both_signals(partial):
    partial.sync()
    assert partial.meaning()[0] == partial.meaning()[1]
    top = partial.search(QUERY, mode="hybrid").hits[0]
    assert top.path.endswith("glacier.txt") and top.scores.dense is not None


@pytest.mark.parametrize("mode", SEARCH_MODES)
@pytest.mark.parametrize("group", ["file", "passage"])
def test_the_shown_score_never_rises_down_the_list(partial, mode, group):
    partial.sync()
    for query in (QUERY, "bees flowers hive", "moon gravity oceans tides", "sand dune iron bridges pawn"):
        res = partial.search(query, mode=mode, group=group, k=10)
        shown = [h.shown_score for h in res.hits]
        assert shown, query
        labels = {label for _, label in shown}
        assert labels == {{"hybrid": "match", "dense": "similarity", "lexical": "bm25"}[mode]}, labels
        values = [v for v, _ in shown]
        assert values == sorted(values, reverse=True), (query, values)
        js = res.to_json()["hits"]
        assert [h["score"] for h in js] == values
