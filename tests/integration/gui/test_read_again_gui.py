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
