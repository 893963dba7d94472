"""Another process syncing the library (a terminal's `index`) is shown in the window: the status bar says which
process and how far its meaning is, and a write of the window's own that waits for it says for whom (a newcomer
saw nothing of a terminal's 35-minute embedding, and a bare "Re-syncing" for 20 s while it waited)."""

from __future__ import annotations

import dataclasses
import subprocess
import sys

import pytest

pytest.importorskip("pytestqt")

from conftest import build_tiny_library

from gui_window import WAIT_MS, close_window, shot, window_maker

TEXTS = {"violin.txt": "The violin maker carved spruce tops and varnished them by hand.",
         "tides.txt": "Tides follow the pull of the moon; the harbour empties twice a day."}
HOLD = ("import sys; from pathlib import Path; from searchapp.library.resources.lock import writer_lock\n"
        "with writer_lock(Path(sys.argv[1])):\n"
        "    print('held', flush=True)\n"
        "    sys.stdin.read()\n")


@pytest.fixture
def make(qtbot, tmp_path, tiny_bi_encoder_dir, tiny_encoder):
    data = build_tiny_library(tmp_path, TEXTS, tiny_bi_encoder_dir, tiny_encoder)
    yield from window_maker(qtbot, data, tiny_encoder)


def test_a_terminal_sync_is_named_in_the_status_bar_and_a_re_sync_says_it_waits_for_it(qtbot, make):
    win = make()
    data = win.config.data_dir
    holder = subprocess.Popen([sys.executable, "-c", HOLD, str(data)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        with qtbot.waitSignal(win.statusRefreshed, timeout=WAIT_MS):
            win.refresh_status()
        label = win.labels.index.text()
        assert label.endswith(f" · process {holder.pid} is syncing"), label  # its meaning is all there
        mid_sync = dataclasses.replace(win.status, chunks=4000, embedded=1000, meaning_rate=10.0)
        win.labels.show_status(mid_sync)  # as read while the terminal embeds
        assert win.labels.index.text().endswith(f"process {holder.pid} is syncing (meaning 25%, about 5 min left)")
        assert win.labels.index.toolTip() == f"{win.status.writer} is syncing this library"
        win.writes.resync(None)  # the person's Re-sync: it waits for the terminal's lock
        qtbot.waitUntil(lambda: f"Waiting — for process {holder.pid}" in win.writes.progress.label.full_text(),
                        timeout=WAIT_MS)
        assert "this goes on when it has finished" in win.writes.progress.label.full_text()
        shot(win, "another-writer-waited-for.png")
    finally:
        holder.stdin.close()
        holder.wait(timeout=60)
    qtbot.waitUntil(lambda: not win.runner.busy_writing(), timeout=WAIT_MS)
    with qtbot.waitSignal(win.statusRefreshed, timeout=WAIT_MS):
        win.refresh_status()
    assert "is syncing" not in win.labels.index.text()
    close_window(win, win.session.library)


def test_the_windows_own_write_is_not_another_process(qtbot, make):
    """The status names the process holding the writer lock, this one too: the window's own sync is not said as
    another's (a reviewer saw "process <its own pid> is syncing" at every refresh during its own writes)."""
    from searchapp.library.resources.lock import writer_lock

    win = make()
    with writer_lock(win.config.data_dir):  # as the window's own sync holds it (this process)
        with qtbot.waitSignal(win.statusRefreshed, timeout=WAIT_MS):
            win.refresh_status()
        label = win.labels.index.text()
    close_window(win, win.session.library)
    assert "is syncing" not in label, label
