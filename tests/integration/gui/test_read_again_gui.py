"""A person who upgrades and only opens the window gets this version's readings too (decision 0152): the folders an
older version's readers read are synced once when the window opens, the strip and the sync line say why, and a
window over a library read by this version starts nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("pytestqt")

from conftest import build_tiny_library
from gui_window import WAIT_MS, close_window, shown_window

TEXTS = {"orchard.txt": "Quarterly figures for the orchard: apples sold well, pears did not.",
         "bread.md": "A recipe for sourdough bread with a long cold proof."}


def _window(qtbot, tmp_path, tiny_bi_encoder_dir, tiny_encoder, *, older: bool):
    from searchapp.base.config import load_config
    from searchapp.library import Library

    data = build_tiny_library(tmp_path, TEXTS, tiny_bi_encoder_dir, tiny_encoder, 'reranker = ""\n')
    config = load_config(data, env={}, overrides={"index": {"backend": "exact"}, "search": {"rerank": False}})
    lib = Library(config, encoder=tiny_encoder)
    if older:  # as a version before readers had versions left it
        with lib.store.atomic():
            lib.store.conn.execute("UPDATE files SET reader = NULL")
            lib.store.conn.execute("DELETE FROM meta WHERE key LIKE 'readers:%'")
    win = shown_window(qtbot, config, lib)
    return win, lib


def test_a_window_over_folders_an_older_version_read_reads_them_again_once(qtbot, tmp_path, tiny_bi_encoder_dir,
                                                                         tiny_encoder):
    win, lib = _window(qtbot, tmp_path, tiny_bi_encoder_dir, tiny_encoder, older=True)
    try:
        qtbot.waitUntil(lambda: win.status is not None and not win.status.read_by_older
                        and not win.runner.write_jobs(), timeout=WAIT_MS)
        assert all(r.reader is not None for r in lib.store.files_of_root(lib.store.roots()[0].id).values())
        said = win.statusBar().currentMessage()
        assert said.startswith("2 files scanned: 0 added, 0 updated") and "2 files read again by this version's " \
            "readers (unchanged on disk): the same passages, kept with their vectors" in said, said
        assert win.status.roots[0].path == str(Path(tmp_path / "docs"))
        win.refresh_status()  # read: nothing starts again
        qtbot.wait(300)
        assert not win.runner.write_jobs() and win.statusBar().currentMessage() == said
    finally:
        close_window(win, lib)


def test_a_window_over_a_library_this_version_read_starts_nothing(qtbot, tmp_path, tiny_bi_encoder_dir,
                                                                  tiny_encoder):
    win, lib = _window(qtbot, tmp_path, tiny_bi_encoder_dir, tiny_encoder, older=False)
    try:
        assert win.status is not None and win.status.read_by_older == []
        qtbot.wait(300)
        assert not win.runner.write_jobs() and "read" not in win.statusBar().currentMessage()
    finally:
        close_window(win, lib)


def test_after_a_cancel_the_reading_again_waits_for_the_persons_next_write(qtbot, tmp_path, tiny_bi_encoder_dir,
                                                                           tiny_encoder):
    """Right after a Cancel the window said "This version reads some formats better: reading the files of 1 folder
    again" and read every file again, the Cancel's hold on its own writes ended by it (a newcomer's first sync of
    real files, cancelled: a member of a type no reader reads had no reader version). It waits for the person's next
    write now; that write (a Re-sync) reads them with this version's readers, and nothing runs after it."""
    win, lib = _window(qtbot, tmp_path, tiny_bi_encoder_dir, tiny_encoder, older=False)
    try:
        with lib.store.atomic():  # read by an older version, as that library was taken to be
            lib.store.conn.execute("UPDATE files SET reader = NULL")
            lib.store.conn.execute("DELETE FROM meta WHERE key LIKE 'readers:%'")
        win.writes.on_hold = True  # as the person's Cancel leaves it (write_jobs.py)
        with qtbot.waitSignal(win.statusRefreshed, timeout=WAIT_MS):
            win.refresh_status()
        assert win.status.read_by_older and not win.runner.write_jobs()
        assert "reads some formats better" not in win.statusBar().currentMessage()
        started = []
        win.writes.syncStarted.connect(lambda: started.append(win.writes.active_write().name))
        with qtbot.waitSignal(win.writesIdle, timeout=WAIT_MS):
            win.resync()  # the person's write: the hold ends
        qtbot.waitUntil(lambda: not win.runner.write_jobs() and not win.reading_status, timeout=WAIT_MS)
        assert started == ["Re-syncing"] and not win.status.read_by_older and not win.writes.on_hold
    finally:
        close_window(win, lib)
