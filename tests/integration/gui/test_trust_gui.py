"""Issue 18, the window's side: text from files, the hub and the filter bar is shown as text on the surfaces
added last round (download dialog, duplicates window, filter bar), filter dates cannot raise a traceback
dialog, and query words are marked exactly, after emoji and astral characters and in CJK text."""

from __future__ import annotations

import html
import re

import pytest

pytest.importorskip("pytestqt")

from PySide6 import QtGui
from PySide6.QtCore import QDate, QPoint, Qt
from PySide6.QtWidgets import (QApplication, QLabel, QStyleOptionViewItem, QTableView, QTableWidget,
                               QToolTip, QTreeWidget, QTreeWidgetItemIterator, QWidget)

from searchapp.base.types import Hit, StageRanks, StageScores
from searchapp.gui.highlight import query_terms
from searchapp.gui.results_model import HtmlDelegate, ResultsModel

from gui_window import WAIT_MS, close_window, shown_window
HOSTILE = '<b>x</b><img src="http://127.0.0.1:1/x">'  # a hub id or filter text
FILE_TAG = "<b>x<a href=x>"  # in file names ("/" cannot be in one: an unclosed tag is markup enough)
MARK = "#ffe680"


def shown_as(tip: str) -> str:
    """What a tooltip displays (tags dropped, entities decoded when Qt takes it for rich text)."""
    return html.unescape(re.sub(r"<[^>]*>", "", tip)) if QtGui.Qt.mightBeRichText(tip) else tip


def walk(marker: str) -> tuple[list[str], list[str]]:
    """Every label of every top-level window and dialog that shows `marker`, and every place that would render
    it as markup: a label not in PlainText, or a tooltip (widget or tree/table item) holding it unescaped."""
    showing, offenders = [], []
    for top in QApplication.topLevelWidgets():
        for w in [top] + top.findChildren(QWidget):
            name = w.objectName() or type(w).__name__
            if isinstance(w, QLabel) and marker in w.text():
                showing.append(name)
                if w.textFormat() != Qt.TextFormat.PlainText:
                    offenders.append(f"label {name} ({w.textFormat()})")
            if marker in w.toolTip() and QtGui.Qt.mightBeRichText(w.toolTip()):
                offenders.append(f"tooltip of {name}")
            tips = []
            if isinstance(w, QTreeWidget):
                it = QTreeWidgetItemIterator(w)
                while it.value():
                    tips += [it.value().toolTip(c) for c in range(w.columnCount())]
                    it += 1
            elif isinstance(w, QTableWidget):
                tips += [w.item(r, c).toolTip() for r in range(w.rowCount()) for c in range(w.columnCount())
                         if w.item(r, c)]
            offenders += [f"item tooltip in {name}" for t in tips if marker in t and QtGui.Qt.mightBeRichText(t)]
    return showing, offenders


@pytest.fixture
def window(qtbot, make_config, tiny_encoder, monkeypatch):
    from searchapp.library import Library

    monkeypatch.setenv("HF_ENDPOINT", "http://127.0.0.1:1")  # nothing listens: no test reaches a hub
    config = make_config(models={"reranker": ""}, index={"backend": "exact"})
    lib = Library(config, encoder=tiny_encoder)
    win = shown_window(qtbot, config, lib)
    yield win
    close_window(win, lib)


