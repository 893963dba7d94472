"""Writes to the library (add a folder, re-sync, remove, re-index) as jobs on the window's write queue,
with the progress strip, Cancel, and the status-line summary of what a sync did.

When the last queued write finishes the window refreshes its status, says so (`writesIdle`) and searches
again, so the results show what is indexed now.
"""

from __future__ import annotations

import os
import time
from typing import Callable, Optional

from PySide6.QtCore import QObject, QTimer
from PySide6.QtWidgets import QMessageBox

__all__ = ["WriteJobs", "POLL_MS"]

POLL_MS = 100  # how often the newest progress report is shown


class WriteJobs(QObject):
    def __init__(self, win) -> None:
        super().__init__(win)
        self.win = win
        self.poll = QTimer(self, interval=POLL_MS)
        self.poll.timeout.connect(self._poll_progress)

    def submit(self, title: str, fn, on_success: Optional[Callable] = None):
        win = self.win
        return win.runner.submit(fn, write=True, name=title, on_success=on_success, on_error=win.report_error,
                                 on_cancel=self._on_cancelled, on_started=self._started, on_done=self._done)

    def add_paths(self, paths: list[str]) -> None:
        lib = self.win.library
        for p in paths:
            name = os.path.basename(os.path.normpath(p)) or p
            self.submit(f"Indexing {name}", lambda prog, c, p=p: lib.add_folder(p, prog, c), self._sync_done)

    def resync(self, roots: Optional[list[str]] = None) -> None:
        lib = self.win.library
        self.submit("Re-syncing", lambda prog, c: lib.sync(roots, prog, c), self._sync_done)

    def remove_root(self, path: str) -> None:
        lib, win = self.win.library, self.win
        self.submit(f"Removing {os.path.basename(path)}", lambda prog, c: lib.remove_folder(path),
                    lambda n: win.statusBar().showMessage(f"Removed {path} ({n} files)", 8000))

    def reindex(self) -> None:
        lib = self.win.library
        self.submit("Re-indexing", lambda prog, c: lib.reindex(prog, c), self._sync_done)

    def confirm_reindex(self) -> QMessageBox:
        box = QMessageBox(QMessageBox.Icon.Question, "Re-index",
                          "Rebuild every passage and vector with the current model and chunking settings? "
                          "Search keeps working on what is indexed as the rebuild proceeds.",
                          QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No, self.win)
        box.setObjectName("reindexPrompt")
        box.button(QMessageBox.StandardButton.Yes).clicked.connect(self.reindex)
        box.open()
        self.win.last_dialog = box
        return box

    def _sync_done(self, rep) -> None:
        bad = rep.skipped + rep.failed
        self.win.statusBar().showMessage(
            f"{rep.scanned} files scanned: {rep.added} added, {rep.updated} updated, {rep.removed} removed"
            + (f", {bad} not indexed" if bad else "") + f"; {rep.chunks_embedded} passages embedded"
            + (f", {rep.chunks_pending} still to embed (searchable by words)" if rep.chunks_pending else "")
            + (f"; {len(rep.missing_roots)} folder(s) missing, kept as they were" if rep.missing_roots else "")
            + "".join(f"; {n}" for n in rep.notes if "OCR" in n), 15000)  # e.g. why files wait for OCR

    def _started(self) -> None:
        job = self.active_write()
        self.win.progress.start(job.name if job else "Working")
        self.poll.start()

    def _done(self) -> None:
        win = self.win
        if win.runner.busy_writing():
            return
        self.poll.stop()
        win.progress.hide()
        win.refresh_status(then=win.writesIdle.emit)
        if win.search_box.text().strip():
            win.run_search()  # the library changed: show what is there now

    def active_write(self):
        """The write job running now, or None."""
        return next((j for j in self.win.runner.write_jobs() if j.running), None)

    def _poll_progress(self) -> None:
        job = self.active_write()
        if job is not None:
            self.win.progress.show_progress(job.name, job.progress, time.monotonic())

    def cancel(self) -> None:
        progress = self.win.progress
        progress.cancel_button.setEnabled(False)
        progress.label.setText("Stopping…")  # within seconds, keeping every finished file
        self.win.runner.cancel_writes()

    def _on_cancelled(self) -> None:
        # Cancelling is the user's own wish: no dialog, just say what state things are in.
        self.win.statusBar().showMessage("Cancelled; everything indexed so far is kept (a later sync embeds the rest).", 10000)
