"""The status bar says how things are now: no "10 results in 70 ms" over a list that was cleared, and the device and
the model still named after a sync's long summary (a newcomer's bar lost both for good once a sync had ended)."""

from __future__ import annotations

import pytest

pytest.importorskip("pytestqt")

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QSizeGrip, QWidget

from gui_window import WAIT_MS, search, shot, tiny_window

TEXTS = {"violin.txt": "The violin maker carved spruce tops and varnished them by hand.",
         "tides.txt": "Tides follow the pull of the moon; the harbour empties twice a day."}


@pytest.fixture
def win(qtbot, tmp_path, tiny_bi_encoder_dir, tiny_encoder):
    yield from tiny_window(qtbot, tmp_path, TEXTS, tiny_bi_encoder_dir, tiny_encoder)


def test_a_cleared_list_takes_its_count_off_the_status_line_and_leaves_other_lines(qtbot, win):
    search(qtbot, win, "violin", mode="lexical")
    assert win.statusBar().currentMessage().startswith("1 result in ")
    win.search.clear()  # Escape: the list is empty now
    assert win.search.results_model.rowCount() == 0
    assert "result" not in win.statusBar().currentMessage()
    search(qtbot, win, "harbour", mode="lexical")
    win.search.search_box.setText("")  # the query deleted: the list empties as it does for Escape
    win.run_search()
    assert "result" not in win.statusBar().currentMessage()
    search(qtbot, win, "violin", mode="lexical")
    win.tools.say("Removed violins", 0)  # something else said since: not the list's to take back
    win.search.clear()
    assert win.statusBar().currentMessage() == "Removed violins"


def test_the_device_and_the_model_stay_named_beside_a_syncs_long_summary(qtbot, win):
    from searchapp.gui.status_labels import MESSAGE_LEFT
    from searchapp.library.sync.contract import SyncReport

    bar, labels = win.statusBar(), win.labels
    qtbot.waitUntil(lambda: bool(labels.device.text() and labels.models.text()), timeout=WAIT_MS)
    # The newcomer's sync of a folder ended with this line, said until the next thing is said
    win.writes.sync_done(SyncReport(scanned=80, added=70, skipped=10, chunks_added=1070, chunks_embedded=991))
    QApplication.processEvents()
    message = bar.currentMessage()
    assert message.startswith("80 files scanned: 70 added")
    for lab, says in ((labels.device, "CPU"), (labels.models, "tiny-bi0"), (labels.index, "passages")):
        assert lab.isVisible() and says in lab.text(), (lab.objectName(), lab.text())
    first_x = min(w.x() for w in bar.findChildren(QWidget, options=Qt.FindChildOption.FindDirectChildrenOnly)
                  if w.isVisible() and not isinstance(w, QSizeGrip))
    assert MESSAGE_LEFT + bar.fontMetrics().horizontalAdvance(message) <= first_x  # the line is not cut either
    shot(win, "status-after-sync.png")
    full = labels.device.text()
    bar.clearMessage()  # the line gone: every label says all it has again
    QApplication.processEvents()
    assert labels.device.text().startswith(full) and labels.models.text().startswith("Model: tiny-bi0")


def test_the_line_says_the_count_of_the_list_shown_after_a_quiet_search_again(qtbot, win):
    """A sync's end runs the shown query again quietly (its summary keeps the line). A newcomer's search, sent
    during a sync whose end said nothing, was taken up by that quiet one: its rows came, and the line kept the
    previous query's "10 results in 1871 ms"."""
    bar, search_ = win.statusBar(), win.search

    def quiet_after(text: str | None) -> None:
        """The person's search of `text` (None: none) on its way when a change runs the query again quietly."""
        with qtbot.waitSignal(win.searchFinished, timeout=WAIT_MS):
            if text is not None:
                search_.search_box.setText(text)
                win.run_search()
            search_.run_search(quiet=True, again=True)  # as on_changes does after this window's sync

    search(qtbot, win, "violin", mode="lexical")
    assert bar.currentMessage().startswith("1 result in ")
    quiet_after("zeppelin")
    assert bar.currentMessage().startswith("No results"), bar.currentMessage()
    win.tools.say("Synced: 0 added", 0)  # a summary said since the person's search was sent
    quiet_after("violin")
    assert bar.currentMessage().startswith("1 result in "), bar.currentMessage()
    win.tools.say("Synced: 1 updated", 0)
    quiet_after(None)  # the list shown, run again after the change: the line keeps what the change said
    assert bar.currentMessage() == "Synced: 1 updated"
