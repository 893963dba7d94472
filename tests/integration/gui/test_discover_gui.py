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
    pair = dw.selected_pair()  # the surest group is selected first: here a pair, the best
    assert pair is not None and pair.similarity == max(p.similarity for p in dw.report.near)
    # the rewording, the original and its copy are one group of three: their pairs are inside it
    group = next(g for g in children(dw.tree.topLevelItem(1)) if "files ≈" in g.text(0)
                 and any("reworded.md" in f.text(0) for f in children(g)))
    assert sorted(Path(f.text(0)).name for f in children(group)[:3]) == ["copy.txt", "original.txt", "reworded.md"]
    item = next(p for p in children(children(group)[3]) if "reworded.md" in p.text(0) and "original.txt" in p.text(0))
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


def children(item) -> list:
    return [item.child(i) for i in range(item.childCount())]


def test_near_duplicates_are_listed_in_groups(qtbot):
    """Four daily notes from one template were six pair rows, twelve versions of a report 66: the window lists
    each group once, its files, the lowest and highest similarity inside it, its pairs folded under it; selected,
    it shows its weakest pair. A chain (v1 ~ v2 ~ v3, v1 and v3 not near) says so. No library, no model."""
    from itertools import combinations

    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QApplication

    from searchapp.gui.duplicates_window import DuplicatesWindow
    from searchapp.gui.name_first import NAME_FIRST_ROLE
    from searchapp.library import DuplicateReport, NearPair, PassagePair

    notes = [f"/home/me/Notes/2026-11-0{d}.md" for d in range(2, 6)]
    near = [NearPair(notes[i], notes[j], 0.93 + 0.01 * (i + j), [PassagePair(0.97, f"note {i}", f"note {j}")])
            for i, j in combinations(range(4), 2)]
    v1, v2, v3 = "/home/me/Work/v1.txt", "/home/me/Work/v2.txt", "/home/me/Work/<b>v3.txt"
    near += [NearPair(v1, v2, 0.95), NearPair(v3, v2, 0.85)]
    # three files as alike as each other: one similarity, not the range "0.996–0.996" (a newcomer, n7)
    pumps = ["/home/me/heatpump.md", "/home/me/heatpump (1).md", "/home/me/heatpump-v2.md"]
    near += [NearPair(a, b, 0.9) for a, b in combinations(pumps, 2)]
    days = [f"/home/me/Logs/day-{d:02d}.txt" for d in range(30)]  # a long chain: the tree scrolls, as at home
    near += [NearPair(a, b, 0.82) for a, b in zip(days, days[1:], strict=False)]
    near.sort(key=lambda p: -p.similarity)
    dw = DuplicatesWindow(0.8)
    qtbot.addWidget(dw)
    dw.resize(1200, 640)  # its own size, in a 1280x800 window
    dw.show()
    # a shared library's: another machine's file, and one not to be read here, marked as the results list marks them
    dw.set_report(DuplicateReport(exact=[], near=near, threshold=0.8, whose={notes[0]: "desk-a", notes[1]: "desk-a"},
                                  unavailable={notes[1]: "file or folder missing", notes[2]: "not answering"}))
    assert dw.summary.text().startswith("0 groups of exact copies, 4 groups of near duplicates (40 pairs, threshold")
    top = dw.tree.topLevelItem(1)
    assert top.text(0) == "Near duplicates (4 groups)"
    template, alike, versions, _ = children(top)  # the surest group first
    assert (alike.text(0), alike.text(1)) == ("3 files ≈ heatpump.md", "0.900")
    assert (template.text(0), template.text(1)) == ("4 files ≈ 2026-11-02.md", "0.940–0.980")
    assert [f.text(0) for f in children(template)[:4]] == notes
    assert [f.data(0, NAME_FIRST_ROLE)[0] for f in children(template)[:4]] == [
        "2026-11-02.md  (desk-a's)", "2026-11-03.md  (desk-a's, unavailable here)", "2026-11-04.md  (unavailable)",
        "2026-11-05.md"]
    inside = children(template)[4]
    assert inside.text(0) == "Near pairs inside (6)" and inside.childCount() == 6
    assert template.isExpanded() and not inside.isExpanded()  # its files shown, its pairs folded
    # selected first: the surest group, showing its weakest pair
    assert dw.tree.currentItem() is template
    assert (dw.selected_pair().a, dw.selected_pair().b) == (notes[0], notes[1])
    assert dw.note.text().startswith("4 files linked by 6 near pairs, similarity 0.940–0.980. Shown: the weakest")
    assert "Below 0.90" not in dw.note.text()
    dw.tree.setCurrentItem(children(template)[2])  # a file: beside its nearest in the group, on the left
    assert (dw.side_a.path, dw.side_b.path) == (notes[2], notes[3])
    dw.tree.setCurrentItem(children(template)[3])
    assert (dw.side_a.path, dw.side_b.path) == (notes[3], notes[2]) and dw.side_a.browser.toPlainText().endswith("note 3")
    # the chain: two of its files are not near at all; said, with the caution, as plain text
    assert (versions.text(0), versions.text(1)) == ("3 files ≈ v1.txt", "<0.80–0.950")
    # the similarity is read whole, not cut at the window's edge ("<0.80–0.9" at 1280x800)
    QApplication.processEvents()  # laid out: the last column takes what the first leaves
    seen = dw.tree.viewport().width() - dw.tree.header().sectionViewportPosition(1)  # the column's part in view
    assert seen >= dw.tree.fontMetrics().horizontalAdvance(versions.text(1)) + 8, seen
    dw.tree.setCurrentItem(versions)
    assert dw.note.textFormat() == Qt.TextFormat.PlainText
    assert ("Not every two are near duplicates: <b>v3.txt and v1.txt are linked only through 1 other file "
            "(1 of 3 pairs of files are not near duplicates).") in dw.note.text()
    assert "Below 0.90 two files are often different documents" in dw.note.text()
    assert dw.selected_pair().similarity == 0.85


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
