"""Quitting while indexing: the window asks first ("Indexing is under way: quit and resume next time?"), with
Keep indexing the default. On Quit the sync stops at its next batch (every finished file is kept), gui.ini
remembers to resume, and the next start re-syncs every indexed folder, words first then meaning, as
`searchapp index` does, saying so in the status line and, for as long as it runs, in the strip's title (the
status line is soon another's: the restored query's "10 results in 81 ms" took it within a second).

A window that never got to ask (killed, a crash, the power gone) resumes too: gui.ini says "interrupted" while a
sync runs and forgets it when the writes end, so a start that still finds it re-syncs the same way, once: the
resumed sync says "resuming", and a start that finds that (the resumed sync died too: a file that crashes a reader
would crash every start) resumes nothing and says so. A start while another process writes the library (a
second window syncing) is no start after a crash: the flag is that window's."""

from __future__ import annotations

import json
from typing import Callable, Optional

from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import QMessageBox

from .window_tools import WindowTools

__all__ = ["QuitGuard", "RESUME_KEY", "QUIT", "INTERRUPTED", "RESUMING", "ADDS_KEY", "RESUMED_QUIT",
           "RESUMED_CRASH"]

RESUME_KEY = "resume_sync"
# its values: a Quit asked to resume; a sync was running; the sync resumed after a crash is running
QUIT, INTERRUPTED, RESUMING = "quit", "interrupted", "resuming"
ADDS_KEY = "resume_adds"  # folders added but not started when it stopped: added again when it resumes
# the resumed sync's title in the progress strip, after a Quit and after a crash
RESUMED_QUIT, RESUMED_CRASH = "Resuming the indexing stopped at quit", "Resuming the indexing cut short last time"


class QuitGuard:
    def __init__(self, tools: WindowTools, ui: QSettings, quit: Callable[[], object],
                 resync: Callable[[str], object], other_writer: Callable[[], bool] = lambda: False,
                 add: Callable[[list[str]], None] = lambda paths: None) -> None:
        self.tools, self.ui, self.quit, self.add = tools, ui, quit, add
        self.resync = resync  # a sync of every folder, its title in the strip given
        self.other_writer = other_writer  # another process writes the library now
        self.confirmed = False  # Quit was chosen: the close goes through
        self.gave_up = False  # at this start: a resumed sync died twice in a row, so nothing runs by itself
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

    def quit_now(self) -> bool:
        """A stop signal (gui/signal_stop.py): Quit and resume next time, never asked (nobody need be at the
        screen; the question Quit asked, still open, closes with the window). True when a sync was stopped."""
        stopped = self.tools.runner.busy_writing()
        self._quit()
        return stopped

    def _quit(self) -> None:
        if self.tools.runner.busy_writing():  # it may have finished while the question was open
            self._remember(QUIT)
        self.confirmed = True
        self.quit()

    def sync_started(self) -> None:
        """A sync began: until the writes end, a start after a crash resumes it."""
        if self._value() not in (QUIT, RESUMING):
            self._remember(INTERRUPTED)

    def adds_waiting(self, paths: list[str]) -> None:
        """The folders added and not started yet, kept on disk for a resume (not once Quit was chosen: the
        quitting cancels them, and what they were is what to resume)."""
        if self.confirmed:
            return
        if paths:
            self.ui.setValue(ADDS_KEY, json.dumps(list(paths)))  # JSON: QSettings splits a list's text at ", "
        else:
            self.ui.remove(ADDS_KEY)
        self.ui.sync()

    def writes_ended(self) -> None:
        """The write queue is empty (done, failed or cancelled by the person): nothing to resume."""
        if self._value() in (INTERRUPTED, RESUMING):
            self._forget()

    def resume_if_asked(self) -> bool:
        """At start: resume the indexing a Quit stopped, or a sync the last run never finished; True when it did."""
        value = self._value()
        if value in (INTERRUPTED, RESUMING) and self.other_writer():
            return False  # a live process is writing: its sync, not one cut short
        if value == RESUMING:  # the sync resumed after a crash died too: not again at every start
            self.gave_up = True  # nor the folder watch's catch-up (folder_watch.py), which reads the same files
            self._forget()
            self._take_adds()
            self.tools.say("The indexing stopped unexpectedly twice in a row, so it was not resumed; Re-sync (F5) "
                           "tries again.", 0)
            return False
        if value not in (QUIT, INTERRUPTED, "true", "1"):  # "true": written by versions before "interrupted"
            return False
        adds = self._take_adds()
        if value == INTERRUPTED:
            self._remember(RESUMING)
            self.tools.say("Resuming the indexing that stopped when searchapp last closed unexpectedly: words "
                           "first, then meaning.", 15000)
        else:
            self._forget()
            self.tools.say("Resuming the indexing stopped when searchapp quit: words first, then meaning.", 15000)
        self.resync(RESUMED_CRASH if value == INTERRUPTED else RESUMED_QUIT)
        if adds:
            self.add(adds)  # after the re-sync, as they were queued after the sync that stopped
        return True

    def _take_adds(self) -> list[str]:
        value = str(self.ui.value(ADDS_KEY, "") or "")
        self.ui.remove(ADDS_KEY)
        self.ui.sync()
        try:
            paths = json.loads(value) if value else []
        except ValueError:  # not what this wrote: nothing to add
            return []
        return [str(p) for p in paths] if isinstance(paths, list) else []

    def _forget(self) -> None:
        self.ui.remove(RESUME_KEY)
        self.ui.sync()

    def _value(self) -> str:
        return str(self.ui.value(RESUME_KEY, "")).lower()

    def _remember(self, value: str) -> None:
        self.ui.setValue(RESUME_KEY, value)
        self.ui.sync()  # on disk now: a kill a moment later must find it
