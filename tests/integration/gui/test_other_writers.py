"""A sync made by another process (`searchapp index` in a terminal) shows in an open window without a click:
its counts, its library pane and the results of the query on screen follow the library on disk."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("pytestqt")


from conftest import build_tiny_library

from gui_window import WAIT_MS, close_window, shown_window

TEXTS = {"violin.txt": "The violin maker carved spruce tops and varnished them by hand.",
         "tides.txt": "Tides follow the pull of the moon; the harbour empties twice a day.",
         "bread.txt": "Sourdough needs a lively starter, a long cold proof and a very hot oven."}


@pytest.fixture
def win(qtbot, tmp_path, tiny_bi_encoder_dir, tiny_encoder):
    from searchapp.base.config import load_config
    from searchapp.library import Library

    data = build_tiny_library(tmp_path, TEXTS, tiny_bi_encoder_dir, tiny_encoder, 'reranker = ""\n')
    with open(data / "config.toml", "a", encoding="utf-8") as f:  # the terminal's sync reads the same settings
        f.write('[index]\nbackend = "exact"\n')
    lib = Library(load_config(data, env={}), encoder=tiny_encoder)
    w = shown_window(qtbot, lib.config, lib)
    w.data, w.docs = data, tmp_path / "docs"
    # Looks every 0.2 s instead of every 2: the same checks (a changed mark, then a quiet one), sooner. The
    # terminal's index runs while this thread waits for it, so no look falls in the middle of its sync.
    w.other_writers.timer.setInterval(200)
    yield w
    close_window(w, lib)


def index_in_a_terminal(data: Path, *paths: Path) -> None:
    # By words only: what the window must follow is another process's commit, and a meaning pass would make
    # this process load torch and the model (~10 CPU s) for nothing these tests look at.
    proc = subprocess.run([sys.executable, "-m", "searchapp", "--data-dir", str(data), "index", "--words-only",
                           *map(str, paths)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def shown_names(win) -> set[str]:
    from searchapp.gui.results_model import HIT_ROLE

    model = win.search.results_model
    return {Path(model.index(r, 0).data(HIT_ROLE).path).name for r in range(model.rowCount())}


def test_a_sync_in_a_terminal_refreshes_the_counts_and_the_results_on_screen(qtbot, win, tmp_path):
    win.search.mode_box.set_mode("lexical")
    win.search.search_box.setText("lighthouse")
    with qtbot.waitSignal(win.searchFinished, timeout=WAIT_MS) as sig:
        win.run_search()
    assert sig.args[0].hits == [] and win.status.files.get("indexed") == 3
    (win.docs / "lighthouse.txt").write_text("The lighthouse keeper logs every passing ship.\n", encoding="utf-8")
    harbour = tmp_path / "harbour"
    harbour.mkdir()
    (harbour / "pier.txt").write_text("A lighthouse stands at the end of the pier.\n", encoding="utf-8")

    assert win.statusBar().currentMessage().startswith("No results")
    index_in_a_terminal(win.data)  # re-sync: the new file in the indexed folder
    qtbot.waitUntil(lambda: shown_names(win) == {"lighthouse.txt"}, timeout=WAIT_MS)
    # nothing in this window said what the other process changed: the line says what is shown now, not the
    # "No results" of the search before it (it stayed for its 8 s over the new rows)
    assert win.statusBar().currentMessage().startswith("1 result")
    assert win.status.files.get("indexed") == 4
    assert win.labels.index.text() == "Library: 4 passages in 4 files"

    index_in_a_terminal(win.data, harbour)  # a new folder
    qtbot.waitUntil(lambda: shown_names(win) == {"lighthouse.txt", "pier.txt"}, timeout=WAIT_MS)
    assert str(harbour) in [r.path for r in win.status.roots]
    panel = win.library_panel.tree
    assert panel.topLevelItemCount() == 2
    assert win.other_writers.noticed >= 2 and win.last_dialog is None


def test_while_another_process_keeps_writing_the_counts_follow_and_the_results_wait_for_a_pause(qtbot, win):
    seen = []
    win.changed.connect(seen.append)
    ow = win.other_writers
    ow.timer.stop()  # ticks by hand: each check() is one poll
    marks = iter([(1,), (2,), (3,), (3,)])
    ow._mark_now = lambda: next(marks)
    ow.mark = (0,)
    for _ in range(3):  # it writes at every poll
        ow.check()
    assert [(c.elsewhere, c.index) for c in seen] == [(True, False)] * 3  # counts only: the list is left alone
    ow.check()  # a quiet poll: it paused
    assert (seen[-1].elsewhere, seen[-1].index) == (True, True) and len(seen) == 4
