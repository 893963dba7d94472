"""GUI: the filter bar, "Similar files" and the Duplicates window, offscreen on a real library (packaged MiniLM)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

pytest.importorskip("pytestqt")

from PySide6.QtCore import QUrl

import discover_corpus

from gui_window import WAIT_MS, shown_window
REPO = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="module")
def indexed(tmp_path_factory, packaged_encoder):
    from searchapp.base.config import load_config
    from searchapp.library import Library

    root = tmp_path_factory.mktemp("discover-gui")
    docs = discover_corpus.make(root / "docs")
    config = load_config(root / "library", env={}, overrides={"search": {"rerank": False}})
    with Library(config, encoder=packaged_encoder) as lib:
        lib.add_folder(docs)
    return docs, config


@pytest.fixture
def win(qtbot, indexed, packaged_encoder):
    from searchapp.library import Library

    docs, config = indexed
    lib = Library(config, encoder=packaged_encoder)
    w = shown_window(qtbot, config, lib)
    w.docs = docs
    yield w
    w.close()
    lib.close()


def shown_paths(w) -> list[str]:
    return [Path(w.search.results_model.hit(r).path).relative_to(w.docs).as_posix() for r in range(w.search.results_model.rowCount())]


def test_filter_bar_restricts_search(qtbot, win):
    win.search.search_box.setText("molten rock from a volcano")
    win.filter_bar.folder.setText(str(win.docs / "old"))
    with qtbot.waitSignal(win.searchFinished, timeout=WAIT_MS):
        win.run_search()
    assert shown_paths(win) and all(p.startswith("old/") for p in shown_paths(win))
    assert shown_paths(win)[0] == "old/volcano.txt"
    win.filter_bar.types.setText("md")
    with qtbot.waitSignal(win.searchFinished, timeout=WAIT_MS):
        win.run_search()
    assert shown_paths(win) and all(p.startswith("old/") and p.endswith(".md") for p in shown_paths(win))
    win.filter_bar.types.setText("p d f")  # not an extension: shown in red, the field is ignored
    assert win.filter_bar.filters().types == () and "Types" in win.filter_bar.error.text()
    win.filter_bar.clear()
    assert win.filter_bar.filters() is None and win.filter_bar.error.text() == ""


def test_similar_files_from_a_result(qtbot, win):
    with qtbot.waitSignal(win.searchFinished, timeout=WAIT_MS) as sig:
        win.discover.show_similar(str(win.docs / "reports" / "original.txt"))
    assert sig.args[0].mode == "similar"
    assert shown_paths(win)[0] == "drafts/reworded.md"
    assert "reports/original.txt" not in shown_paths(win) and "reports/copy.txt" not in shown_paths(win)
    # its exact copy is the same file, said on the status line, not the first "similar" row
    assert f"the same file elsewhere: {win.docs / 'reports' / 'copy.txt'}" in win.statusBar().currentMessage()
    # The context menu of a result offers it too.
    rect = win.search.results_view.visualRect(win.search.results_model.index(0, 0))
    menu = win.discover.context_menu(rect.center())
    assert "Similar files" in [a.text() for a in menu.actions()]


def test_duplicates_window_side_by_side_open_and_show_in_folder(qtbot, win):
    dw = win.discover.open_duplicates(threshold=0.75)
    qtbot.waitUntil(lambda: dw.report is not None and dw.refresh_button.isEnabled(), timeout=WAIT_MS)
    assert "1 group of exact copies" in dw.summary.text()
    pair = dw.selected_pair()  # the best near pair is selected first
    assert pair is not None and pair.similarity == max(p.similarity for p in dw.report.near)
    item = next(dw.tree.topLevelItem(1).child(i) for i in range(dw.tree.topLevelItem(1).childCount())
                if "reworded.md" in dw.tree.topLevelItem(1).child(i).text(0)
                and "original.txt" in dw.tree.topLevelItem(1).child(i).text(0))
    dw.tree.setCurrentItem(item)
    assert "Each morning" in dw.side_a.browser.toPlainText()
    assert "Our sourdough" in dw.side_b.browser.toPlainText()
    dw.side_a.open_button.click()
    dw.side_b.folder_button.click()
    assert win.opened == [QUrl.fromLocalFile(str(win.docs / "drafts" / "reworded.md")),
                          QUrl.fromLocalFile(str(win.docs / "reports"))]
    exact_group = dw.tree.topLevelItem(0).child(0)
    dw.tree.setCurrentItem(exact_group)
    assert dw.side_a.path.endswith("copy.txt") and dw.side_b.path.endswith("original.txt")


def test_duplicates_screenshot(qtbot, win, tmp_path):
    """Renders the Duplicates window; SEARCHAPP_UPDATE_SCREENSHOT=1 keeps it for docs/cli.md."""
    dw = win.discover.open_duplicates(threshold=0.75)
    qtbot.waitUntil(lambda: dw.report is not None and dw.refresh_button.isEnabled(), timeout=WAIT_MS)
    dw.resize(1200, 560)
    img = dw.grab().toImage()
    out = tmp_path / "duplicates.png"
    assert img.save(str(out)) and img.width() == 1200
    colours = {img.pixel(x, y) for x in range(0, img.width(), 37) for y in range(0, img.height(), 29)}
    assert len(colours) > 10  # a real rendering, not a blank surface
    if os.environ.get("SEARCHAPP_UPDATE_SCREENSHOT"):
        shutil.copy(out, REPO / "resources" / "duplicates.png")
