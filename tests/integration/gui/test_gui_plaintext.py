"""Issue 14.3: file names, snippets, reasons and messages are shown as text, never rendered as markup.

A file named `<img src=&#47;...&#47;fifo>notes.txt` made Qt open that FIFO from the GUI thread (the
window froze for good). Here such a file is indexed and shown in the real window, with a watchdog that
notices (and unblocks) any open() of the FIFO.
"""

from __future__ import annotations

import html
import os
import re
import threading
import time
from pathlib import Path

import pytest

pytest.importorskip("pytestqt")
pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="POSIX only (FIFOs)")

from PySide6 import QtGui  # noqa: E402
from PySide6.QtCore import QMimeData, QPoint, QPointF, Qt, QUrl  # noqa: E402
from PySide6.QtGui import QDragEnterEvent, QDropEvent  # noqa: E402
from PySide6.QtWidgets import QApplication, QToolTip  # noqa: E402

from searchapp.gui.results_model import ResultsModel  # noqa: E402

WAIT_MS = 120_000


class FifoWatch:
    """Polls the FIFO's write end: opening it without blocking succeeds only while someone reads it."""

    def __init__(self, fifo: Path) -> None:
        self.fifo, self.opened, self._stop = fifo, 0, threading.Event()
        self._t = threading.Thread(target=self._run, daemon=True)
        self._t.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                fd = os.open(self.fifo, os.O_WRONLY | os.O_NONBLOCK)
            except OSError:  # ENXIO: no reader, as it should be
                time.sleep(0.05)
                continue
            self.opened += 1
            os.close(fd)  # the reader gets end-of-file: the window is unblocked and the test can fail

    def stop(self) -> None:
        self._stop.set()
        self._t.join(5)


def shown_as(tip: str) -> str:
    """What a rich-text tooltip displays (tags dropped, entities decoded)."""
    return html.unescape(re.sub(r"<[^>]*>", "", tip)) if QtGui.Qt.mightBeRichText(tip) else tip


@pytest.fixture
def hostile(tmp_path):
    trap = tmp_path / "trap"
    trap.mkdir()
    fifo = trap / "fifo"
    os.mkfifo(fifo)
    docs = tmp_path / "docs"
    docs.mkdir()
    img = f"<img src={str(fifo).replace('/', '&#47;')}>notes.txt"
    names = [img, "<b>bold.txt"]  # a "/" cannot be in a name: an unclosed tag is markup enough
    for n in names:
        (docs / n).write_text("Greenhouse tomatoes need warm nights and steady watering in summer.")
    watch = FifoWatch(fifo)
    yield docs, [str(docs / n) for n in names], watch
    watch.stop()


def _drop(win, paths) -> None:
    md = QMimeData()
    md.setUrls([QUrl.fromLocalFile(str(p)) for p in paths])
    pos = win.rect().center()
    QApplication.sendEvent(win, QDragEnterEvent(pos, Qt.DropAction.CopyAction, md, Qt.MouseButton.LeftButton,
                                                Qt.KeyboardModifier.NoModifier))
    QApplication.sendEvent(win, QDropEvent(QPointF(pos), Qt.DropAction.CopyAction, md, Qt.MouseButton.LeftButton,
                                           Qt.KeyboardModifier.NoModifier))


