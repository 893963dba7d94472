"""The window keeps its folders current while it is open, as `searchapp watch` does (decision 0165): a note saved,
a file copied in or deleted under an indexed folder is read a second after the last change, without a Re-sync.

The library's own watcher (library/sync/watch.py) finds the changes; each batch is handed to this window, which
queues it as a write of its own ("Updating changed files"), so it has the progress strip, Cancel and its turn
behind the writes asked before it, like any other. Changes that arrive while that write waits join it: a folder of
a thousand files copied in is one update, not a queue of them.

One watcher per library: the window holds watch.lock as `searchapp watch` does (library/resources/watch_lock.py).
Where a `watch` in a terminal holds it, that process keeps the folders current and the window says so once; it
looks again every RETRY_MS and takes over when that watch ends. File → Watch Folders for Changes turns it off
(gui.ini). Not on a shared library (its machines' `searchapp watch` keep theirs current: decision 0138), nor on
one this window cannot write.

What changed while nothing watched (the window closed, the watch turned off) is read when the watch starts, as
`searchapp watch` catches up: a sync of every folder queued as "Checking your folders for changes", which says
nothing when nothing changed. Not after a start that resumed a sync (it reads the same), nor after one whose
resumed sync died twice (gui/quit_guard.py: a file that crashes the window must not crash every start).
"""

from __future__ import annotations

import contextlib
import os
import threading
from typing import TYPE_CHECKING, Any, Optional

from PySide6.QtCore import QObject, QSettings, QTimer, Signal
from PySide6.QtGui import QAction

from ..base.errors import SearchAppError
from ..library.resources.watch_lock import WatchTaken, watching
from ..library.shared import SharedLibrary
from .changes import Changes
from .library_session import LibrarySession
from .window_tools import WindowTools
from .workers import Job
from .write_jobs import WriteJobs

if TYPE_CHECKING:
    from ..library import SyncReport

__all__ = ["FolderWatch", "WATCH_KEY", "RETRY_MS", "UPDATE_TITLE", "CATCH_UP_TITLE", "OFF_ENV"]

WATCH_KEY = "library/watch"  # gui.ini: whether the window watches its folders (default: yes)
RETRY_MS = 30_000  # how often the window looks again whether a `searchapp watch` elsewhere still holds the lock
UPDATE_TITLE = "Updating changed files"
CATCH_UP_TITLE = "Checking your folders for changes"
# Set (to anything but "" or "0"): the window never watches. The test suite sets it: its windows sit over folders
# the tests write into, and a watch of their own would sync those changes beside what each test does.
OFF_ENV = "SEARCHAPP_NO_WINDOW_WATCH"


class FolderWatch(QObject):
    batch = Signal(list)  # the watcher's thread hands its changed paths over; handled on the window's thread
    started = Signal()  # the window watches its folders now (tests wait for it)

    def __init__(self, tools: WindowTools, session: LibrarySession, writes: WriteJobs, ui: QSettings) -> None:
        super().__init__(tools.parent)
        self.tools, self.session, self.writes, self.ui = tools, session, writes, ui
        self.watching: Optional[Any] = None  # the library whose watcher runs (the lock held for it)
        self.taken_by: Optional[str] = None  # the process that watches instead (said once per holder)
        self._lock_held = contextlib.ExitStack()
        self._paths: set[str] = set()  # changed paths the queued update has not taken yet
        self._paths_lock = threading.Lock()  # the update's worker takes them while the watcher hands more
        self._job: Optional[Job] = None  # the update queued or running
        self.updates = 0  # updates queued (tests)
        self.action = QAction("&Watch Folders for Changes", tools.parent, checkable=True)
        self.action.setToolTip("Index a file a second after it is saved, copied in or deleted, while the window is open")
        self.action.setChecked(bool(ui.value(WATCH_KEY, True, type=bool)))
        self.action.toggled.connect(self._toggled)
        self.retry = QTimer(self, interval=RETRY_MS)
        self.retry.timeout.connect(self.start)
        self.batch.connect(self._queue)

    def enabled(self) -> bool:
        return self.action.isChecked() and os.environ.get(OFF_ENV, "") in ("", "0")

    def start(self, catch_up: bool = False) -> None:
        """Watch the library's folders, unless off, already watching, or another process watches them; with
        `catch_up`, then read what changed while nothing watched (the module's docstring)."""
        lib = self.session.library
        if not self.enabled() or self.watching is lib or isinstance(lib, SharedLibrary) or lib.read_only:
            return
        self.stop()  # another library (settings, the File menu): its watch ends first
        try:
            self._lock_held.enter_context(watching(lib.data_dir, "the window"))
        except WatchTaken as exc:
            if exc.holder != self.taken_by:
                self.taken_by = exc.holder
                self.tools.say(f"Changes in your folders are indexed by process {exc.holder} (`searchapp watch`); "
                               "this window takes over when it ends", 15000)
            self.retry.start()
            return
        try:
            lib.start_watching(handoff=self.batch.emit)
        except (SearchAppError, OSError) as exc:  # no watchdog, the system's limits: said, the window works on
            self._lock_held.close()
            self.tools.say(f"Changes in your folders are not followed: {exc}; Re-sync (F5) reads them", 15000)
            return
        self.retry.stop()
        self.taken_by = None
        self.watching = lib
        if catch_up and lib.roots():
            self.writes.submit(CATCH_UP_TITLE, lambda prog, c: lib.sync(None, prog, c), Changes(files=True),
                               self._caught_up, "A check of your folders for changes", None)
        self.started.emit()

    def stop(self) -> None:
        """End the watch (the update it queued runs on); the lock is let go for a `searchapp watch`."""
        self.retry.stop()
        lib, self.watching = self.watching, None
        if lib is not None:
            lib.stop_watching()
        self._lock_held.close()

    def on_changes(self, changes: Changes) -> None:
        if changes.settings:  # the library was reopened, or another opened: its watch, not the old one's
            self.start()

    def _toggled(self, on: bool) -> None:
        self.ui.setValue(WATCH_KEY, on)
        if on:
            self.start(catch_up=True)  # what changed while it was off
        else:
            self.stop()

    def _queue(self, paths: list[str]) -> None:
        """Changed paths: into the update that waits its turn, else into a new one queued behind the writes."""
        if not paths:
            return
        with self._paths_lock:
            self._paths.update(paths)
            job = self._job
            if job is not None and not job.running and not job.finished:
                return  # it takes them when it starts
        lib = self.session.library
        self.updates += 1
        self._job = self.writes.submit(UPDATE_TITLE, lambda prog, c: self._update(lib, prog, c), Changes(files=True),
                                       self._done, "Changes in your folders")

    def _update(self, lib: Any, progress: Any, cancel: Any) -> Optional[SyncReport]:
        """The update's work, on its worker: the paths changed until now (later ones go to the next update). None
        when the update before took them all as it started (a sync of no path would embed the whole backlog)."""
        with self._paths_lock:
            paths, self._paths = sorted(self._paths), set()
        return lib.sync_changed(paths, progress, cancel) if paths else None

    def _done(self, rep: Optional[SyncReport]) -> None:
        if rep is not None:
            self.writes.sync_done(rep, "Changes in your folders indexed — ")

    def _caught_up(self, rep: SyncReport) -> None:
        """The catch-up's summary, only when it did something: every start would otherwise say "0 added"."""
        if (rep.added or rep.updated or rep.removed or rep.skipped or rep.failed or rep.chunks_embedded or rep.notes
                or rep.missing_roots):
            self.writes.sync_done(rep, "Found changes in your folders — ")
