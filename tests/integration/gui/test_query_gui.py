"""Issue 22 in the window, offscreen on a real tiny library: chips for the recognised query parts (✕ removes one),
the parser's notes, the `?` help, the filter bar and the query text kept as one (no loops), operator-only
queries, recent queries (Enter records, the menu clears, 0 keeps none) and saved searches as smart folders."""

from __future__ import annotations

import html
import os
import sqlite3
from pathlib import Path

import pytest

pytest.importorskip("pytestqt")

from PySide6.QtCore import QDate, Qt
from PySide6.QtWidgets import QApplication, QLabel, QToolButton

from conftest import build_tiny_library

from gui_window import WAIT_MS, close_window, search, shot, shown_window
TEXTS = {
    "volcano.txt": "The volcano erupted and molten rock flowed down to the sea.",
    "draft.txt": "A draft report on volcano safety for the island council.",
    "bread.md": "A recipe for sourdough bread with a long cold proof.",
    "notes.md": "Meeting notes: the volcano tour is booked for spring.",
}


@pytest.fixture
def lib_dir(tmp_path, tiny_bi_encoder_dir, tiny_encoder) -> Path:
    data = build_tiny_library(tmp_path, TEXTS, tiny_bi_encoder_dir, tiny_encoder, 'reranker = ""\n')
    for i, name in enumerate(["notes.md", "volcano.txt", "draft.txt", "bread.md"]):  # bread.md newest
        os.utime(tmp_path / "docs" / name, (1_700_000_000 + i * 1000,) * 2)
    return data


def open_window(qtbot, data: Path, tiny_encoder, **search):
    from searchapp.base.config import load_config
    from searchapp.library import Library

    config = load_config(data, env={}, overrides={"index": {"backend": "exact"}, "search": {"rerank": False, **search}})
    lib = Library(config, encoder=tiny_encoder)
    win = shown_window(qtbot, config, lib)
    win.docs = data.parent / "docs"
    win.lib = lib
    return win


@pytest.fixture
def win(qtbot, lib_dir, tiny_encoder):
    w = open_window(qtbot, lib_dir, tiny_encoder)
    w.lib.sync()  # the new mtimes
    yield w
    close(w)


def close(w) -> None:
    close_window(w, w.lib)


def shown(w) -> list[str]:
    return [Path(w.search.results_model.hit(r).path).name for r in range(w.search.results_model.rowCount())]


def remove_buttons(w) -> list[QToolButton]:
    return [c.findChild(QToolButton, "queryChipRemove") for c in w.query_chips.chips]


# -- chips, notes, help -------------------------------------------------------------
def test_chips_show_the_recognised_parts_and_x_takes_one_out(qtbot, win):
    win.search.search_box.setText('volcano "molten rock" -draft type:md,txt after:2023-11')
    assert win.query_chips.isVisible()
    assert win.query_chips.labels() == ['phrase "molten rock"', "not draft", "type: md, txt", "after: 2023-11"]
    assert [c.findChild(QLabel, "queryChipText").text() for c in win.query_chips.chips] == win.query_chips.labels()
    with qtbot.waitSignal(win.searchFinished, timeout=WAIT_MS):
        qtbot.mouseClick(remove_buttons(win)[0], Qt.MouseButton.LeftButton)  # the phrase
    assert win.search.search_box.text() == "volcano -draft type:md,txt after:2023-11"
    assert win.query_chips.labels() == ["not draft", "type: md, txt", "after: 2023-11"]
    assert sorted(shown(win)) == ["bread.md", "notes.md", "volcano.txt"]  # -draft holds (words rank, never required)
    win.search.search_box.setText("volcano")  # no syntax: no chips, the row is hidden
    assert win.query_chips.labels() == [] and not win.query_chips.isVisible()


