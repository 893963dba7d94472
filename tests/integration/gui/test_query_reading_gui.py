"""The chips under the query box say which reading a search uses: a short query's phrase is a chip; a long
question's quotes are plain words (no chip, a note saying so) while its fields stay chips, and ✕ on one keeps
the rest of the text as typed."""

from __future__ import annotations

import pytest

pytest.importorskip("pytestqt")

from searchapp.gui.query_chips import QueryChips
from searchapp.library.query.syntax import parse_query

PASTED = 'Mouse models of male infertility can be generated using "artificial spermatids" made in the lab.'


@pytest.fixture
def chips(qtbot):
    w = QueryChips()
    qtbot.addWidget(w)
    w.show()
    return w


def test_short_phrase_is_a_chip(chips):
    chips.show_query(parse_query('"artificial spermatids" mouse'))
    assert chips.labels() == ['phrase "artificial spermatids"'] and not chips.notes.isVisibleTo(chips)


def test_long_question_shows_its_quotes_as_words(chips, qtbot):
    chips.show_query(parse_query(PASTED + " type:md"))
    assert chips.labels() == ["type: md"]  # the field holds; the quotes require nothing
    assert chips.isVisible() and chips.notes.isVisibleTo(chips)
    notes = chips.notes
    text = notes.full_text() if hasattr(notes, "full_text") else notes.text()  # an eliding label keeps it whole
    assert text.startswith('Taken as words: a long question: "artificial spermatids" searched as plain')
    with qtbot.waitSignal(chips.queryChanged) as sent:
        chips.remove(0)
    assert sent.args == [PASTED]  # the quotes stay in the text: only the field went


def test_long_question_without_fields_has_only_the_note(chips):
    chips.show_query(parse_query(PASTED))
    assert chips.labels() == [] and chips.isVisible() and chips.notes.isVisibleTo(chips)


def test_a_field_amid_a_long_question_is_not_put_in_the_filter_bar(qtbot, tmp_path, tiny_bi_encoder_dir, tiny_encoder):
    from conftest import build_tiny_library
    from gui_window import WAIT_MS, shown_window

    from searchapp.base.config import load_config
    from searchapp.library import Library

    texts = {"diabetes.txt": "Patients with type 2 diabetes who took metformin had fewer heart attacks.",
             "bread.md": "A recipe for sourdough bread with a long cold proof."}
    data = build_tiny_library(tmp_path, texts, tiny_bi_encoder_dir, tiny_encoder, 'reranker = ""\n')
    config = load_config(data, env={}, overrides={"index": {"backend": "exact"}, "search": {"rerank": False}})
    lib = Library(config, encoder=tiny_encoder)
    win = shown_window(qtbot, config, lib)
    try:
        win.search.search_box.setText("Patients with type:2 diabetes who took metformin for ten years had fewer "
                                      "heart attacks.")
        assert win.filter_bar.types.text() == "" and win.filter_bar.filters() is None
        with qtbot.waitSignal(win.searchFinished, timeout=WAIT_MS):
            win.run_search()
        assert win.search.results_model.rowCount() == 2  # strictly, type:2 (files named *.2) found none
        win.search.search_box.setText("diabetes type:md")  # a short query's field is the bar's
        assert win.filter_bar.types.text() == "md"
    finally:
        win.close()
        lib.close()
