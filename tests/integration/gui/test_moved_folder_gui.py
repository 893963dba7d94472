"""Moved… on a missing folder in the library pane, offscreen on a real tiny library: its menu (right-click) and the
Moved… button offer it, a folder chooser opens where the folder was, and the folder chosen replaces the missing one
with nothing embedded again (library/sync/moved.py, decision 0157); Undo puts the old place back."""

from __future__ import annotations

import pytest

pytest.importorskip("pytestqt")

from PySide6.QtCore import QDir, Qt
from PySide6.QtGui import QContextMenuEvent, QPainter
from PySide6.QtWidgets import QApplication

from gui_window import SHOTS, WAIT_MS, close_window, drop, shot, two_folder_window
from searchapp.gui.library_panel import MOVED_ACTION

TEXTS = {"volcano.txt": "The volcano erupted and molten rock flowed down to the sea.",
         "bread.md": "A recipe for sourdough bread with a long cold proof.",
         "notes.md": "Meeting notes: the volcano tour is booked for spring."}


@pytest.fixture
def win(qtbot, tmp_path, tiny_bi_encoder_dir, tiny_encoder):
    w, lib = two_folder_window(qtbot, tmp_path, TEXTS, tiny_bi_encoder_dir, tiny_encoder)
    w.resize(1280, 800)
    yield w
    close_window(w, lib)


def moved_on_disk(qtbot, win, tmp_path):
    """win.docs renamed to tmp_path/papers on disk, and the pane showing it missing: the new place."""
    new = tmp_path / "papers"
    win.docs.rename(new)
    with qtbot.waitSignal(win.statusRefreshed, timeout=WAIT_MS):
        win.refresh_status()
    assert [r.path for r in win.status.roots if r.missing] == [str(win.docs)]
    return new


def item_of(win, path):
    tree = win.library_panel.tree
    return next(tree.topLevelItem(i) for i in range(tree.topLevelItemCount())
                if tree.topLevelItem(i).data(0, Qt.ItemDataRole.UserRole) == str(path))


def right_click(win, path):
    """A real context-menu event on the folder's row, as a right-click sends it; the menu that opens."""
    tree = win.library_panel.tree
    pos = tree.visualItemRect(item_of(win, path)).center()
    event = QContextMenuEvent(QContextMenuEvent.Reason.Mouse, pos, tree.viewport().mapToGlobal(pos))
    QApplication.sendEvent(tree.viewport(), event)
    menu = win.library_panel.menu
    assert menu is not None and menu.isVisible()
    return menu


def shot_with_menu(win, menu, name: str) -> None:
    """The window as drawn now with its open menu painted where it is (a menu is a window of its own)."""
    QApplication.processEvents()
    picture = win.grab()
    painter = QPainter(picture)
    painter.drawPixmap(win.mapFromGlobal(menu.pos()), menu.grab())
    painter.end()
    SHOTS.mkdir(parents=True, exist_ok=True)
    assert picture.save(str(SHOTS / name))


def test_moved_on_a_missing_folder_follows_it_with_its_meaning_kept(qtbot, win, tmp_path):
    from searchapp.library.query.saved import SavedSearches

    saved = SavedSearches(win.session.library)
    saved.add("Ducks", f"volcano in:{win.docs}")  # follows the move, and its undo (decision 0196)
    new = moved_on_disk(qtbot, win, tmp_path)
    panel = win.library_panel
    assert panel.moved_button.isVisible() and not panel.moved_button.isEnabled()  # no folder selected yet

    menu = right_click(win, win.docs)
    texts = [a.text() for a in menu.actions() if not a.isSeparator()]
    assert texts == [MOVED_ACTION, "Re-sync", "Remove…"]
    assert panel.selected_roots() == [str(win.docs)] and panel.moved_button.isEnabled()
    shot_with_menu(win, menu, "moved_menu.png")

    next(a for a in menu.actions() if a.text() == MOVED_ACTION).trigger()
    menu.close()
    dlg = panel.folder_dialog
    assert dlg is not None and dlg.isVisible() and dlg.objectName() == "movedDialog"
    assert QDir(dlg.directory()).absolutePath() == str(tmp_path)  # where the folder was
    dlg.selectFile(str(new))
    with qtbot.waitSignal(win.writesIdle, timeout=WAIT_MS):
        dlg.accept()

    assert sorted(r.path for r in win.status.roots) == sorted([str(new), str(win.other)])
    said = win.statusBar().currentMessage()
    assert f"{win.docs} is now {new}: 3 files, 0 passages embedded (meaning reused); 1 saved search follows it " \
        "(Ducks)" in said, said
    assert saved.get("Ducks").query == f"volcano in:{new}"
    assert not panel.moved_button.isVisible()  # nothing is missing now
    # Undo undoes the move: the old place back and the new one out (put back alone, both stood in the library,
    # every file twice: a newcomer)
    undo = win.writes.undo.button
    assert undo.isVisible() and undo.text() == "Undo move of docs"
    with qtbot.waitSignal(win.writesIdle, timeout=WAIT_MS):
        undo.click()
    assert sorted(r.path for r in win.status.roots) == sorted([str(win.docs), str(win.other)])
    said = win.statusBar().currentMessage()
    assert f"{new} is out of the library again; saved search Ducks put back as before the move" in said, said
    assert saved.get("Ducks").query == f"volcano in:{win.docs}"


