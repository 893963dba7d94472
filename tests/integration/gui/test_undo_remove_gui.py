"""Undo after Remove in the window: the status bar offers "Undo remove of NAME"; it puts the folder back at once
(its files, passages and results, nothing embedded again); another write withdraws the offer."""

from __future__ import annotations

import pytest

pytest.importorskip("pytestqt")

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox

from gui_window import WAIT_MS, close_window, two_folder_window

TEXTS = {"volcano.txt": "The volcano erupted and molten rock flowed down to the sea.",
         "bread.md": "A recipe for sourdough bread with a long cold proof."}


@pytest.fixture
def win(qtbot, tmp_path, tiny_bi_encoder_dir, tiny_encoder):
    w, lib = two_folder_window(qtbot, tmp_path, TEXTS, tiny_bi_encoder_dir, tiny_encoder)
    yield w
    close_window(w, lib)


def remove(qtbot, win, path) -> None:
    tree, panel = win.library_panel.tree, win.library_panel
    tree.clearSelection()
    next(tree.topLevelItem(i) for i in range(tree.topLevelItemCount())
         if tree.topLevelItem(i).data(0, Qt.ItemDataRole.UserRole) == str(path)).setSelected(True)
    qtbot.mouseClick(panel.remove_button, Qt.MouseButton.LeftButton)
    with qtbot.waitSignal(win.writesIdle, timeout=WAIT_MS):
        panel.remove_prompt.findChild(type(panel.remove_prompt.defaultButton()), "removeConfirm").click()


def lexical(qtbot, win, text: str):
    win.search.mode_box.set_mode("lexical")
    win.search.search_box.setText(text)
    with qtbot.waitSignal(win.searchFinished, timeout=WAIT_MS) as sig:
        win.run_search()
    return sig.args[0]


def test_undo_after_remove_puts_the_folder_back_at_once(qtbot, win):
    before = win.status
    assert [h.path for h in lexical(qtbot, win, "volcano").hits]
    remove(qtbot, win, win.docs)
    undo = win.writes.undo.button
    assert [r.path for r in win.status.roots] == [str(win.other)]
    assert undo.isVisible() and undo.text() == "Undo remove of docs"
    assert lexical(qtbot, win, "volcano").hits == []

    said = []
    win.statusBar().messageChanged.connect(said.append)
    with qtbot.waitSignal(win.writesIdle, timeout=WAIT_MS):
        qtbot.mouseClick(undo, Qt.MouseButton.LeftButton)
    assert not undo.isVisible() and f"{win.docs} is back (2 files)" in said
    st = win.status
    assert sorted(r.path for r in st.roots) == sorted(r.path for r in before.roots)
    assert (st.chunks, st.embedded, st.vectors) == (before.chunks, before.embedded, before.vectors) and st.consistent
    assert [h.path.rsplit("/", 1)[-1] for h in lexical(qtbot, win, "volcano").hits] == ["volcano.txt"]


def test_another_write_keeps_the_undo_and_a_folder_indexed_again_is_refused_in_a_line(qtbot, win):
    """A re-sync of the other folder (or a command-line index) touched nothing Undo puts back: the offer stays and
    works (decision 0147). The folder itself added again: Undo says why it cannot, with no dialog."""
    remove(qtbot, win, win.docs)
    undo = win.writes.undo.button
    assert undo.isVisible()
    with qtbot.waitSignal(win.writesIdle, timeout=WAIT_MS):
        win.resync(None)
    assert undo.isVisible()
    with qtbot.waitSignal(win.writesIdle, timeout=WAIT_MS):
        qtbot.mouseClick(undo, Qt.MouseButton.LeftButton)
    assert sorted(r.path for r in win.status.roots) == sorted([str(win.docs), str(win.other)])

    remove(qtbot, win, win.docs)
    with qtbot.waitSignal(win.writesIdle, timeout=WAIT_MS):
        win.add_paths([str(win.docs)])
    said = []
    win.statusBar().messageChanged.connect(said.append)
    with qtbot.waitSignal(win.writesIdle, timeout=WAIT_MS):
        qtbot.mouseClick(undo, Qt.MouseButton.LeftButton)
    assert any(m.startswith(f"Cannot undo: {win.docs} was indexed again") for m in said), said
    assert win.status.consistent and win.findChild(QMessageBox, "removePrompt") is None