def test_what_was_taken_as_words_is_said_in_plain_text(qtbot, win):
    win.search.search_box.setText('foo:bar volcano <b>x</b>:y "open')
    notes = win.query_chips.notes
    assert notes.isVisible() and notes.textFormat() == Qt.TextFormat.PlainText
    assert notes.full_text() == "Taken as words: unknown field foo: searched as words; unbalanced quote: searched as words"
    res = search(qtbot, win, "foo:bar volcano")
    assert res.hits and win.last_dialog is None


def test_chip_text_from_the_query_is_plain(qtbot, win):
    hostile = '<img src="http://127.0.0.1:1/x">'
    win.search.search_box.setText(f'volcano name:{hostile.replace(" ", "")} in:"/tmp/<b>x</b> y"')
    labels = win.query_chips.findChildren(QLabel)
    assert any("<b>x</b>" in lab.text() for lab in labels)
    assert all(lab.textFormat() == Qt.TextFormat.PlainText for lab in labels)
    for lab in labels:
        if lab.toolTip():
            assert "<b>x</b>" not in lab.toolTip() or html.escape("<b>x</b>") in lab.toolTip()


def test_help_lists_every_form(qtbot, win):
    from searchapp.library.query.syntax import FIELDS

    qtbot.mouseClick(win.syntax_button, Qt.MouseButton.LeftButton)
    dlg = win.memory.help
    assert dlg is not None and dlg.isVisible()
    text = dlg.text.toPlainText()
    for form in ('"exact phrase"', "-word", " OR ", "word*", *(f"{f}:" for f in FIELDS)):
        assert form in text, form
    dlg.close()


# -- the filter bar and the query text ------------------------------------------------
def test_filter_bar_and_query_text_are_one_without_loops(qtbot, win):
    bar, box = win.filter_bar, win.search.search_box
    texts, bar_changes = [], []
    box.textChanged.connect(texts.append)
    bar.changed.connect(lambda: bar_changes.append(1))
    box.setText("volcano")
    # the bar writes its fields into the query
    bar.types.setText("md")
    with qtbot.waitSignal(win.searchFinished, timeout=WAIT_MS):
        bar.types.editingFinished.emit()
    assert box.text() == "volcano type:md" and texts == ["volcano", "volcano type:md"]
    assert sorted(shown(win)) == ["bread.md", "notes.md"]
    bar.after_on.setChecked(True)
    bar.after.setDate(QDate(2023, 11, 1))
    assert box.text() == "volcano type:md after:2023-11-01"
    assert win.query_sync.rewrites == 3 and len(texts) == 4  # one text per bar edit: no echo back
    # the query writes into the bar, silently (no `changed`, so no rewrite of the text being typed)
    bar_changes.clear()
    box.setText('volcano in:"~/My Docs" type:pdf,docx before:2024')
    assert bar.folder.text() == "~/My Docs" and bar.types.text() == "pdf,docx"
    assert not bar.after_on.isChecked() and bar.before_on.isChecked() and bar.before.date() == QDate(2024, 1, 1)
    assert bar_changes == [] and box.text() == 'volcano in:"~/My Docs" type:pdf,docx before:2024'
    # round trip: what the bar shows, written back, is the same set of fields
    from searchapp.library.query.syntax import filters_of, parse_query, with_filters

    again = with_filters(box.text(), bar.filters())
    assert filters_of(parse_query(again)) == filters_of(parse_query(box.text()))
    # Clear in the bar takes the fields out of the query; the words stay
    bar.clear()
    assert box.text() == "volcano" and bar.filters() is None
    assert win.query_chips.labels() == []


def test_a_bad_bar_value_stays_in_red_while_the_query_is_typed(qtbot, win):
    bar = win.filter_bar
    bar.types.setText("p d f")
    bar.types.editingFinished.emit()
    assert "Types" in bar.error.text() and win.search.search_box.text() == ""  # ignored: nothing written
    win.search.search_box.setText("volcano")
    win.search.search_box.setText("volcano after:2023")  # the bar shows the date, the bad types stay as typed
    assert bar.types.text() == "p d f" and "Types" in bar.error.text()
    assert bar.after_on.isChecked() and bar.after.date() == QDate(2023, 1, 1)
    win.search.search_box.setText("volcano type:md")
    assert bar.types.text() == "md" and bar.error.text() == "" and not bar.after_on.isChecked()


