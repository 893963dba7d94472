"""The window's layout at its default 1280×800, offscreen on a real tiny library: at least eight results on
screen, each with name, folder, date, page, snippet and the score that ordered it (no horizontal scrolling);
the score inspector one click away and remembered, with "Why this rank?" on a result, its table read without
scrolling sideways; the reranker notice on
one line and gone for good once dismissed; the note under the query chips shortened with its whole text in the
tooltip; the query syntax help whole."""

from __future__ import annotations

import pytest

pytest.importorskip("pytestqt")

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QAbstractScrollArea, QApplication, QLabel, QWidget

from conftest import build_tiny_library
from searchapp.gui.reranker_notice import SHARPER
from searchapp.gui.results_model import rank_movement

from gui_window import WAIT_MS, load_models, search, shot, shown_window, window_maker

TOPICS = ["eruption", "lava flow", "ash cloud", "magma chamber", "crater lake", "fumarole", "caldera", "tephra",
          "lahar", "pyroclastic flow", "dome collapse", "seismic swarm", "gas plume", "lava tube"]
TEXTS = {f"volcano-{i:02d}-{t.replace(' ', '-')}.txt":
         f"Volcano field notes {i}: the {t} was measured on the north flank; the volcano observatory logged it "
         f"twice and the survey team walked the {t} again the next morning to compare the readings."
         for i, t in enumerate(TOPICS)}


@pytest.fixture
def open_window(qtbot, tmp_path, tiny_bi_encoder_dir, tiny_encoder):
    """open_window(models=…): a window at 1280×800 over a tiny library of TEXTS; every call opens the same data
    dir, so a second window reads what the first remembered in gui.ini."""
    data = build_tiny_library(tmp_path, TEXTS, tiny_bi_encoder_dir, tiny_encoder)
    yield from window_maker(qtbot, data, tiny_encoder)


def col(name: str) -> int:
    from searchapp.gui.results_model import ResultsModel

    return ResultsModel.COLUMNS.index(name)


