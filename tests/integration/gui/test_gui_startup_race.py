"""Issue 14.7: a folder dropped the moment the window opens, with the saved last query running at
start-up. The window's model warm-up, the search and the sync all ask for the bi-encoder at once: it
must be built once (two concurrent builds raced in transformers' lazy imports and showed a traceback)."""

from __future__ import annotations

import threading
import time

import pytest

pytest.importorskip("pytestqt")

from PySide6.QtCore import QMimeData, QPointF, QSettings, Qt, QUrl
from PySide6.QtGui import QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import QApplication

WAIT_MS = 180_000


def test_drop_at_startup_builds_the_model_once_and_indexes(qtbot, make_config, data_dir, tmp_path, monkeypatch,
                                                           packaged_model_dir):
    import searchapp.models as models
    from searchapp.gui import build_main_window
    from searchapp.library import Library
    from searchapp.library.resources import sync_encoder

    real = models.BiEncoder
    state = {"building": 0, "most": 0, "built": 0}
    lock = threading.Lock()

    class Counted(real):  # the real model; the build is slowed so that overlapping builds would overlap
        def __init__(self, *args, **kwargs):
            with lock:
                state["building"] += 1
                state["most"] = max(state["most"], state["building"])
            try:
                time.sleep(0.5)
                super().__init__(*args, **kwargs)
            finally:
                with lock:
                    state["building"] -= 1
                    state["built"] += 1

    monkeypatch.setattr(models, "BiEncoder", Counted)
    # The sync builds the model (three notes are a pass the query path would embed without it: decision 0164)
    monkeypatch.setattr(sync_encoder, "LEAN_PASSAGES", 0)
    docs = tmp_path / "docs"
    docs.mkdir()
    for i in range(3):
        (docs / f"n{i}.txt").write_text(f"Note {i}: tomatoes ripen faster in a warm greenhouse.")
    config = make_config(models={"reranker": "", "device": "cpu", "precision": "fp32", "threads": 1})
    data_dir.mkdir(parents=True, exist_ok=True)
    ui = QSettings(str(data_dir / "gui.ini"), QSettings.Format.IniFormat)
    ui.setValue("last_query", "greenhouse tomatoes")  # runs as soon as the window opens
    ui.sync()

    lib = Library(config)  # no model given: the window and the sync build it from the config
    win = build_main_window(config, lib)
    qtbot.addWidget(win)
    errors = []
    win.errorShown.connect(errors.append)
    try:
        win.show()
        md = QMimeData()
        md.setUrls([QUrl.fromLocalFile(str(docs))])
        pos = win.rect().center()
        QApplication.sendEvent(win, QDragEnterEvent(pos, Qt.DropAction.CopyAction, md, Qt.MouseButton.LeftButton,
                                                    Qt.KeyboardModifier.NoModifier))
        with qtbot.waitSignal(win.writesIdle, timeout=WAIT_MS):
            QApplication.sendEvent(win, QDropEvent(QPointF(pos), Qt.DropAction.CopyAction, md,
                                                   Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier))
        qtbot.waitUntil(lambda: win.models_ready, timeout=WAIT_MS)
        assert errors == []
        assert state["built"] == 1 and state["most"] == 1
        assert sum(win.status.files.values()) == 3 and win.status.chunks >= 3
    finally:
        win.close()
        lib.close()