def test_only_operators_lists_newest_first_in_the_window(qtbot, win):
    res = search(qtbot, win, "type:md")
    assert shown(win) == ["bread.md", "notes.md"]
    assert "newest matching first" in win.statusBar().currentMessage()
    assert not win.notice.isVisible() or "newest" not in win.notice.label.text()
    assert res.hits and all(h.scores.dense is None for h in res.hits)


def test_an_in_outside_the_library_is_said_in_the_status_line(qtbot, win, tmp_path):
    """A typo'd in: (no folder of the library there) said, beside the listing's own note: not just "No results"."""
    search(qtbot, win, f"type:md in:{tmp_path / 'nowhere'}")
    line = win.statusBar().currentMessage()
    assert "No results" in line and "newest matching first" in line
    assert f"in:{tmp_path / 'nowhere'}: no folder of the library is there or under it" in line
    search(qtbot, win, f"volcano in:{win.docs}")
    assert "no folder of the library" not in win.statusBar().currentMessage()


def test_a_search_of_only_common_words_says_it_is_ranked_by_meaning_alone(qtbot, win):
    """Words + meaning of "the of and": its words rank nothing (pipeline.run_search); the line says so. So does a
    word searched otherwise than typed, and one the model knows that no passage holds, as the command line says
    them: the window listed another word's files with no word of why (decision 0194)."""
    search(qtbot, win, "the of and", mode="hybrid")
    assert "only common words (the, of, and)" in win.statusBar().currentMessage()
    search(qtbot, win, "the volcano", mode="hybrid")
    assert "only common words" not in win.statusBar().currentMessage()
    search(qtbot, win, "volcanno", mode="hybrid")
    assert "searched “volcanno” as “volcano”" in win.statusBar().currentMessage()
    search(qtbot, win, "inland", mode="hybrid")
    assert "no passage holds “inland”: searched as typed (did you mean “island”?)" in win.statusBar().currentMessage()


# -- history -----------------------------------------------------------------------
def history_rows(data: Path) -> list[tuple]:
    conn = sqlite3.connect(data / "searches.sqlite")
    try:
        return conn.execute("SELECT query FROM history ORDER BY id DESC").fetchall()
    finally:
        conn.close()


def test_enter_records_a_query_and_the_menu_clears_history(qtbot, win, lib_dir):
    win.search.search_box.setText("volcano tour")
    with qtbot.waitSignal(win.memory.historyChanged, timeout=WAIT_MS) as sig:
        qtbot.keyClick(win.search.search_box, Qt.Key.Key_Return)
    assert sig.args[0] == ["volcano tour"]
    assert win.memory.history_model.stringList() == ["volcano tour"]
    assert history_rows(lib_dir) == [("volcano tour",)]
    win.search.search_box.setText("vol")  # as-you-type searches are not recorded
    with qtbot.waitSignal(win.searchFinished, timeout=WAIT_MS):
        win.run_search()
    assert history_rows(lib_dir) == [("volcano tour",)]
    action = next(a for m in win.menuBar().findChildren(type(win.menuBar().actions()[0].menu()))
                  for a in m.actions() if a.text() == "Clear Search &History")
    with qtbot.waitSignal(win.memory.historyChanged, timeout=WAIT_MS) as sig:
        action.trigger()
    assert sig.args[0] == [] and win.memory.history_model.stringList() == []
    assert history_rows(lib_dir) == []