def test_eight_results_show_at_1280x800_each_with_name_folder_date_page_snippet_and_its_score(qtbot, open_window):
    win = open_window()
    assert (win.width(), win.height()) == (1280, 800)
    res = search(qtbot, win, "volcano survey readings")
    view, model = win.search.results_view, win.search.results_model
    assert model.rowCount() == 10 and len(res.hits) >= 10
    whole_rows = [r for r in range(model.rowCount())
                  if view.visualRect(model.index(r, col("Passage"))).bottom() < view.viewport().height()]
    assert len(whole_rows) >= 8, (len(whole_rows), view.viewport().height(), view.rowHeight(0))
    # No horizontal scrolling: the snippet gives way, the score is on screen and never cut.
    bar = view.horizontalScrollBar()
    assert not bar.isVisible() and bar.maximum() == 0
    score = col("Score")
    assert not view.isColumnHidden(score)
    assert view.columnViewportPosition(score) + view.columnWidth(score) <= view.viewport().width()
    assert all(view.fontMetrics().horizontalAdvance(model.index(r, score).data()) < view.columnWidth(score)
               for r in whole_rows)
    for r in whole_rows:
        row = {name: model.index(r, col(name)).data() for name in ("File", "Folder", "Date", "Passage", "Score")}
        assert row["File"].startswith("volcano-") and row["Folder"] and row["Date"] and row["Passage"], row
        assert row["Score"].startswith("match ")
    for name in ("File", "Date", "Page", "Passage", "Score"):
        assert not view.isColumnHidden(col(name)), name
    # The library pane: a long folder gives way in the middle, the counts stay whole, nothing scrolls sideways.
    tree = win.library_panel.tree
    assert tree.horizontalScrollBar().maximum() == 0
    item = tree.topLevelItem(0)
    for c in (1, 2, 3):
        assert tree.fontMetrics().horizontalAdvance(item.text(c)) < tree.columnWidth(c), item.text(c)
    # The folder is drawn under the name, shortened in the middle: its start and its last folder both show.
    from searchapp.gui.results_view import FILE_WIDTH, folder_line

    folder = "/home/someone/Documents/Projects/2026/Field trips/Iceland/Volcano observatory/raw notes"
    shown = folder_line(folder, view.fontMetrics(), FILE_WIDTH - 8)
    assert "…" in shown and shown.startswith("/home/") and shown.endswith("notes")
    # Three messages of one mailbox: told apart by their number and subject, the mailbox going to the grey line.
    from searchapp.gui.results_view import name_lines

    fm, width = view.fontMetrics(), FILE_WIDTH - 8
    names = [f"personal.mbox › {n}: {re}Security deposit return - Flat 3B" for n, re in
             ((10, ""), (11, "Re: "), (12, "Re: Re: "))]
    rows = [name_lines(n, "/srv/mail", fm, width) for n in names]
    assert all(fm.horizontalAdvance(a) <= width and fm.horizontalAdvance(b) <= width for a, b in rows), rows
    assert [a.split(":")[0] for a, _ in rows] == ["› 10", "› 11", "› 12"], rows
    assert rows[1][0].startswith("› 11: Re: Sec") and rows[1][1] == "/srv/mail/personal.mbox", rows
    first, second = name_lines("personal.mbox › 33: Lease renewal for Gartenstraße 12 › lease_renewal_2025_final.docx",
                               "/srv/mail", fm, width)  # an attachment keeps its extension
    assert first.startswith("› ") and first.endswith(".docx") and fm.horizontalAdvance(first) <= width
    assert second.startswith("…") and second.endswith("Lease renewal for Gartenstraße 12"), second  # its message
    assert name_lines("report.txt", "/srv/mail", fm, width) == ("report.txt", "/srv/mail")
    own = "Budget 2024 › final version for the board meeting in March (approved).txt"  # a file's own name
    first, second = name_lines(own, "/home/ann/docs", fm, width, member=False)
    assert first.startswith("Budget 2024") and first.endswith(".txt") and second == "/home/ann/docs", (first, second)


def test_the_name_column_gives_the_snippet_room_in_a_narrow_window_until_the_person_sizes_it(qtbot, open_window):
    from searchapp.gui.results_view import FILE_WIDTH, MIN_FILE_WIDTH

    win = open_window()
    search(qtbot, win, "volcano survey readings")
    view, file_col = win.search.results_view, col("File")
    assert view.columnWidth(file_col) == FILE_WIDTH
    win.resize(1000, 700)
    qtbot.waitUntil(lambda: view.columnWidth(file_col) < FILE_WIDTH, timeout=WAIT_MS)
    assert view.columnWidth(file_col) >= MIN_FILE_WIDTH
    assert view.horizontalScrollBar().maximum() == 0
    view.horizontalHeader().resizeSection(file_col, 300)  # as a drag does
    win.resize(1280, 800)
    qtbot.wait(50)
    assert view.columnWidth(file_col) == 300


def test_results_squeezed_by_an_older_versions_saved_splitters_get_their_room_back(qtbot, open_window):
    from PySide6.QtCore import QSettings

    win = open_window()
    win.right_split.setSizes([120, 600])  # as the old default arrangement left them: four rows
    win.close()  # writes gui.ini
    ini = QSettings(str(win.config.data_dir / "gui.ini"), QSettings.Format.IniFormat)
    assert ini.value("right_split") is not None
    ini.remove("layout")  # what a version before the layout mark wrote
    ini.sync()
    again = open_window()
    search(qtbot, again, "volcano survey readings")
    view = again.search.results_view
    assert view.viewport().height() // view.rowHeight(0) >= 8

    again.right_split.setSizes([300, 420])  # the person's own choice in this layout is kept
    kept = again.right_split.sizes()
    again.close()
    assert open_window().right_split.sizes() == kept