def test_markup_file_names_are_shown_as_text_everywhere(qtbot, make_config, tiny_encoder, hostile):
    from searchapp.gui import build_main_window
    from searchapp.gui.errors import show_error
    from searchapp.base.errors import ExtractionError
    from searchapp.library import Library

    docs, paths, watch = hostile
    config = make_config(models={"reranker": ""}, search={"fold_repeats": False})  # the files are copies: a row each
    lib = Library(config, encoder=tiny_encoder)
    win = build_main_window(config, lib)
    qtbot.addWidget(win)
    win.url_opener = lambda url: None
    try:
        with qtbot.waitSignal(win.statusRefreshed, timeout=WAIT_MS):
            win.show()
        assert win.progress.label.textFormat() == Qt.TextFormat.PlainText
        with qtbot.waitSignal(win.writesIdle, timeout=WAIT_MS):
            _drop(win, [docs])
        win.search.search_box.setText("greenhouse tomatoes watering")
        win.search.mode_box.set_mode("lexical")
        with qtbot.waitSignal(win.searchFinished, timeout=WAIT_MS):
            win.run_search()
        model = win.search.results_model
        assert sorted(h.path for h in model.hits) == sorted(paths)
        file_col = ResultsModel.COLUMNS.index("File")
        for row in range(model.rowCount()):
            hit = model.hit(row)
            tip = model.index(row, file_col).data(Qt.ItemDataRole.ToolTipRole)
            assert shown_as(tip) == hit.path
            with qtbot.waitSignal(win.previewShown, timeout=WAIT_MS):
                win.search.results_view.setCurrentIndex(model.index(row, 0))
            title = win.preview.title
            assert title.textFormat() == Qt.TextFormat.PlainText
            assert title.full_text().startswith(hit.path)  # shown on one line, shortened (TitleLine)
            assert shown_as(title.toolTip()) == hit.path
            # Render everything, and show the tooltips for real: Qt would load an <img> here.
            win.grab()
            for t in (tip, title.toolTip(), win.inspector.table.item(row, 1).toolTip()):
                QToolTip.showText(win.mapToGlobal(QPoint(10, 10)), t, win)
                qtbot.wait(50)
                assert QToolTip.text() == t
            QToolTip.hideText()
        inspector_tips = {shown_as(win.inspector.table.item(r, 1).toolTip()) for r in range(model.rowCount())}
        assert inspector_tips == set(paths)
        tree = win.library_panel.tree
        assert shown_as(tree.topLevelItem(0).toolTip(0)) == str(docs)
        for lab in (win.labels.device, win.labels.models, win.labels.index, win.labels.reranker, win.inspector.summary):
            assert lab.textFormat() == Qt.TextFormat.PlainText
        box = show_error(win, ExtractionError(f"cannot read {paths[0]}"))
        assert box.textFormat() == Qt.TextFormat.PlainText and paths[0] in box.text()
        box.grab()
        box.close()
        qtbot.wait(300)
        assert watch.opened == 0, "the window opened the FIFO named in a file name"
    finally:
        win.close()
        lib.close()


def test_preview_lays_out_a_bounded_window_once(qtbot):
    from searchapp.base.types import Hit
    from searchapp.gui.preview import CONTEXT_CHARS, PASSAGE_CHARS, PreviewPane

    pane = PreviewPane()
    qtbot.addWidget(pane)
    word = "x" * 2_000_000
    hit = Hit(1, "/tmp/word.txt", None, 10, 10 + len(word), word)
    text = "Intro text" + word + "outro"
    calls = []
    real = pane.browser.setHtml
    pane.browser.setHtml = lambda s: (calls.append(len(s)), real(s))
    pane.show_hit(hit, [])
    pane.show_hit(hit, [], text)
    pane.show_hit(hit, [], text)  # the same content again: not laid out again
    assert len(calls) == 2
    assert len(pane.plain_text()) <= PASSAGE_CHARS + 2 * CONTEXT_CHARS + 10


def test_code_shows_in_a_fixed_width_font_prose_does_not(qtbot, tmp_path):
    """A newcomer's code lost its indentation's columns in the preview's proportional font: source code, data and
    logs read as text are shown fixed-width, notes and plain text as they were."""
    from PySide6.QtGui import QFontInfo, QTextCursor

    from searchapp.base.types import Hit
    from searchapp.gui.preview import PreviewPane

    pane = PreviewPane()
    qtbot.addWidget(pane)
    pane.resize(1280 // 2, 600)
    code = "def parse(raw):\n    for part in raw.split(';'):\n        yield part.strip()\n"

    def fixed(path: str) -> bool:
        pane.show_hit(Hit(1, path, None, 0, len(code), code), ["parse"], code)
        cursor = QTextCursor(pane.browser.document())
        cursor.movePosition(QTextCursor.MoveOperation.NextCharacter)
        return QFontInfo(cursor.charFormat().font()).fixedPitch()

    assert fixed(str(tmp_path / "cookies.py")) and fixed(str(tmp_path / "app.log"))
    assert not fixed(str(tmp_path / "notes.md")) and not fixed(str(tmp_path / "letter.txt"))
    pane.show_hit(Hit(1, str(tmp_path / "cookies.py"), None, 0, len(code), code), ["parse"], code)
    assert pane.grab().save(str(tmp_path / "code_preview.png"))