def test_hub_file_and_filter_text_is_plain_on_every_new_surface(qtbot, window, tmp_path):
    from searchapp.gui.errors import show_error
    from searchapp.base.errors import ExtractionError

    win = window
    docs = tmp_path / "docs"
    docs.mkdir()
    same = "Greenhouse tomatoes need warm nights and steady watering in summer."
    near = "The volcano erupted at dawn and ash covered the village roofs for three whole days"
    for name, text in (("a.txt", same), ("b.txt", same), ("c.txt", near + "."), ("d.txt", near + " again.")):
        (docs / (FILE_TAG + name)).write_text(text)
    with qtbot.waitSignal(win.writesIdle, timeout=WAIT_MS):
        win.add_paths([str(docs)])

    # The duplicates window: pair tooltips, side titles.
    dw = win.discover.open_duplicates(0.5)
    qtbot.waitUntil(lambda: dw.report is not None, timeout=WAIT_MS)
    assert dw.report.exact and dw.report.near
    item = dw.tree.currentItem()
    if item.childCount() > 2:  # a group of three files or more: its near pairs are folded inside it (decision 0186)
        item = item.child(item.childCount() - 1).child(0)
        dw.tree.setCurrentItem(item)
    pair = dw.selected_pair()
    assert pair is not None and FILE_TAG in pair.a
    assert shown_as(item.toolTip(0)) == f"{pair.a}\n{pair.b}"
    for side, path in ((dw.side_a, pair.a), (dw.side_b, pair.b)):
        assert side.title.textFormat() == Qt.TextFormat.PlainText and side.title.text().startswith(FILE_TAG)
        assert shown_as(side.title.toolTip()) == path
    dw.grab()
    QToolTip.showText(dw.mapToGlobal(QPoint(5, 5)), item.toolTip(0), dw)
    qtbot.wait(50)
    assert shown_as(QToolTip.text()) == f"{pair.a}\n{pair.b}"
    QToolTip.hideText()

    # The download dialog: a hostile id in the description, and in the hub's refusal in the status line.
    dlg = win.download_model("reranker", HOSTILE)
    assert dlg.text.textFormat() == Qt.TextFormat.PlainText and HOSTILE in dlg.text.text()
    assert "127.0.0.1:1" in dlg.text.text()
    dlg.start_button.click()
    qtbot.waitUntil(lambda: dlg.job is None and dlg.start_button.isEnabled(), timeout=WAIT_MS)
    assert dlg.status.textFormat() == Qt.TextFormat.PlainText and HOSTILE in dlg.status.text()

    # The filter bar: what was typed, quoted in the error.
    win.filter_bar.types.setText(HOSTILE)
    assert win.filter_bar.filters() is None
    assert win.filter_bar.error.textFormat() == Qt.TextFormat.PlainText and HOSTILE in win.filter_bar.error.text()

    # A search (the bad type is ignored, as the bar says), the preview's title and an error naming a file.
    win.search.search_box.setText("volcano village")
    win.search.mode_box.set_mode("lexical")
    with qtbot.waitSignal(win.searchFinished, timeout=WAIT_MS):
        win.run_search()
    with qtbot.waitSignal(win.previewShown, timeout=WAIT_MS):
        win.search.results_view.setCurrentIndex(win.search.results_model.index(0, 0))
    box = show_error(win, ExtractionError(f"cannot read {pair.a}"))

    # Every label and tooltip of every window and dialog now open.
    showing, offenders = walk(FILE_TAG)
    assert offenders == []
    assert {"dupATitle", "dupBTitle", "qt_msgbox_label"} <= set(showing)
    showing, offenders = walk(HOSTILE)
    assert offenders == []
    assert {"downloadText", "downloadStatus", "filterError"} <= set(showing)
    for top in QApplication.topLevelWidgets():  # draw them all, tooltips too, as a person would see them
        if top.isVisible():
            top.grab()
    box.close()
    dlg.reject()


def test_filter_dates_at_the_ends_of_the_calendar_never_raise_a_dialog(qtbot, window, tmp_corpus):
    from searchapp.gui.filter_bar import FIRST_DAY, LAST_DAY

    win = window
    with qtbot.waitSignal(win.writesIdle, timeout=WAIT_MS):
        win.add_paths([str(tmp_corpus)])
    bar = win.filter_bar
    finished = []
    win.searchFinished.connect(finished.append)
    win.search.search_box.setText("photosynthesis")
    for on, edit, day in ((bar.before_on, bar.before, QDate(9999, 12, 31)), (bar.after_on, bar.after, QDate(1, 1, 1))):
        on.setChecked(True)
        edit.setDate(day)  # what the calendar popup or typing allowed before
        finished.clear()
        win.run_search()
        qtbot.waitUntil(lambda: bool(finished) or win.last_dialog is not None, timeout=WAIT_MS)
        assert win.last_dialog is None, win.last_dialog.findChild(QLabel).text()
        assert FIRST_DAY <= edit.date() <= LAST_DAY
        on.setChecked(False)
    # Both ends at once: a clean sentence in the bar, the search runs unfiltered, no dialog.
    for on, edit, day in ((bar.after_on, bar.after, LAST_DAY), (bar.before_on, bar.before, FIRST_DAY)):
        on.setChecked(True)
        edit.setDate(day)
    assert bar.filters() is None and "is not before" in bar.error.text()
    assert bar.error.textFormat() == Qt.TextFormat.PlainText
    finished.clear()
    win.run_search()
    qtbot.waitUntil(lambda: bool(finished) or win.last_dialog is not None, timeout=WAIT_MS)
    assert win.last_dialog is None and finished[0].hits


def marked_runs(doc: QtGui.QTextDocument) -> list[str]:
    """The text of each run of consecutive characters with the mark's background, in the real document."""
    runs, current = [], None
    block = doc.begin()
    while block.isValid():
        for frag_it in block:
            frag = frag_it.fragment()
            if frag.charFormat().background().color().name() == MARK:
                current = (current or "") + frag.text()
            elif current is not None:
                runs.append(current)
                current = None
        block = block.next()
    return runs + ([current] if current is not None else [])


def delegate_marks(qtbot, hits: list[Hit], query: str) -> list[list[str]]:
    """The marks the results list paints for each hit (the delegate's real QTextDocument)."""
    model = ResultsModel()
    model.set_hits(hits, query_terms(query))
    view = QTableView()
    qtbot.addWidget(view)
    view.setModel(model)
    delegate = HtmlDelegate(view)
    opt = QStyleOptionViewItem()
    opt.rect.setWidth(600)
    col = ResultsModel.COLUMNS.index("Passage")
    return [marked_runs(delegate._doc(opt, model.index(r, col))) for r in range(len(hits))]