def test_the_inspector_is_one_click_away_remembered_and_says_why_a_row_ranks_there(qtbot, open_window):
    win = open_window()
    assert not win.inspector.isVisible()  # not open by default: the preview gets the width
    res = search(qtbot, win, "volcano survey readings")
    toggle = win.inspector_toggle
    assert toggle.action.shortcut() == QKeySequence("Ctrl+I") and toggle.action in win.menuBar().actions()[1].menu().actions()
    qtbot.mouseClick(toggle.button, Qt.MouseButton.LeftButton)
    assert win.inspector.isVisible() and win.inspector.width() > 200
    qtbot.mouseClick(toggle.button, Qt.MouseButton.LeftButton)
    assert not win.inspector.isVisible()

    view, model = win.search.results_view, win.search.results_model
    menu = win.discover.context_menu(view.visualRect(model.index(2, 0)).center())
    why = next(a for a in menu.actions() if a.text() == "Why this rank?")
    why.trigger()
    hit = res.hits[2]
    assert win.inspector.isVisible() and toggle.action.isChecked()
    table = win.inspector.table
    assert table.item(table.currentRow(), 1).text() == hit.path.rsplit("/", 1)[-1]
    summary = win.inspector.summary.text()
    assert summary.startswith(f"Why #3 {hit.path.rsplit('/', 1)[-1]}: ") and "cosine" in summary, summary

    shot(win, "inspector_open.png")
    # at 1280x800 the table shows rows enough to compare (the rule wrapped over seven lines had left it two)
    assert table.viewport().height() >= 4 * table.rowHeight(0), (table.viewport().height(), table.rowHeight(0))

    # Open, it follows the selected result.
    view.setCurrentIndex(model.index(4, 0))
    assert table.item(table.currentRow(), 1).text() == res.hits[4].path.rsplit("/", 1)[-1]
    assert win.inspector.summary.text().startswith("Why #5 ")

    win.close()  # open, so the next window opens it
    again = open_window()
    assert again.inspector.isVisible() and again.inspector_toggle.action.isChecked()
    again.inspector_toggle.action.trigger()
    again.close()
    assert not open_window().inspector.isVisible()


