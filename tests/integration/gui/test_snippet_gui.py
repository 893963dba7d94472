"""The results list shows the same best-matching snippet as the CLI, as plain text with formats: markup in
a file's text is shown literally, never interpreted."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest

pytest.importorskip("PySide6")

from PySide6.QtWidgets import QStyleOptionViewItem, QTableView

from searchapp.base.types import Hit, StageRanks, StageScores
from searchapp.gui.highlight import query_terms
from searchapp.gui.results_model import SNIPPET_ROLE, HtmlDelegate, ResultsModel
from searchapp.library.search.snippet import best_snippet


def test_results_snippet_is_plain_text_with_marked_query_words(qtbot):
    text = ("Intro words. " * 30 + "The <img src=/dev/zero> orthodontist consultation is on 14 March. "
            + "Closing words. " * 30)
    hit = Hit(1, "/x/a.txt", None, 0, len(text), text, StageScores(dense=0.5), StageRanks(final=1))
    model = ResultsModel()
    query = "when is the orthodontist consultation"
    model.set_hits([hit], query_terms(query))
    view = QTableView()
    qtbot.addWidget(view)
    view.setModel(model)
    idx = model.index(0, ResultsModel.COLUMNS.index("Passage"))
    snip = idx.data(SNIPPET_ROLE)
    assert snip == best_snippet(text, query_terms(query))  # the CLI's window
    assert "14 March" in snip.text
    delegate = HtmlDelegate(view)
    opt = QStyleOptionViewItem()
    opt.rect.setWidth(600)
    doc = delegate._doc(opt, idx)
    assert "<img src=/dev/zero>" in doc.toPlainText()  # shown, not interpreted
    marked = set()
    block = doc.begin()
    while block.isValid():
        for frag_it in block:
            frag = frag_it.fragment()
            if frag.charFormat().background().color().name() == "#ffe680":
                marked.add(frag.text().lower())
        block = block.next()
    assert {"orthodontist", "consultation"} <= marked


def test_words_the_index_matched_by_their_stem_are_marked_in_the_list_and_the_preview(qtbot):
    """A newcomer's Words search for `residents association roof` showed "Tissue-resident" and "associated"
    unmarked, and `roof repair parking permits` showed "…Hyde Park…" with nothing marked: the words index
    matched them by their stem. The core says which words match; the list and the preview mark them."""
    from searchapp.gui.highlight import MARK_STYLE, highlight_html

    text = "Tissue-resident cells were associated with the walk around Hyde Park."
    hit = Hit(1, "/x/a.txt", None, 0, len(text), text, StageScores(lexical=2.0), StageRanks(final=1))
    model = ResultsModel()
    model.set_hits([hit], query_terms("residents association roof parking"))
    idx = model.index(0, ResultsModel.COLUMNS.index("Passage"))
    snip = idx.data(SNIPPET_ROLE)
    assert [snip.text[a:b] for a, b in snip.spans] == ["resident", "associated", "Park"]
    shown = highlight_html(text, query_terms("residents association roof parking"))  # the preview's
    for word in ("resident", "associated", "Park"):
        assert f'<span style="{MARK_STYLE}">{word}</span>' in shown
