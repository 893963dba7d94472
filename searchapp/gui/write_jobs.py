"""Writes to the library (add a folder, re-sync, remove, re-index) as jobs on the window's write queue,
with the progress strip, Cancel, and the status-line summary of what a sync did.

Each write says what it may change (a cancelled or failed one may have changed part of it); when the last
queued write ends, their Changes go out together and every part refreshes what it shows.
"""

from __future__ import annotations

import os
import time
from functools import partial
from typing import Callable, Optional

from PySide6.QtCore import QObject, QTimer, Signal
from PySide6.QtWidgets import QMessageBox

from .big_folder import BigFolderCheck
from .changes import Changes
from .library_session import LibrarySession
from .progress_view import ProgressView
from .services import Services
from .undo_remove import UNDO_SECONDS, UndoRemove
from .workers import Job

__all__ = ["WriteJobs", "POLL_MS", "cancel_summary"]

POLL_MS = 100  # how often the newest progress report is shown


def cancel_summary(rep) -> str:
    """What a cancelled sync kept, from its SyncReport (None: it stopped before it did anything to say)."""
    if rep is None:
        return "Cancelled; everything indexed so far is kept, the rest on the next sync (Re-sync, F5)."
    files = rep.added + rep.updated
    text = f"Cancelled; {files:,} file{'' if files == 1 else 's'} done"
    if rep.chunks_pending:
        text += (f" ({rep.chunks_pending:,} passage{'' if rep.chunks_pending == 1 else 's'} still to embed: "
                 "found by their words meanwhile)")
    return text + ", the rest on the next sync (Re-sync, F5)."


class WriteJobs(QObject):
    idle = Signal()  # the last queued write ended (its Changes were just announced)

    def __init__(self, services: Services, session: LibrarySession, progress: ProgressView) -> None:
        super().__init__(services.parent)
        self.services, self.session, self.progress = services, session, progress
        self.pending = Changes()  # what the writes ended since the queue was last empty changed
        self.outcome = ""  # what a cancelled write kept, said in the strip once the queue is empty
        self.poll = QTimer(self, interval=POLL_MS)
        self.poll.timeout.connect(self._poll_progress)
        progress.cancel_button.clicked.connect(self.cancel)
        self.big_folders = BigFolderCheck(services, session)  # a big folder: its size, time, what to leave out
        self.undo = UndoRemove(services, session, self.submit)  # the last Remove, for a minute

    def submit(self, title: str, fn, changes: Changes, on_success: Optional[Callable] = None):
        self.undo.expire()  # another write: what a Remove kept could no longer go back as it was
        runner = self.services.runner
        job: Job = runner.submit(fn, write=True, name=title, on_success=on_success, on_error=self.services.report_error,
                            on_cancel=lambda: self._on_cancelled(job), on_started=self._started,
                            on_done=lambda: self._done(changes))
        return job

    def add_paths(self, paths: list[str]) -> None:
        for p in paths:
            if not self.big_folders.ask_first(p, partial(self._add, p)):
                self._add(p)

    def _add(self, path: str) -> None:
        lib = self.session.library  # after a choice to leave subfolders out: the library reopened under it
        name = os.path.basename(os.path.normpath(path)) or path
        self.submit(f"Indexing {name}", lambda prog, c: lib.add_folder(path, prog, c),
                    Changes(roots=True, files=True), self._sync_done)

    def resync(self, roots: Optional[list[str]] = None) -> None:
        lib = self.session.library
        self.submit("Re-syncing", lambda prog, c: lib.sync(roots, prog, c), Changes(files=True), self._sync_done)

    def remove_root(self, path: str) -> None:
        lib, say = self.session.library, self.services.say

        def removed(n: int) -> None:
            say(f"Removed {path} ({n} file{'' if n == 1 else 's'})", UNDO_SECONDS * 1000)
            self.undo.offer(path)

        self.submit(f"Removing {os.path.basename(path)}", lambda prog, c: lib.remove_folder(path, undoable=True),
                    Changes(roots=True, files=True), removed)

    def reindex(self) -> None:
        lib = self.session.library
        self.submit("Re-indexing", lambda prog, c: lib.reindex(prog, c), Changes(files=True), self._sync_done)

    def confirm_reindex(self) -> QMessageBox:
        box = QMessageBox(QMessageBox.Icon.Question, "Re-index",
                          "Rebuild every passage and vector with the current model and chunking settings? "
                          "Search keeps working on what is indexed as the rebuild proceeds.",
                          QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No, self.services.parent)
        box.setObjectName("reindexPrompt")
        box.button(QMessageBox.StandardButton.Yes).clicked.connect(self.reindex)
        box.open()
        self.services.dialog_shown(box)
        return box

    def _sync_done(self, rep) -> None:
        bad = rep.skipped + rep.failed
        self.services.say(
            f"{rep.scanned} files scanned: {rep.added} added, {rep.updated} updated, {rep.removed} removed"
            + (f", {bad} not indexed" if bad else "") + f"; {rep.chunks_embedded} passages embedded"
            + (f", {rep.chunks_pending} still to embed (searchable by words)" if rep.chunks_pending else "")
            + (f"; {len(rep.missing_roots)} folder(s) missing, kept as they were" if rep.missing_roots else "")
            + "".join(f"; {n}" for n in rep.notes if "OCR" in n), 15000)  # e.g. why files wait for OCR

    def _started(self) -> None:
        job = self.active_write()
        self.progress.start(job.name if job else "Working")
        self.poll.start()

    def _done(self, changes: Changes) -> None:
        self.pending |= changes
        if self.services.runner.busy_writing():
            return
        self.poll.stop()
        if self.outcome:
            self.progress.show_outcome(self.outcome)
        else:
            self.progress.hide()
        self.outcome = ""
        changes, self.pending = self.pending, Changes()
        self.services.changed(changes)  # the status, the results, the saved searches show what is indexed now
        self.idle.emit()

    def active_write(self):
        """The write job running now, or None."""
        return next((j for j in self.services.runner.write_jobs() if j.running), None)

    def _poll_progress(self) -> None:
        job = self.active_write()
        if job is not None:
            self.progress.show_progress(job.name, job.progress, time.monotonic())

    def cancel(self) -> None:
        self.progress.cancel_button.setEnabled(False)
        self.progress.label.setText("Stopping…")  # within seconds, keeping every finished file
        self.services.runner.cancel_writes()

    def _on_cancelled(self, job) -> None:
        # Cancelling is the user's own wish: no dialog, just say what state things are in.
        self.outcome = cancel_summary(getattr(job.value, "report", None))
        self.services.say(self.outcome, 15000)