def preview_marks(qtbot, hit: Hit, query: str, text: str | None = None) -> list[str]:
    from searchapp.gui.preview import PreviewPane

    pane = PreviewPane()
    qtbot.addWidget(pane)
    pane.show_hit(hit, query_terms(query), text)
    return marked_runs(pane.browser.document())


def test_utf16_spans_count_astral_characters_twice():
    from searchapp.gui.highlight import utf16_spans

    text = "😀😀 volcano 𝒳 eruption"
    assert utf16_spans(text, [(3, 10), (13, 21)]) == [(5, 12), (16, 24)]
    assert utf16_spans("plain volcano", [(6, 13)]) == [(6, 13)]
    assert len(text.encode("utf-16-le")) // 2 == utf16_spans(text, [(0, len(text))])[0][1]


def test_marks_after_emoji_and_astral_characters_cover_exactly_the_query_words(qtbot):
    texts = ["😀😀 volcano 𝒳 eruption", "🌋 The 𝒳𝒴 volcano woke; 😀 eruption 😀😀 followed the volcano."]
    hits = [Hit(i, f"/x/{i}.txt", None, 0, len(t), t, StageScores(dense=0.5), StageRanks(final=i + 1))
            for i, t in enumerate(texts)]
    assert delegate_marks(qtbot, hits, "volcano eruption") == [["volcano", "eruption"],
                                                                ["volcano", "eruption", "volcano"]]
    for hit in hits:
        assert preview_marks(qtbot, hit, "volcano eruption") == re.findall("volcano|eruption", hit.text)


CJK_DOCS = {
    "zh.txt": "今天早上我们在公园里散步。今天的天气预报说下午会下雨，所以带了伞。",
    "ja.txt": "昨日は雨でした。明日の天気は晴れの予報なので、富士山の火山噴火の資料を読みます。",
    "astral.txt": "😀 週末は𠮷野家で昼ご飯を食べた。🍚 𠮷野家の牛丼はおいしい。",
}


@pytest.mark.parametrize("name, query, words", [
    ("zh.txt", "天气预报", ["天气预报"]),
    ("ja.txt", "天気 予報", ["天気", "予報"]),
    ("ja.txt", "火山噴火", ["火山噴火"]),
    ("astral.txt", "𠮷野家", ["𠮷野家", "𠮷野家"]),  # 𠮷 is beyond U+FFFF: two units in Qt
])
def test_cjk_query_words_are_marked_in_snippets_the_list_and_the_preview(qtbot, make_config, tiny_encoder, tmp_path,
                                                                         name, query, words):
    from searchapp.library import Library
    from searchapp.library.search.snippet import best_snippet

    docs = tmp_path / "docs"
    docs.mkdir()
    for n, text in CJK_DOCS.items():
        (docs / n).write_text(text, encoding="utf-8")
    lib = Library(make_config(models={"reranker": ""}), encoder=tiny_encoder)
    try:
        lib.add_folder(docs)
        hits = lib.search(query, mode="lexical").hits
    finally:
        lib.close()
    assert hits and hits[0].path.endswith(name)
    hit = hits[0]
    snip = best_snippet(hit.text, query)  # what the CLI shows, and the list
    assert [snip.text[a:b] for a, b in snip.spans] == words
    assert delegate_marks(qtbot, [hit], query) == [words]
    assert preview_marks(qtbot, hit, query, CJK_DOCS[name]) == words


def test_a_search_during_a_reindex_says_so_in_the_status_line(qtbot, window):
    """Item 11: an empty list during a reindex must not read as "nothing matches"."""
    from searchapp.library import Notice, SearchResult

    notice = "reindex in progress: 0% of passages embedded; results come from what is embedded so far"
    window.search.search_done(window.search.seq, SearchResult("volcano", "hybrid", [], False,
                                                              notices=[Notice("reindex", notice)]), 10)
    assert notice in window.statusBar().currentMessage()
    window.search.search_done(window.search.seq, SearchResult("volcano", "hybrid", [], False), 10)
    assert "reindex" not in window.statusBar().currentMessage()


def test_a_file_name_with_control_characters_is_drawn_on_one_line_with_them_written_visibly(qtbot):
    """A newcomer's `evil\\x1b[31mred\\nline.txt` ran its second line over the row under it (results, preview header,
    score inspector): the window writes a name's control characters as the terminal does (\\e, \\n)."""
    from searchapp.gui.score_inspector import why_text

    path = "/home/p/evil\x1b[31mred\nline.txt"
    hit = Hit(1, path, None, 0, 4, "text", StageScores(lexical=2.0), StageRanks(lexical=1, final=1),
              order_label="bm25")
    model = ResultsModel()
    model.set_hits([hit], [])
    shown = [model.index(0, model.COLUMNS.index(c)).data() for c in ("File", "Folder")]
    assert shown[0] == "evil\\e[31mred\\nline.txt" and not any("\n" in s or "\x1b" in s for s in shown), shown
    assert "\n" not in why_text(hit).split(":")[0] and "\x1b" not in why_text(hit)
