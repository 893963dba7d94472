"""The window's Similar files while meaning fills (decision 0159): a row found by words reads "by words", greyed
like a search's words score, and says why in its tooltip; a meaning row keeps "similarity". The rows come from a
real library's answer (SQLite, the tiny bi-encoder); the model and texts are the window's own. The window's sync
is not started: it would embed the waiting files while the test looks."""

from __future__ import annotations

import os

import pytest

pytest.importorskip("pytestqt")

from PySide6.QtCore import Qt

from searchapp.gui.empty_results import empty_text
from searchapp.gui.results_model import WORDS_ONLY, ResultsModel
from searchapp.gui.score_inspector import why_text
from searchapp.gui.search_controller import _meaning_words
from searchapp.library import Library, SearchResult

NOTES = {
    "done": {"pump1.txt": "The heat pump in the garage needs a new filter every spring. Call the installer about "
                          "the warranty.",
             "shed.txt": "The garden shed roof leaks near the gutter; buy roofing felt and nails."},
    "new": {"pump2.txt": "Heat pump warranty: the installer replaced the filter and checked the refrigerant."},
}


def test_a_row_found_by_words_reads_by_words_and_a_meaning_row_similarity(qtbot, make_config, tiny_encoder,
                                                                        tmp_path):
    with Library(make_config(models={"reranker": ""}), encoder=tiny_encoder) as lib:
        for folder, texts in NOTES.items():
            (tmp_path / folder).mkdir()
            for name, text in texts.items():
                (tmp_path / folder / name).write_text(text, encoding="utf-8")
            lib.add_folder(tmp_path / folder, embed=folder == "done")
        result = lib.similar(str(tmp_path / "done" / "pump1.txt"), k=5)
    assert [(os.path.basename(h.path), h.by) for h in result.hits] == [("shed.txt", "meaning"), ("pump2.txt", "words")]
    model = ResultsModel()
    model.set_hits(result.hits, [])
    score = ResultsModel.COLUMNS.index("Score")
    meaning_row, words_row = model.index(0, score), model.index(1, score)
    assert meaning_row.data().startswith("similarity ") and meaning_row.data(Qt.ItemDataRole.ForegroundRole) is None
    assert words_row.data() == f"by words {result.hits[1].scores.words:.2f}"
    assert words_row.data(Qt.ItemDataRole.ForegroundRole) == WORDS_ONLY
    assert words_row.data(Qt.ItemDataRole.FontRole).italic()
    tip = words_row.data(Qt.ItemDataRole.ToolTipRole)
    assert tip.startswith("Found by words (meaning not ready for this file)") and "not a meaning similarity" in tip
    assert "filter" in tip and "heat" in tip  # the distinctive words it shares
    assert "similarity" not in words_row.data()
    why = why_text(result.hits[1])  # the score inspector's line
    assert "found by words (meaning not ready for this file): holds" in why and "cosine" not in why
    said = _meaning_words(result, result.hits)  # the status line
    assert said is not None and "files without it are found by their words" in said and '"by words"' in said


def test_with_nothing_found_either_way_the_window_says_why():
    waiting = SearchResult("/docs/a.txt", "similar", [], False, meaning_percent=3)
    text = empty_text(waiting, False)
    assert text.startswith("No similar files yet. Wait while meaning is added (now 3%")
    assert "no other file shares this one's distinctive words" in text
