"""The desktop app marks a missing folder in the library panel and hits from it as unavailable,
from the data the Library provides (the GUI never reads the database itself)."""

from __future__ import annotations

import pytest

pytest.importorskip("pytestqt")

from PySide6.QtCore import Qt

from searchapp.base.types import Hit
from searchapp.gui.library_panel import LibraryPanel
from searchapp.gui.results_model import ResultsModel
from searchapp.library import Library


def test_panel_and_results_mark_a_missing_folder(qtbot, make_config, tiny_encoder, tmp_path):
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "a.txt").write_text("Walrus tusks grow throughout life.", encoding="utf-8")
    with Library(make_config(models={"reranker": ""}), encoder=tiny_encoder) as lib:
        lib.add_folder(notes)
        notes.rename(tmp_path / "moved")
        lib.sync()
        st = lib.status()
        hits = lib.search("walrus tusks", mode="lexical").hits
    panel = LibraryPanel()
    qtbot.addWidget(panel)
    panel.set_status(st)
    item = panel.tree.topLevelItem(0)
    assert "(missing)" in item.text(0) and "Missing:" in item.toolTip(0)
    assert panel.selected_roots() == [] and item.data(0, Qt.ItemDataRole.UserRole) == str(notes)

    model = ResultsModel()
    model.set_hits(hits, ["walrus"])
    assert "(unavailable)" in model.data(model.index(0, ResultsModel.COLUMNS.index("File")))
    model.set_hits([Hit(1, str(tmp_path / "moved" / "a.txt"), None, 0, 5, "Walrus")], ["walrus"])
    assert "(unavailable)" not in model.data(model.index(0, ResultsModel.COLUMNS.index("File")))


def test_results_say_whose_file_a_shared_librarys_hit_is(qtbot):
    """A shared library's hits carry the machine that indexed each (Hit.machine; SearchResult.here is the one
    answering): the window's list named none of them (a newcomer's team hour); another machine's file says whose it
    is, also where it cannot be opened here, and this machine's own are not marked."""
    theirs = Hit(1, "/mnt/share/a.txt", None, 0, 5, "Walrus", machine="desk-a", indexed_path="/srv/share/a.txt")
    gone = Hit(2, "/mnt/share/b.txt", None, 0, 5, "Walrus", machine="desk-a", indexed_path="/srv/share/b.txt",
               available=False)
    own = Hit(3, "/home/b/c.txt", None, 0, 5, "Walrus", machine="desk-b", indexed_path="/home/b/c.txt")
    model = ResultsModel()
    model.set_hits([theirs, gone, own], ["walrus"], here="desk-b")
    files = [model.data(model.index(i, ResultsModel.COLUMNS.index("File"))) for i in range(3)]
    assert files == ["a.txt  (desk-a's)", "b.txt  (desk-a's, unavailable here)", "c.txt"]
    model.set_hits([theirs], ["walrus"])  # a desktop library's result says no machine: nothing marked
    assert model.data(model.index(0, ResultsModel.COLUMNS.index("File"))) == "a.txt"
