"""A stop signal (Ctrl+C, `kill`, a closed terminal) reaching the real window offscreen: it quits as Quit and
resume next time does and never waits on a dialog, not even the question Quit asked (decision 0158). The
signals themselves are sent to real processes in tests/e2e/test_gui_stop_signals.py; here the window's side is
called as the watching thread calls it."""

from __future__ import annotations

import pytest

pytest.importorskip("pytestqt")

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication

from conftest import build_tiny_library

from corpus import committee_notes
from gui_window import WAIT_MS, window_maker

TEXTS = {"bread.md": "A recipe for sourdough bread with a long cold proof."}


@pytest.fixture
def open_window(qtbot, tmp_path, tiny_bi_encoder_dir, tiny_encoder):
    data = build_tiny_library(tmp_path, TEXTS, tiny_bi_encoder_dir, tiny_encoder)
    yield from window_maker(qtbot, data, tiny_encoder)


def test_a_stop_signal_answers_the_open_quit_question_and_resumes_next_time(qtbot, open_window, tmp_path):
    from searchapp.gui.quit_guard import RESUME_KEY
    from searchapp.gui.signal_stop import SignalStop

    win = open_window()
    stop = SignalStop(QApplication.instance(), win)
    many, n = committee_notes(tmp_path)
    win.add_paths([str(many)])
    qtbot.waitUntil(lambda: win.runner.busy_writing() and win.writes.active_write() is not None, timeout=WAIT_MS)
    win.request_quit()  # File → Quit: the question, and nobody there to answer it
    prompt = win.quit_guard.prompt
    assert prompt is not None and prompt.isVisible()
    stop.asked.emit()  # what the watching thread does at Ctrl+C (queued to the GUI thread)
    qtbot.waitUntil(lambda: not win.isVisible(), timeout=WAIT_MS)
    assert not prompt.isVisible()
    ui = QSettings(str(win.config.data_dir / "gui.ini"), QSettings.Format.IniFormat)
    st = win.library.status()
    done = next((r.files for r in st.roots if r.path == str(many)), 0)
    assert done < n or st.embedded < st.chunks  # stopped part way, at its batch
    assert ui.value(RESUME_KEY) == "quit"  # the next start resumes it