def test_a_folder_that_is_there_has_no_moved_and_the_button_hides(qtbot, win):
    menu = right_click(win, win.other)
    assert MOVED_ACTION not in [a.text() for a in menu.actions()]
    menu.close()
    assert not win.library_panel.moved_button.isVisible()


def test_the_moved_button_opens_the_chooser_for_the_selected_missing_folder(qtbot, win, tmp_path):
    moved_on_disk(qtbot, win, tmp_path)
    panel = win.library_panel
    item_of(win, win.docs).setSelected(True)
    qtbot.mouseClick(panel.moved_button, Qt.MouseButton.LeftButton)
    dlg = panel.folder_dialog
    assert dlg is not None and dlg.isVisible() and dlg.windowTitle() == "Where is docs now?"
    item_of(win, win.other).setSelected(True)  # two folders: Moved… finds one at a time
    assert not panel.moved_button.isEnabled()


def test_the_menus_re_sync_and_remove_act_on_the_same_folders(qtbot, win):
    """Two folders selected, the menu of one: Re-sync synced the one right-clicked while Remove… asked about both
    (found by the review). Both act on the selection, as the buttons below do."""
    item_of(win, win.docs).setSelected(True)
    item_of(win, win.other).setSelected(True)
    menu = right_click(win, win.other)
    with qtbot.waitSignal(win.library_panel.resyncRequested, timeout=WAIT_MS) as asked:
        next(a for a in menu.actions() if a.text() == "Re-sync").trigger()
    menu.close()
    assert sorted(asked.args[0]) == sorted([str(win.docs), str(win.other)])


def test_undo_of_a_move_after_the_new_place_was_taken_into_a_folder_added_since(qtbot, win, tmp_path):
    """Within the Undo's minute the folder holding the new place was added (dropped on the window): the new place
    is part of it now, no folder of its own. Undo put the old place back, then failed to take the new one out and
    said only that error (`… is not an indexed folder of its own …`, with advice on exclude), not that the old
    place was back. It says the old place is back and leaves the folder added since as it is."""
    shelf = tmp_path / "shelf"
    shelf.mkdir()
    new = shelf / "papers"
    win.docs.rename(new)
    with qtbot.waitSignal(win.writesIdle, timeout=WAIT_MS):
        win.writes.moved_root(str(win.docs), str(new))
    assert win.writes.undo.button.text() == "Undo move of docs"
    with qtbot.waitSignal(win.writesIdle, timeout=WAIT_MS):
        drop(win, [shelf])
    assert sorted(r.path for r in win.status.roots) == sorted([str(shelf), str(win.other)])
    with qtbot.waitSignal(win.writesIdle, timeout=WAIT_MS):
        win.writes.undo.button.click()
    said = win.statusBar().currentMessage()
    assert said.startswith(f"{win.docs} is back (3 files)") and "not an indexed folder" not in said, said
    assert sorted(r.path for r in win.status.roots) == sorted([str(win.docs), str(shelf), str(win.other)])


def test_a_move_stopped_halfway_is_said_in_the_pane_with_the_way_on(qtbot, win, tmp_path):
    """A Moved… stopped by Cancel left both places in the library and the pane said nothing of why, where `status`
    said "[a move here from OLD stopped halfway: `searchapp moved OLD NEW` goes on]": the pane says it too, and
    Moved… on the old place opens at the new one."""
    from searchapp.base.errors import Cancelled
    from searchapp.base.progress import CancelToken
    from searchapp.library.sync.moved import follow_move

    new = moved_on_disk(qtbot, win, tmp_path)
    token = CancelToken()
    with pytest.raises(Cancelled):  # the person's Cancel, as soon as the move reports anything
        follow_move(win.session.library, str(win.docs), str(new), lambda p: token.cancel(), token, undo_file=False)
    with qtbot.waitSignal(win.statusRefreshed, timeout=WAIT_MS):
        win.refresh_status()
    panel = win.library_panel
    note = panel.moves_note
    assert note.isVisible() and note.textFormat() == Qt.TextFormat.PlainText
    assert note.text() == ("Moving docs to papers stopped halfway: both are listed. To go on, select docs, then "
                           "Moved…, and choose papers again.")
    assert f"`searchapp moved {win.docs} {new}`" in note.toolTip()
    row = item_of(win, new)
    assert row.text(0).endswith(" (move stopped)") and f"A move here from {win.docs} stopped" in row.toolTip(0)
    assert f"Its move to {new} stopped halfway" in item_of(win, win.docs).toolTip(0)
    dlg = panel.ask_moved(str(win.docs))
    assert dlg.selectedFiles() == [str(new)]
    dlg.reject()
    shot(win, "move-stopped-pane.png")
