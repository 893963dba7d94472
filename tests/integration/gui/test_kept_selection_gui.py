"""A search the window runs again by itself (meaning loaded, a sync ended, another process wrote the library) keeps
the result the person selected: the same file selected again, its preview where they had scrolled it. A newcomer
clicked a result and lost it seconds later, three times, to re-runs they never asked for."""

from __future__ import annotations

import pytest

pytest.importorskip("pytestqt")

from gui_window import WAIT_MS, search, shot, tiny_window

# One long file, so its preview has somewhere to scroll to, and others the query finds too.
LONG = "\n\n".join(f"Paragraph {i}: the harbour master logged every boat that came in on the tide." for i in range(200))
TEXTS = {"logbook.txt": LONG,
         "boats.txt": "Small boats wait in the harbour for the tide to turn.",
         "lights.txt": "The harbour lights were repaired after the storm."}


@pytest.fixture
def win(qtbot, tmp_path, tiny_bi_encoder_dir, tiny_encoder):
    yield from tiny_window(qtbot, tmp_path, TEXTS, tiny_bi_encoder_dir, tiny_encoder)


def _select(qtbot, win, name: str) -> int:
    """Select the row of the file `name`, wait for its preview; the row."""
    model = win.search.results_model
    row = next(r for r in range(model.rowCount()) if model.hit(r).path.endswith(name))
    with qtbot.waitSignal(win.previewShown, timeout=WAIT_MS):
        win.search.results_view.setCurrentIndex(model.index(row, 0))
    return row


def _selected_path(win) -> str:
    hit = win.selected_hit()
    return hit.path if hit is not None else ""


def test_a_search_run_again_by_itself_keeps_the_selected_file_and_its_preview(qtbot, win):
    from searchapp.gui.changes import Changes

    result = search(qtbot, win, "harbour boat tide", mode="lexical")
    assert len(result.hits) == 3
    _select(qtbot, win, "logbook.txt")
    bar = win.preview.browser.verticalScrollBar()
    assert bar.maximum() > 0  # the long file's text is in the preview
    bar.setValue(bar.maximum() // 3)  # the person scrolled down to read on
    scrolled, title = bar.value(), win.preview.title.text()
    def meaning_loaded():  # the answer shown was by words while the models loaded (MODEL_LOADING): now they are
        win.search.by_words = True
        win.search.models_loaded()

    # Meaning finished loading, another process's sync ended (other_writers.py), the window's own Re-sync ended:
    # each runs the search again by itself.
    for change in (meaning_loaded, lambda: win.changed.emit(Changes(files=True, elsewhere=True)),
                   lambda: win.resync(None)):
        with qtbot.waitSignal(win.searchFinished, timeout=WAIT_MS):
            change()
        qtbot.waitUntil(lambda: not win.runner.busy_writing(), timeout=WAIT_MS)
        qtbot.wait(200)  # a preview read again would land by now
        assert _selected_path(win).endswith("logbook.txt")
        assert win.preview.hit is not None and win.preview.hit.path.endswith("logbook.txt")
        assert win.preview.title.text() == title
        assert bar.value() == scrolled
    shot(win, "kept-selection.png")


def test_the_persons_own_search_still_starts_with_no_selection(qtbot, win):
    search(qtbot, win, "harbour boat tide", mode="lexical")
    _select(qtbot, win, "logbook.txt")
    search(qtbot, win, "harbour lights", mode="lexical")  # a new query: a new list, nothing chosen in it yet
    assert win.selected_hit() is None
    assert win.preview.hit is None


def test_a_selected_file_gone_from_the_new_list_leaves_the_preview_quietly(qtbot, win):
    search(qtbot, win, "harbour boat tide", mode="lexical")
    _select(qtbot, win, "boats.txt")
    (win.docs / "boats.txt").unlink()
    with qtbot.waitSignals([win.writesIdle, win.searchFinished], timeout=WAIT_MS):
        win.resync(None)
    assert win.search.results_model.rowCount() == 2
    assert win.selected_hit() is None  # nothing else chosen in its place
    assert win.preview.hit is None
    assert win.preview.title.text() == "Select a result to see it in its file."
