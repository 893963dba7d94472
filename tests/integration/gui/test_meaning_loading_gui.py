"""A search typed while the vector index is still opening shows its word matches with a plain-words note in the
status bar, and runs again by itself (hybrid, the note gone) once the index is open. The load is held with
BackgroundLoad.hold (an event the test sets), never by timing."""

from __future__ import annotations

import threading

import pytest

pytest.importorskip("pytestqt")

from conftest import build_tiny_library

from gui_window import WAIT_MS, close_window

TEXTS = {"rocks.txt": "Basalt is a volcanic rock; granite cooled slowly underground.",
         "bread.txt": "A recipe for sourdough bread with a long cold proof."}
NOTE = "meaning is still loading — word matches only"


def test_a_search_while_meaning_loads_shows_words_then_runs_again(qtbot, tmp_path, tiny_bi_encoder_dir, tiny_encoder,
                                                                   monkeypatch):
    from searchapp.base.config import load_config
    from searchapp.gui import build_main_window
    from searchapp.library import Library
    from searchapp.library.resources.background_load import BackgroundLoad
    from searchapp.library.search.result import LOADING

    data = build_tiny_library(tmp_path, TEXTS, tiny_bi_encoder_dir, tiny_encoder, 'reranker = ""\n')
    gate = threading.Event()
    monkeypatch.setattr(BackgroundLoad, "hold", gate.wait)
    lib = Library(load_config(data, env={}), encoder=tiny_encoder)
    win = build_main_window(lib.config, lib)
    try:
        qtbot.addWidget(win)
        win.show()
        assert lib.meaning_loading()  # the window started it
        win.search.search_box.setText("volcanic rock")
        with qtbot.waitSignal(win.searchFinished, timeout=WAIT_MS) as first:
            win.search.run_search()
        words = first.args[0]
        assert words.said(LOADING) == NOTE
        assert win.search.results_model.rowCount() and all(h.scores.dense is None for h in words.hits)
        assert NOTE in win.statusBar().currentMessage()

        # The folders and counts show at once, without waiting for the index (a first look must not seem empty).
        qtbot.waitUntil(lambda: win.status is not None, timeout=WAIT_MS)
        assert win.status.roots and win.status.chunks == len(TEXTS) and win.status.index_opening
        assert "index not consistent" not in win.labels.index.text() and "opening the index" in win.labels.index.text()
        assert lib.meaning_loading()
        shown: list = []
        win.searchFinished.connect(shown.append)
        with qtbot.waitSignals([win.searchFinished, win.statusRefreshed], timeout=WAIT_MS):
            gate.set()  # the index opens; the window hears of it, searches again and shows the status
        full = shown[-1]
        assert win.status is not None and win.status.vectors == len(TEXTS) and not win.status.index_opening
        assert "opening the index" not in win.labels.index.text()
        assert full.said(LOADING) is None and all(h.scores.dense is not None for h in full.hits)
        assert NOTE not in win.statusBar().currentMessage()
        assert not lib.meaning_loading()
    finally:
        gate.set()
        close_window(win, lib)


def test_a_status_that_ends_late_never_covers_a_newer_one(qtbot, tmp_path, tiny_bi_encoder_dir, tiny_encoder,
                                                          monkeypatch):
    """The window asks for its status again when the index opens; the answer taken before (index still opening)
    may end after the newer one, and must not replace it."""
    from searchapp.base.config import load_config
    from searchapp.gui import build_main_window
    from searchapp.library import Library

    data = build_tiny_library(tmp_path, TEXTS, tiny_bi_encoder_dir, tiny_encoder, 'reranker = ""\n')
    lib = Library(load_config(data, env={}), encoder=tiny_encoder)
    win = build_main_window(lib.config, lib)
    try:
        qtbot.addWidget(win)
        win.show()
        qtbot.waitUntil(lambda: win.status is not None and not lib.meaning_loading(), timeout=WAIT_MS)
        qtbot.waitUntil(lambda: not any(j.name == "status" for j in win.runner.jobs), timeout=WAIT_MS)
        gate, real, calls = threading.Event(), lib.status, []

        def first_ends_last(**kw):
            calls.append(kw)
            if len(calls) == 1:
                gate.wait(WAIT_MS / 1000)
                st = real(**kw)
                st.chunks = -1  # the stale answer, told apart
                return st
            return real(**kw)

        monkeypatch.setattr(lib, "status", first_ends_last)
        win.refresh_status()
        qtbot.waitUntil(lambda: len(calls) == 1, timeout=WAIT_MS)  # the first is reading (and held there)
        with qtbot.waitSignal(win.statusRefreshed, timeout=WAIT_MS):
            win.refresh_status()  # asked second, ends first
        gate.set()
        qtbot.waitUntil(lambda: not any(j.name == "status" for j in win.runner.jobs), timeout=WAIT_MS)
        assert len(calls) == 2 and win.status.chunks == len(TEXTS)
    finally:
        close_window(win, lib)
