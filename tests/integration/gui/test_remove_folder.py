"""Remove in the library pane, offscreen on a real tiny library: it asks first, naming the folder and how many of
its files are indexed, with Cancel the default (Enter keeps the index); only Remove forgets the folder."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("pytestqt")

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox

from gui_window import WAIT_MS, close_window, shot, two_folder_window

TEXTS = {"volcano.txt": "The volcano erupted and molten rock flowed down to the sea.",
         "bread.md": "A recipe for sourdough bread with a long cold proof.",
         "notes.md": "Meeting notes: the volcano tour is booked for spring."}


@pytest.fixture
def win(qtbot, tmp_path, tiny_bi_encoder_dir, tiny_encoder):
    w, lib = two_folder_window(qtbot, tmp_path, TEXTS, tiny_bi_encoder_dir, tiny_encoder)
    yield w
    close_window(w, lib)


def roots(win) -> list[str]:
    return [r.path for r in win.status.roots]


def click_remove_on(qtbot, win, path: Path) -> QMessageBox:
    tree, panel = win.library_panel.tree, win.library_panel
    item = next(tree.topLevelItem(i) for i in range(tree.topLevelItemCount())
                if tree.topLevelItem(i).data(0, Qt.ItemDataRole.UserRole) == str(path))
    tree.clearSelection()
    item.setSelected(True)
    qtbot.mouseClick(panel.remove_button, Qt.MouseButton.LeftButton)
    prompt = panel.remove_prompt
    assert prompt is not None and prompt.isVisible() and prompt.objectName() == "removePrompt"
    return prompt


def test_remove_asks_naming_the_folder_and_its_files_and_cancel_keeps_it(qtbot, win, tmp_path):
    seen = []
    win.changed.connect(seen.append)
    prompt = click_remove_on(qtbot, win, win.docs)
    text = prompt.text()
    assert str(win.docs) in text and "3 files" in text and "stay where they are" in text
    assert prompt.textFormat() == Qt.TextFormat.PlainText
    assert prompt.defaultButton() is prompt.button(QMessageBox.StandardButton.Cancel)
    shot(prompt, "remove_prompt.png")
    qtbot.keyClick(prompt, Qt.Key.Key_Return)  # the default: Cancel
    qtbot.waitUntil(lambda: win.findChild(QMessageBox, "removePrompt") is None, timeout=WAIT_MS)  # closed, gone
    assert not win.runner.busy_writing() and seen == []  # nothing was submitted, nothing changed
    assert str(win.docs) in roots(win) and win.library.status().roots[0].files + win.library.status().roots[1].files == 4

    prompt = click_remove_on(qtbot, win, win.docs)
    with qtbot.waitSignal(win.writesIdle, timeout=WAIT_MS):
        prompt.findChild(type(prompt.defaultButton()), "removeConfirm").click()
    assert roots(win) == [str(win.other)]


def test_removing_two_folders_names_both(qtbot, win):
    tree = win.library_panel.tree
    for i in range(tree.topLevelItemCount()):
        tree.topLevelItem(i).setSelected(True)
    qtbot.mouseClick(win.library_panel.remove_button, Qt.MouseButton.LeftButton)
    prompt = win.findChild(QMessageBox, "removePrompt")
    assert "2 folders" in prompt.text() and str(win.docs) in prompt.text() and str(win.other) in prompt.text()
    assert "(1 file," in prompt.text()  # the lamp's folder: one file, singular
    with qtbot.waitSignal(win.writesIdle, timeout=WAIT_MS):
        prompt.findChild(type(prompt.defaultButton()), "removeConfirm").click()
    assert roots(win) == []