@pytest.mark.parametrize("reranked", [False, True])
def test_the_inspectors_table_fits_its_pane_at_1280x800_every_number_whole(qtbot, open_window, request, reranked):
    """A newcomer had to scroll the score table sideways to read a row: thirteen columns, 1096 px wide in a 345 px
    pane. Opened on a result at 1280x800, reranked or not, its columns now fit the pane (no horizontal scroll bar, the
    window no wider), no number is cut short, and nothing is lost: a stage's score and rank in its cell, right-aligned
    with fixed decimals; the file's path, the cross-encoder's logit and the whole movement on hover."""
    from PySide6.QtWidgets import QApplication

    # one window per data dir: a second over the same one would open at the first one's remembered splitters
    models = {"reranker": str(request.getfixturevalue("tiny_cross_encoder_dir"))} if reranked else None
    win = open_window(models)
    if reranked:
        load_models(qtbot, win)
    res = search(qtbot, win, "volcano survey readings")
    assert res.reranked == reranked
    win.inspector_toggle.why(win.search.results_model.hit(2))  # the result's "Why this rank?"
    QApplication.processEvents()  # the pane laid out at its width before it is measured
    table = win.inspector.table
    shot(win, f"inspector_table_{'reranked' if reranked else 'first_stage'}.png")
    assert (win.width(), win.height()) == (1280, 800)
    shown = [j for j in range(table.columnCount()) if not table.isColumnHidden(j)]
    assert table.horizontalHeader().length() <= table.viewport().width(), [table.columnWidth(j) for j in shown]
    assert not table.horizontalScrollBar().isVisible()
    for j in shown:  # every number whole (the name alone is shortened)
        assert j == 1 or table.columnWidth(j) >= table.sizeHintForColumn(j), (j, table.columnWidth(j))
    assert table.columnWidth(1) >= 60  # room for the start of a name
    assert len(shown) == (7 if reranked else 5)  # no page in .txt files; no reranker: no CE, no movement
    rows = {table.item(r, 0).text(): r for r in range(table.rowCount())}
    decimals: dict[int, set[int]] = {}
    for h in res.hits:
        r, s, k = rows[str(h.ranks.final)], h.scores, h.ranks
        stages = [(3, s.dense, k.dense), (4, s.lexical, k.lexical), (5, s.fused, k.fused)]
        for j, score, rank in stages + ([(6, s.rerank, k.rerank)] if reranked else []):
            number, _, ranked = table.item(r, j).text().strip().partition(" #")
            assert float(number) == pytest.approx(score, abs=0.006) and ranked == str(rank or ""), (j, number, ranked)
            assert table.item(r, j).textAlignment() & Qt.AlignmentFlag.AlignRight
            decimals.setdefault(j, set()).add(len(number.partition(".")[2]))
        assert h.path in table.item(r, 1).toolTip()
        if reranked:
            assert f"logit {s.rerank_logit:.4g}" in table.item(r, 6).toolTip()
            assert rank_movement(h) in table.item(r, 7).toolTip() and table.item(r, 7).text() == rank_movement(h).split()[0]
    assert all(len(d) == 1 for d in decimals.values()), decimals  # a column's numbers line up
    # a click on a header sorts by the numbers, not the cells' text ("10" after "9", "0.9 #2" after "0.8 #14")
    assert [table.item(r, 0).text() for r in range(table.rowCount())] == [str(i + 1) for i in range(len(res.hits))]
    table.sortByColumn(5, Qt.SortOrder.DescendingOrder)
    fused = [float(table.item(r, 5).text().partition(" ")[0]) for r in range(table.rowCount())]
    assert fused == sorted(fused, reverse=True) and len(res.hits) >= 10


def test_the_reranker_notice_is_one_line_and_dismissed_for_good(qtbot, open_window):
    missing = {"reranker": "cross-encoder/not-in-the-cache"}
    win = open_window(models=missing)
    notice = win.notice
    qtbot.waitUntil(lambda: win.models_ready and notice.isVisible(), timeout=WAIT_MS)
    label = notice.label
    one_line = max(notice.download_button.sizeHint().height(), label.fontMetrics().lineSpacing()) + 12
    assert notice.height() <= one_line, (notice.height(), one_line)
    assert label.full_text() == SHARPER  # what a reranker gives; why there is none on hover
    assert label.fontMetrics().horizontalAdvance(label.text()) <= label.width()  # nothing cut without a …
    assert "no cross-encoder weights were found" in label.toolTip()

    qtbot.mouseClick(notice.close_button, Qt.MouseButton.LeftButton)
    assert not notice.isVisible()
    win.close()
    again = open_window(models=missing)
    qtbot.waitUntil(lambda: again.models_ready, timeout=WAIT_MS)
    again.show_reranker_notice("asked again")  # the same reason: still not shown
    assert not again.notice.isVisible() and again.labels.reranker.text() == "Reranker: none"
    again.notice.explain(None, "config.json is missing", True)  # a new reason is said once more
    assert again.notice.isVisible()


def test_the_note_under_the_query_chips_is_shortened_never_cut(qtbot, open_window):
    win = open_window()
    names = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa"]
    win.search.search_box.setText("volcano " + " ".join(f"{n}:x" for n in names))
    notes = win.query_chips.notes
    assert notes.isVisible()
    assert notes.fontMetrics().horizontalAdvance(notes.text()) <= notes.width()
    assert notes.text().endswith("…")
    for n in names:
        assert f"unknown field {n}: searched as words" in notes.toolTip()