def test_history_off_keeps_nothing_in_the_window(qtbot, lib_dir, tiny_encoder):
    w = open_window(qtbot, lib_dir, tiny_encoder, history=0)
    try:
        w.search.search_box.setText("volcano tour")
        with qtbot.waitSignal(w.memory.historyChanged, timeout=WAIT_MS) as sig:
            qtbot.keyClick(w.search.search_box, Qt.Key.Key_Return)
        assert sig.args[0] == []
        assert not (lib_dir / "searches.sqlite").exists()
    finally:
        close(w)


def files_holding(folder: Path, needle: bytes) -> list[Path]:
    return [p for p in folder.rglob("*") if p.is_file() and needle in p.read_bytes()]


def test_history_off_leaves_no_query_text_on_disk(qtbot, lib_dir, tiny_encoder, tmp_path, monkeypatch):
    config_home = tmp_path / "xdg-config"  # where a QSettings() without a file would write
    monkeypatch.setenv("XDG_CONFIG_HOME", str(config_home))
    w = open_window(qtbot, lib_dir, tiny_encoder)  # history on: the last query is remembered ...
    search(qtbot, w, "quokka remembered")
    close(w)
    assert files_holding(lib_dir, b"quokka remembered")
    w = open_window(qtbot, lib_dir, tiny_encoder, history=0)  # ... until history is turned off
    try:
        assert w.search.search_box.text() == ""
        w.search.search_box.setText("zebra secret volcano")
        with qtbot.waitSignal(w.memory.historyChanged, timeout=WAIT_MS):
            qtbot.keyClick(w.search.search_box, Qt.Key.Key_Return)
        search(qtbot, w, "zebra secret volcano")
    finally:
        close(w)  # saves the window's state
    for place in (lib_dir, config_home):
        assert files_holding(place, b"zebra secret volcano") == [], place
        assert files_holding(place, b"quokka remembered") == [], place
    assert (lib_dir / "gui.ini").is_file()  # the rest of the window's state is still kept


def test_a_damaged_searches_file_is_a_status_line_not_a_dialog(qtbot, lib_dir, tiny_encoder):
    (lib_dir / "searches.sqlite").write_bytes(b"not a database " * 300)
    w = open_window(qtbot, lib_dir, tiny_encoder)
    try:
        search(qtbot, w, "volcano")
        assert shown(w)  # the search itself runs
        w.statusBar().clearMessage()
        qtbot.keyClick(w.search.search_box, Qt.Key.Key_Return)  # records the query: it cannot be
        problem = w.saved_panel.problem  # said where saved searches live, and kept there (a search's line covers the status bar)
        qtbot.waitUntil(lambda: problem.isVisible() and "searches.sqlite" in problem.text(), timeout=WAIT_MS)
        assert "library.sqlite" not in problem.text() and "move it aside" in problem.text()
        assert not [t for t in QApplication.topLevelWidgets() if t is not w and t.isVisible()]  # no dialog
    finally:
        close(w)


# -- saved searches ------------------------------------------------------------------
def test_saved_search_counts_new_files_after_a_sync_and_opening_resets(qtbot, win, lib_dir):
    panel = win.saved_panel
    win.search.search_box.setText("volcano -draft")
    win.search.mode_box.set_mode("lexical")
    with qtbot.waitSignal(win.memory.savedChanged, timeout=WAIT_MS):
        win.memory.save("Volcanoes")
    assert panel.texts() == ["Volcanoes"] and panel.list.isVisible()
    (win.docs / "eruption.txt").write_text("Another volcano woke up last week.\n")
    (win.docs / "draft2.txt").write_text("A volcano draft that must stay out.\n")
    win.resync(None)
    qtbot.waitUntil(lambda: panel.texts() == ["Volcanoes  (1 new)"], timeout=WAIT_MS)
    assert panel.list.item(0).font().bold()
    win.search.search_box.setText("something else")
    win.search.mode_box.set_mode("hybrid")
    with qtbot.waitSignal(win.searchFinished, timeout=WAIT_MS):
        panel.list.itemActivated.emit(panel.list.item(0))
    assert win.search.search_box.text() == "volcano -draft" and win.search.mode_box.mode() == "lexical"
    assert win.query_chips.labels() == ["not draft"]
    assert sorted(shown(win)) == ["eruption.txt", "notes.md", "volcano.txt"]
    # the "1 new" is the row that says so, in bold (the count alone left a person to guess which)
    model = win.search.results_model
    file_col = model.COLUMNS.index("File")
    cells = {model.index(r, file_col).data(): model.index(r, file_col).data(Qt.ItemDataRole.FontRole)
             for r in range(model.rowCount())}
    assert sorted(cells) == ["eruption.txt  (new)", "notes.md", "volcano.txt"], cells
    assert cells["eruption.txt  (new)"].bold() and cells["notes.md"] is None
    shot(win, "saved_search_new.png")
    qtbot.waitUntil(lambda: panel.texts() == ["Volcanoes"], timeout=WAIT_MS)


