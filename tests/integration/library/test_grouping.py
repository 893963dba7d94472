"""Results by file: each file once, its best passage first and its other matching passages in `more`; k counts
files; `--group passage` gives every passage a row; every row has a score a person can read."""

from __future__ import annotations

import json

import pytest

import corpus
from searchapp.base.search_modes import SEARCH_MODES
from searchapp.cli.main import main
from searchapp.library import Library

# Small passages (32 word pieces) so each topical file has several; the volcano file has many.
VOLCANO = "\n\n".join([
    "Magma rises from the mantle and collects in a chamber beneath the volcano.",
    "When the pressure of dissolved gases grows too high the volcano erupts lava and ash.",
    "Pyroclastic flows of hot ash race down the slopes of an erupting volcano.",
    "Geologists forecast volcanic eruptions by measuring ground swelling and sulfur dioxide.",
    "Lava from a volcano cools into basalt, and ash layers record every past eruption.",
] * 2)


# Words of the volcano file, and one of each other file so that lexical mode finds them too.
Q = "volcano eruption lava ash bread pod moat saxophonist"


@pytest.fixture(scope="module")
def lib(tmp_path_factory, packaged_encoder):
    from searchapp.base.config import load_config

    root = tmp_path_factory.mktemp("grouping")
    docs = root / "docs"
    docs.mkdir()
    (docs / "volcano.txt").write_text(VOLCANO, encoding="utf-8")
    for name in ("bread.txt", "cluster.md"):
        (docs / name).write_text(corpus.TOPICS[name], encoding="utf-8")
    for name in ("castles.docx", "jazz.odt"):
        (docs / (name.split(".")[0] + ".txt")).write_text("\n\n".join(corpus.TOPICS[name]), encoding="utf-8")
    cfg = load_config(root / "library", env={}, overrides={"search": {"rerank": False}, "chunking": {"max_tokens": 32}})
    library = Library(cfg, encoder=packaged_encoder)
    library.add_folder(docs)
    (root / "library" / "config.toml").write_text("[chunking]\nmax_tokens = 32\n")  # for the CLI
    library.root = root  # for the CLI tests
    yield library
    library.close()


@pytest.mark.parametrize("mode", SEARCH_MODES)
def test_each_file_once_with_its_other_passages(lib, mode):
    res = lib.search(Q, mode=mode, k=4)
    paths = [h.path for h in res.hits]
    assert len(paths) == len(set(paths)) == 4  # k counts files
    top = res.hits[0]
    assert top.path.endswith("volcano.txt")
    assert len(top.more) >= 3 and all(m.path == top.path for m in top.more)
    assert top.chunk_id not in {m.chunk_id for m in top.more}
    # The best passage comes first: its fused score is the file's, and no other passage of it beat it.
    ids = {m.chunk_id for m in top.more}
    assert len(ids) == len(top.more)


@pytest.mark.parametrize("mode", SEARCH_MODES)
def test_group_passage_gives_todays_list(lib, mode):
    res = lib.search(Q, mode=mode, k=4, group="passage")
    paths = [h.path for h in res.hits]
    assert len(paths) == 4 and paths.count(paths[0]) > 1  # the volcano file takes several rows
    assert all(not h.more for h in res.hits)
    assert res.group == "passage"


def test_a_file_found_by_each_side_through_different_passages_gets_both_votes(lib):
    res = lib.search("magma chamber beneath the mantle", mode="hybrid", k=3)
    top = res.hits[0]
    assert top.path.endswith("volcano.txt") and top.ranks.final == 1
    assert top.scores.dense is not None and top.scores.lexical is not None


def test_scores_a_person_can_read(lib, tiny_cross_encoder_dir):
    hybrid = lib.search("baking a loaf with wild yeast", mode="hybrid").hits[0]
    assert hybrid.shown_score == (hybrid.scores.fused, "match") and 0.0 <= hybrid.scores.fused <= 1.0
    dense = lib.search("baking a loaf with wild yeast", mode="dense").hits[0]
    assert dense.shown_score == (dense.scores.dense, "similarity") and -1.0 <= dense.scores.dense <= 1.0
    lexical = lib.search("sourdough levain", mode="lexical").hits[0]
    assert lexical.shown_score[1] == "bm25"
    from searchapp.models import CrossEncoder

    cross = CrossEncoder(str(tiny_cross_encoder_dir), device="cpu")
    lib.models.loaded_reranker = cross
    try:
        res = lib.search("baking a loaf with wild yeast", mode="hybrid", rerank=True, k=3)
    finally:
        lib.models.loaded_reranker = None
    assert res.reranked
    value, label = res.hits[0].shown_score
    assert label == "relevance" and value == res.hits[0].scores.rerank and 0.0 <= value <= 1.0
    # The inspector's numbers are all still there.
    h = res.hits[0]
    assert None not in (h.scores.dense, h.scores.lexical, h.scores.fused, h.scores.rerank_logit)


