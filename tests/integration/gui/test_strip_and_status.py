"""What the progress strip and the status line say during and after a long sync, in the real window at 1280×800
(offscreen): the counts and time left stay in sight with a folder queued, a resumed sync says it resumes, the
meaning line follows the library's coverage, and a sync's summary stays until something replaces it.
Screenshots go to $STRIP_SHOTS (default /tmp/strip-shots) for a person to look at."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

pytest.importorskip("pytestqt")

from PySide6.QtWidgets import QApplication

from conftest import build_tiny_library

from gui_window import WAIT_MS, close_window, shown_window

SHOTS = Path(os.environ.get("STRIP_SHOTS", "/tmp/strip-shots"))
TEXTS = {"volcano.txt": "The volcano erupted and molten rock flowed down to the sea.",
         "bread.md": "A recipe for sourdough bread with a long cold proof."}
EMBEDDING = "searchable by words · slowed for other programs: 1 of 2 threads · meaning: 1% of passages"


def shot(widget, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    QApplication.processEvents()  # labels just given new text are laid out before the grab
    assert widget.grab().save(str(SHOTS / name))


@pytest.fixture
def open_window(qtbot, tmp_path, tiny_bi_encoder_dir, tiny_encoder):
    from searchapp.base.config import load_config
    from searchapp.library import Library

    data = build_tiny_library(tmp_path, TEXTS, tiny_bi_encoder_dir, tiny_encoder)
    made = []

    def make():
        config = load_config(data, env={}, overrides={"index": {"backend": "exact"}, "models": {"reranker": ""}})
        lib = Library(config, encoder=tiny_encoder)
        win = shown_window(qtbot, config, lib)
        win.resize(1280, 800)
        made.append((win, lib))
        return win

    yield make
    for win, lib in made:
        close_window(win, lib)


def test_the_counts_and_time_left_stay_in_sight_with_a_folder_queued(qtbot, open_window):
    """The strip's one label was cut in the middle: with "Next: /tmp/s17/win/extra" beside it the counts went
    ("Indexing home — Searchable by words · …03 — 5.8 passages/s"). The folder names give way, never the counts."""
    from searchapp.base.progress import Progress

    win = open_window()
    strip = win.progress
    strip.start("Indexing home")
    strip.show_queued(["/tmp/s17/win/extra"])
    for i in range(12):  # 32 passages every 4 s: a rate and a time left
        strip.show_progress("Indexing home", Progress("embedding", 32 * i, 7403, EMBEDDING), 4.0 * i)
    QApplication.processEvents()
    shot(win, "strip_queued.png")
    shown = strip.label.text()
    assert "Embedding 352 / 7,403" in shown and "8.0 passages/s, about 15 min left" in shown, shown
    assert strip.queued.text() == "Next: /tmp/s17/win/extra"  # a short path is whole too
    strip.show_queued(["/home/someone/Documents/Projects/2025/a folder with a rather long name/and deeper still"])
    QApplication.processEvents()
    shown = strip.label.text()
    assert "Embedding 352 / 7,403" in shown and "about 15 min left" in shown, shown
    assert strip.queued.is_elided() and strip.queued.text().endswith("deeper still")


def test_reading_scans_shows_its_rate_and_time_left(qtbot, open_window):
    """OCR ran for 8 minutes with no time left on the strip, which says one for reading files and embedding."""
    from searchapp.base.progress import Progress

    win = open_window()
    strip = win.progress
    strip.start("Re-syncing")
    strip.show_queued(["/tmp/s17/win/extra"])
    for i in range(12):  # one file every 5 s
        strip.show_progress("Re-syncing", Progress("ocr", i, 94, f"scan{i:03d}.pdf"), 5.0 * i)
    shot(win, "strip_ocr.png")
    assert strip.rate == 0.2 and strip.eta_seconds == (94 - 11) * 5.0
    shown = strip.label.text()
    assert "Reading scans and images (OCR) 11 / 94 — 0.2 files/s, about 7 min left" in shown, shown
