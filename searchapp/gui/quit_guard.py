"""Quitting while indexing: the window asks first ("Indexing is under way: quit and resume next time?"), with
Keep indexing the default. On Quit the sync stops at its next batch (every finished file is kept), gui.ini
remembers to resume, and the next start re-syncs every indexed folder, words first then meaning, as
`searchapp index` does, saying so in the status line."""

from __future__ import annotations

from typing import Callable, Optional

from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import QMessageBox

from .window_tools import WindowTools

__all__ = ["QuitGuard", "RESUME_KEY"]

RESUME_KEY = "resume_sync"


class QuitGuard:
    def __init__(self, tools: WindowTools, ui: QSettings, quit: Callable[[], object],
                 resync: Callable[[], None]) -> None:
        self.tools, self.ui, self.quit, self.resync = tools, ui, quit, resync
        self.confirmed = False  # Quit was chosen: the close goes through
        self.prompt: Optional[QMessageBox] = None

    def should_ask(self) -> bool:
        return self.tools.runner.busy_writing() and not self.confirmed

    def ask(self) -> QMessageBox:
        box = QMessageBox(QMessageBox.Icon.Question, "Quit searchapp",
                          "Indexing is under way: quit and resume next time?\n\nEverything indexed so far is kept; "
                          "the next time searchapp starts it goes on where it stopped (words first, then meaning).",
                          QMessageBox.StandardButton.NoButton, self.tools.parent)
        box.setObjectName("quitPrompt")
        box.setTextFormat(Qt.TextFormat.PlainText)
        box.setWindowModality(Qt.WindowModality.WindowModal)
        go = box.addButton("Quit and resume next time", QMessageBox.ButtonRole.AcceptRole)
        go.setObjectName("quitConfirm")
        keep = box.addButton("Keep indexing", QMessageBox.ButtonRole.RejectRole)
        keep.setObjectName("quitKeep")
        box.setDefaultButton(keep)  # Enter keeps indexing
        box.setEscapeButton(keep)
        go.clicked.connect(self._quit)
        box.open()
        self.prompt = box
        self.tools.dialog_shown(box)
        return box

    def _quit(self) -> None:
        if self.tools.runner.busy_writing():  # it may have finished while the question was open
            self.ui.setValue(RESUME_KEY, True)
            self.ui.sync()
        self.confirmed = True
        self.quit()

    def resume_if_asked(self) -> bool:
        """At start: resume the indexing a Quit stopped; True when it did."""
        if str(self.ui.value(RESUME_KEY, "")).lower() not in ("true", "1"):
            return False
        self.ui.remove(RESUME_KEY)
        self.ui.sync()
        self.tools.say("Resuming the indexing stopped when searchapp quit: words first, then meaning.", 15000)
        self.resync()
        return True
