"""Trust, the window's side of containers: Open on a member reads its container again on a worker, never on the
window's thread (a gzip bomb once froze it for seconds), with the button busy meanwhile."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

pytest.importorskip("pytestqt")

from PySide6.QtCore import QTimer

from gui_window import WAIT_MS, shown_window
from hostile_archives import bomb_tar_gz
from searchapp.base.member_paths import MEMBER_SEP


@pytest.fixture
def window(qtbot, make_config, tiny_encoder):
    from searchapp.library import Library

    config = make_config(models={"reranker": ""}, index={"backend": "exact"})
    lib = Library(config, encoder=tiny_encoder)
    win = shown_window(qtbot, config, lib)
    yield win
    win.close()
    lib.close()


def test_open_on_a_member_of_a_bomb_archive_runs_on_a_worker_and_the_window_keeps_running(qtbot, window, tmp_path,
                                                                                         monkeypatch):
    """Open on a member reads its container again (a gzip bomb: seconds): that happens on a worker thread, the
    button says so meanwhile, the event loop keeps running, and the copy is handed over when it is ready."""
    from searchapp.library.members import private_copy

    docs = tmp_path / "docs"
    docs.mkdir()
    note = b"Pelicans nest on the quiet northern shore.\n"
    archive = bomb_tar_gz(docs / "bomb.tar.gz", 300, {"note.txt": note}, {"late.txt": b"lighthouse\n"})
    win = window
    win.library.add_folder(docs)
    hit = win.library.search("pelicans northern shore", mode="lexical").hits[0]
    assert hit.path.endswith("bomb.tar.gz" + MEMBER_SEP + "note.txt")
    win.preview.show_hit(hit, [])

    gate, threads = threading.Event(), []
    real = private_copy.read_member

    def slow_read(key, *args, **kwargs):  # stands for a long read; never holds the GUI thread in a failing run
        threads.append(threading.current_thread())
        if threading.current_thread() is not threading.main_thread():
            gate.wait(30)
        return real(key, *args, **kwargs)

    monkeypatch.setattr(private_copy, "read_member", slow_read)
    ticks = []
    timer = QTimer()
    timer.timeout.connect(lambda: ticks.append(1))
    timer.start(10)
    win.preview.open_button.click()
    qtbot.waitUntil(lambda: bool(threads), timeout=WAIT_MS)
    assert threads[0] is not threading.main_thread()  # the container is read on a worker
    qtbot.waitUntil(lambda: len(ticks) >= 3, timeout=WAIT_MS)  # and the window's event loop keeps turning
    assert win.preview.open_button.text() == "Opening…" and not win.preview.open_button.isEnabled()
    assert win.opened == []
    gate.set()
    qtbot.waitUntil(lambda: bool(win.opened), timeout=WAIT_MS)
    timer.stop()
    assert Path(win.opened[-1].toLocalFile()).read_bytes() == note
    assert win.preview.open_button.text() == "Open file" and win.preview.open_button.isEnabled()

    # A double-click on the result (and the list's Open) goes the same way.
    threads.clear()
    win.search.results_model.set_hits([hit], [])
    win.search.open_index(win.search.results_model.index(0, 0))
    qtbot.waitUntil(lambda: len(win.opened) == 2, timeout=WAIT_MS)
    assert threads and all(t is not threading.main_thread() for t in threads)

    # The container gone: one line in the preview's title, no dialog, no traceback.
    archive.unlink()
    win.preview.open_button.click()
    qtbot.waitUntil(lambda: "cannot open it now" in win.preview.title.text(), timeout=WAIT_MS)
    assert len(win.opened) == 2 and win.preview.open_button.isEnabled()