def test_the_query_syntax_help_shows_its_last_line(qtbot, open_window):
    from searchapp.gui.syntax_help import _NOTES

    win = open_window()
    dialog = win.memory.show_help()
    qtbot.waitExposed(dialog)
    text = dialog.findChild(QWidget, "syntaxHelpText")
    if isinstance(text, QLabel):  # a label cannot scroll: all of it must fit
        assert text.heightForWidth(text.width()) <= text.height()
    else:
        assert isinstance(text, QAbstractScrollArea)
        doc_height = text.document().size().height()
        bar = text.verticalScrollBar()
        assert doc_height <= text.viewport().height() + bar.maximum() + 1
        screen = dialog.screen().availableGeometry().height()
        if screen >= 800:  # room enough: no scrolling at all
            assert bar.maximum() == 0
    assert _NOTES.split(". ")[-1].rstrip(".") in text.toPlainText() if hasattr(text, "toPlainText") else text.text()
    dialog.close()


def test_a_first_start_says_how_to_begin_and_the_settings_show_model_ids_whole(qtbot, tmp_path, tiny_encoder):
    from searchapp.base.config import load_config
    from searchapp.gui.empty_results import WELCOME
    from searchapp.library import Library

    config = load_config(tmp_path / "new", env={}, overrides={"models": {"reranker": "cross-encoder/ms-marco-MiniLM-L-6-v2"}})
    with Library(config, encoder=tiny_encoder) as lib:
        win = shown_window(qtbot, config, lib)
        win.resize(1280, 800)
        hint = win.findChild(QLabel, "emptyResults")
        assert hint.isVisible() and hint.text() == WELCOME and "Add Folder" in hint.text()
        win.resize(900, 600)  # a small screen: its three lines were cut to two, "Nothing is indexed yet" lost
        QApplication.processEvents()
        assert hint.height() >= hint.heightForWidth(hint.width()) > hint.fontMetrics().lineSpacing() * 2, \
            (hint.height(), hint.heightForWidth(hint.width()))
        win.resize(1280, 800)
        QApplication.processEvents()
        assert hint.height() == hint.heightForWidth(hint.width())  # and no taller than its lines again
        dialog = win.open_settings()
        qtbot.waitExposed(dialog)
        for edit in (dialog.bi_encoder, dialog.reranker):  # the hub id whole, not its tail
            assert edit.fontMetrics().horizontalAdvance(edit.text()) < edit.width() - 8, edit.text()
        dialog.reject()

        (tmp_path / "docs").mkdir()
        (tmp_path / "docs" / "a.txt").write_text("a volcano\n", encoding="utf-8")
        with qtbot.waitSignal(win.writesIdle, timeout=WAIT_MS):
            win.add_paths([str(tmp_path / "docs")])
        # a folder is in: the first start's hint is gone, the area says what is searchable instead
        qtbot.waitUntil(lambda: hint.text() != WELCOME, timeout=WAIT_MS)
        assert "1 file is searchable" in hint.text() and "Add Folder" not in hint.text()
        win.close()



def test_a_results_name_that_fits_alone_keeps_its_line_and_its_mark_opens_the_grey_one(qtbot):
    """At 900×600 a result of a missing folder read "plan-120.m…available)" (the window newcomer's screenshots)."""
    from PySide6.QtGui import QFontMetrics
    from PySide6.QtWidgets import QApplication

    from searchapp.gui.results_view import marked_lines

    fm = QFontMetrics(QApplication.font())
    width = fm.horizontalAdvance("plan-120.md  (unavai")
    first, second = marked_lines("plan-120.md  (unavailable)", "plan-120.md", "/home/me/Projects", fm, width)
    assert first == "plan-120.md" and second.startswith("(unavailable)"), (first, second)
    wide = fm.horizontalAdvance("plan-120.md  (unavailable)") + 10  # room for both: as before
    assert marked_lines("plan-120.md  (unavailable)", "plan-120.md", "/srv", fm, wide) == ("plan-120.md  (unavailable)",
                                                                                             "/srv")
