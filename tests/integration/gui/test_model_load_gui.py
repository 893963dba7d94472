"""The window loads the models a search by meaning uses only when one needs them (gui/model_load.py): a first
start's search over a library with no passages has nothing to compare its query with, so it loads nothing and
is answered as asked, not by words with "meaning loads…"."""

from __future__ import annotations

import pytest

pytest.importorskip("pytestqt")

from gui_window import WAIT_MS, close_window, shown_window


def test_a_search_before_anything_is_indexed_loads_no_model(qtbot, make_config):
    from searchapp.library import Library
    from searchapp.library.search.result import LOADING

    config = make_config(models={"reranker": ""})
    lib = Library(config)  # a first start: nothing indexed, no model given
    win = shown_window(qtbot, config, lib)
    try:
        assert win.status.chunks == 0
        win.search.search_box.setText("where did I put the tax forms")
        with qtbot.waitSignal(win.searchFinished, timeout=WAIT_MS) as sig:
            win.run_search()
        result = sig.args[0]
        assert result.mode == "hybrid" and result.said(LOADING) is None and not result.hits
        assert not win.search.models.loading and not lib.models.meaning_ready(False)  # nothing loaded
        assert "(loading…)" not in win.labels.models.text()
    finally:
        close_window(win, lib)
