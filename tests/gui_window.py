"""The real main window as the GUI tests open it.

A script that drives the window (or a Library) outside pytest needs `if __name__ == "__main__":` around its work:
a sync of many files starts its read-ahead worker with multiprocessing's "spawn", which imports the script's
__main__ again in the worker (a helper's unguarded driver deleted its own data dir that way)."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

# How long a GUI test waits for what it expects before it fails: a bound for a failing test, never a pause of a
# passing one. OCR of one image in a window took over 60 s at load 12 on 2 cores.
WAIT_MS = 180_000
# Where the GUI tests leave their screenshots for a person to look at (never inside the repository)
SHOTS = Path(os.environ.get("SEARCHAPP_TEST_SHOTS", Path(tempfile.gettempdir()) / "searchapp-test-shots"))


def shown_window(qtbot, config, lib, commands=None):
    """The window over `lib`, shown (offscreen) once its first status is in. URLs it would open are recorded in
    `win.opened` and never handed to the system's handler. `commands`: see build_main_window."""
    from searchapp.gui import build_main_window

    win = build_main_window(config, lib, commands)
    qtbot.addWidget(win)
    win.opened = []
    win.url_opener = win.opened.append
    with qtbot.waitSignal(win.statusRefreshed, timeout=WAIT_MS):
        win.show()
    # The index opening in the background ends with a Changes(meaning=True) of its own, and the status read it asks
    # for: not ones a test should see (answered late on a busy machine, that read ran a test's search again).
    qtbot.waitUntil(lambda: not win.session.meaning.pending and not win.reading_status, timeout=WAIT_MS)
    return win


def shot(widget, name: str) -> None:
    """`widget` as it is drawn now, saved as SHOTS/name."""
    from PySide6.QtWidgets import QApplication

    SHOTS.mkdir(parents=True, exist_ok=True)
    QApplication.processEvents()  # labels just given new text are laid out before the grab
    assert widget.grab().save(str(SHOTS / name))


def window_maker(qtbot, data, tiny_encoder):
    """A fixture's body: yields make(models=None), a window at 1280x800 over the library in `data` (exact vector
    search, no reranker unless `models` names one), opened again on every call; closes them all after."""
    from searchapp.base.config import load_config
    from searchapp.library import Library

    made = []

    def make(models=None):
        config = load_config(data, env={}, overrides={"index": {"backend": "exact"},
                                                      "models": {"reranker": "", **(models or {})}})
        lib = Library(config, encoder=tiny_encoder)
        win = shown_window(qtbot, config, lib)
        win.resize(1280, 800)
        made.append((win, lib))
        return win

    yield make
    for win, lib in made:
        close_window(win, lib)


def load_models(qtbot, win) -> None:
    """Load what a search by meaning uses, as the first one would (the window loads no model at start), and wait."""
    win.search.models.need(win.search.rerank_box.isChecked())
    qtbot.waitUntil(lambda: win.models_ready, timeout=WAIT_MS)


def search(qtbot, win, text: str, mode: str | None = None):
    """Type `text` in the search box (in `mode` when given, else the box's mode), search, and wait for the
    SearchResult the window shows."""
    if mode is not None:
        win.search.mode_box.set_mode(mode)
    win.search.search_box.setText(text)
    with qtbot.waitSignal(win.searchFinished, timeout=WAIT_MS) as sig:
        win.run_search()
    return sig.args[0]


def close_window(win, lib) -> None:
    """Close the dialogs `win` left open, the window, then its library."""
    from PySide6.QtWidgets import QApplication

    for top in QApplication.topLevelWidgets():
        if top is not win and top.isVisible():
            top.close()
    win.close()
    lib.close()


def tiny_window(qtbot, tmp_path, texts, tiny_bi_encoder_dir, tiny_encoder):
    """A fixture's body: yields a window at 1280x800 over a tiny library of `texts` in tmp_path/docs (`win.docs`),
    exact vector search, no reranker; closes it and its library after."""
    from conftest import build_tiny_library
    from searchapp.base.config import load_config
    from searchapp.library import Library

    data = build_tiny_library(tmp_path, texts, tiny_bi_encoder_dir, tiny_encoder, 'reranker = ""\n')
    config = load_config(data, env={}, overrides={"index": {"backend": "exact"}, "search": {"rerank": False}})
    lib = Library(config, encoder=tiny_encoder)
    win = shown_window(qtbot, config, lib)
    win.resize(1280, 800)
    win.docs = tmp_path / "docs"
    yield win
    close_window(win, lib)


def two_folder_window(qtbot, tmp_path, texts, tiny_bi_encoder_dir, tiny_encoder):
    """(window, library) over a tiny library of `texts` in tmp_path/docs plus a second folder, tmp_path/other,
    holding lamp.txt: exact vector search, no reranker. `win.docs` and `win.other` name the two folders."""
    from conftest import build_tiny_library
    from searchapp.base.config import load_config
    from searchapp.library import Library

    data = build_tiny_library(tmp_path, texts, tiny_bi_encoder_dir, tiny_encoder, 'reranker = ""\n')
    other = tmp_path / "other"
    other.mkdir()
    (other / "lamp.txt").write_text("A lava lamp glows on the desk.\n")
    config = load_config(data, env={}, overrides={"index": {"backend": "exact"}, "search": {"rerank": False}})
    lib = Library(config, encoder=tiny_encoder)
    lib.add_folder(other)
    win = shown_window(qtbot, config, lib)
    win.docs, win.other = tmp_path / "docs", other
    return win, lib


def drop(win, paths) -> None:
    """A real drag-enter + drop of file URLs onto `win`, as a file manager sends them."""
    from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl
    from PySide6.QtGui import QDragEnterEvent, QDropEvent
    from PySide6.QtWidgets import QApplication

    md = QMimeData()
    md.setUrls([QUrl.fromLocalFile(str(p)) for p in paths])
    pos = win.rect().center()
    enter = QDragEnterEvent(pos, Qt.DropAction.CopyAction, md, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(win, enter)
    assert enter.isAccepted()
    ev = QDropEvent(QPointF(pos), Qt.DropAction.CopyAction, md, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(win, ev)
    assert ev.isAccepted()