def run_cli(lib, capsys, *args):
    code = main(["--data-dir", str(lib.data_dir), "search", *args])
    out, err = capsys.readouterr()
    assert code == 0, err
    return out


def test_json_keeps_every_documented_key_and_adds_more(lib, capsys):
    res = json.loads(run_cli(lib, capsys, Q, "--json", "--no-rerank", "--k", "3"))
    assert {"query", "mode", "reranked", "hits"} <= set(res) and res["group"] == "file"
    hits = res["hits"]
    assert len({h["path"] for h in hits}) == len(hits) == 3
    old_keys = {"path", "page", "start", "end", "text", "scores", "ranks"}
    for h in hits:
        assert old_keys <= set(h)
        # "words" (issue 41, item 5): the BM25 share a row without meaning yet shows; added, none changed
        assert set(h["scores"]) == {"dense", "lexical", "fused", "rerank_logit", "rerank", "words"}
        assert set(h["ranks"]) == {"dense", "lexical", "fused", "rerank", "final"}
        assert h["score_label"] == "match" and h["score"] == h["scores"]["fused"]
    more = hits[0]["more"]
    assert len(more) >= 3
    for m in more:
        # container/member/key came with archive members
        assert old_keys | {"repeats", "available", "container", "member", "key"} == set(m)
        text = (lib.root / "docs" / "volcano.txt").read_text()
        assert text[m["start"]:m["end"]] == m["text"]
    flat = json.loads(run_cli(lib, capsys, Q, "--json", "--no-rerank", "--k", "3",
                              "--group", "passage"))
    assert flat["group"] == "passage" and len({h["path"] for h in flat["hits"]}) < 3


def test_human_output_labels_the_score_and_counts_more(lib, capsys):
    out = run_cli(lib, capsys, Q, "--no-rerank", "--k", "2")
    assert out.count("volcano.txt") == 1
    assert "similarity 0." in out and "more passages in this file" in out


def test_gui_model_shows_files_once_and_a_readable_score(lib, qtbot):
    pytest.importorskip("pytestqt")
    from searchapp.gui.results_model import ResultsModel

    res = lib.search(Q, mode="hybrid", k=4)
    model = ResultsModel()
    model.set_hits(res.hits, ["volcano"])
    col = ResultsModel.COLUMNS.index
    assert model.index(0, col("More")).data() == f"+{len(res.hits[0].more)}"
    assert model.index(0, col("Score")).data() == f"match {res.hits[0].scores.fused:.2f}"  # what ordered the list
    tip = model.index(0, col("More")).data(0x3)  # ToolTipRole
    assert tip.startswith("<qt>") and "volcano" in tip.lower()



def test_window_by_file_toggle(qtbot, make_config, packaged_encoder):
    """The real window on the module's library: By file on lists each file once; off, the volcano file takes
    several rows."""
    pytest.importorskip("pytestqt")
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QCheckBox, QLineEdit

    from searchapp.gui import build_main_window
    from searchapp.library import Library

    root = make_config().data_dir.parent / "docs"
    root.mkdir()
    (root / "volcano.txt").write_text(VOLCANO, encoding="utf-8")
    (root / "bread.txt").write_text(corpus.TOPICS["bread.txt"], encoding="utf-8")
    config = make_config(chunking={"max_tokens": 32}, search={"rerank": False})
    lib = Library(config, encoder=packaged_encoder)
    lib.add_folder(root)
    win = build_main_window(config, lib)
    qtbot.addWidget(win)
    try:
        with qtbot.waitSignal(win.statusRefreshed, timeout=60_000):
            win.show()
        box = win.findChild(QLineEdit, "searchBox")
        toggle = win.findChild(QCheckBox, "groupBox")
        assert toggle.isChecked()

        def search():
            with qtbot.waitSignal(win.searchFinished, timeout=60_000) as sig:
                qtbot.keyClick(box, Qt.Key.Key_Return)
            return sig.args[0]

        box.setText("volcano lava eruption ash bread")
        res = search()
        files = [win.search.results_model.hit(r).path for r in range(win.search.results_model.rowCount())]
        assert res.group == "file" and len(files) == len(set(files)) == 2
        toggle.setChecked(False)
        res = search()
        files = [win.search.results_model.hit(r).path for r in range(win.search.results_model.rowCount())]
        assert res.group == "passage" and len(files) > len(set(files))
    finally:
        win.close()
        lib.close()