def test_the_saved_searches_pane_says_it_is_reading_them_until_they_are_read(qtbot):
    """At the window's start the searches are read in the background (counting new files runs each one): the
    empty list's hint said "Save Search… keeps the query here" for seconds to a newcomer who had saved two."""
    from searchapp.gui.saved_panel import EMPTY_HINT, READING_HINT, SavedPanel

    panel = SavedPanel()
    qtbot.addWidget(panel)
    assert panel.hint.text() == READING_HINT and panel.list.isHidden()
    panel.set_items([])
    assert panel.hint.text() == EMPTY_HINT and panel.list.isHidden() and not panel.hint.isHidden()


def test_saved_search_names_are_plain_text(qtbot, win):
    name = '<b>x</b><img src="http://127.0.0.1:1/x">'
    win.search.search_box.setText("volcano")
    with qtbot.waitSignal(win.memory.savedChanged, timeout=WAIT_MS):
        win.memory.save(name)
    item = win.saved_panel.list.item(0)
    assert item.text() == name  # a list item's text is never markup
    assert "<b>x</b>" not in item.toolTip()  # the query in the tooltip is escaped (plain.tooltip)
    with qtbot.waitSignal(win.memory.savedChanged, timeout=WAIT_MS):
        win.memory.remove(name)
    assert win.saved_panel.texts() == [] and win.saved_panel.hint.isVisible()


def test_the_mode_menu_names_modes_by_what_they_read_and_keeps_their_ids(qtbot, lib_dir, tiny_encoder):
    """A newcomer read "hybrid / dense / lexical" as jargon: the menu shows plain names, while the search, the
    history and gui.ini keep the ids the command line and the settings use (decision 0148)."""
    from PySide6.QtCore import QSettings

    w = open_window(qtbot, lib_dir, tiny_encoder)
    try:
        box = w.search.mode_box
        assert [box.itemText(i) for i in range(box.count())] == ["Words + meaning", "Meaning", "Words"]
        assert box.mode() == "hybrid" and box.currentText() == "Words + meaning"
        assert "Top 10" == w.search.k_box.text()
        assert search(qtbot, w, "volcano").mode == "hybrid"
        with qtbot.waitSignal(w.searchFinished, timeout=WAIT_MS) as sig:  # the menu's change searches again
            box.set_mode("lexical")
        assert sig.args[0].mode == "lexical" and box.currentText() == "Words"
        box.set_mode("no such mode")  # a mode gui.ini does not know (an older or newer version): kept as it is
        assert box.mode() == "lexical"
    finally:
        close(w)  # saves the window's state
    assert QSettings(str(lib_dir / "gui.ini"), QSettings.Format.IniFormat).value("mode") == "lexical"
    w = open_window(qtbot, lib_dir, tiny_encoder)
    try:
        assert w.search.mode_box.currentText() == "Words"
    finally:
        close(w)
