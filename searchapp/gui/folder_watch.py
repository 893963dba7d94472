"""The window keeps its folders current while it is open, as `searchapp watch` does (decision 0165): a note saved,
a file copied in or deleted under an indexed folder is read a second after the last change, without a Re-sync.

The library's own watcher (library/sync/watch.py) finds the changes; each batch is handed to this window, which
queues it as a write of its own ("Updating changed files"), so it has the progress strip, Cancel and its turn
behind the writes asked before it, like any other. Changes that arrive while that write waits join it: a folder of
a thousand files copied in is one update, not a queue of them. While another process writes the library (an
`index` in a terminal) the changes wait, without a word, and go in once it has finished.

The watcher starts on a thread of its own: it waits for a sync under way (the library's lock) and walks every
folder to watch it, neither of which the window may wait for.

One watcher per library: the window holds watch.lock as `searchapp watch` does (library/resources/watch_lock.py).
Where another process holds it, that process keeps the folders current and the window says so once; it looks
again every RETRY_MS and takes over when that one ends, with a catch-up (below): what was saved between that
watch's end and the take-over is read then. File → Watch Folders for Changes turns it off (gui.ini).
Not on a shared library (its machines' `searchapp watch` keep theirs current: decision 0138), nor on one this window
cannot write.

What changed while nothing watched (the window closed, the watch turned off) is read CATCH_UP_DELAY_MS after the
watch starts (the person's first search goes first), as `searchapp watch` catches up: a sync of every folder,
"Checking your folders for changes", which says nothing when nothing changed. Not at a start that resumed a sync
(it reads the same), nor at one whose resumed sync died twice (gui/quit_guard.py), nor where the library had no
folder as the watch started (a first start: the folder dropped on it is read by its own sync, and a catch-up behind
that sync read every file of it a second time). A catch-up marks gui.ini while it
runs: one that never ended (the window crashed in it: a file that crashes a reader) is not run by itself again
until the person's Re-sync All, so a crash never repeats at every start.

After the person's Cancel, updates and catch-ups wait (their paths kept) until the person asks for a write again
(Add, Re-sync, …: WriteJobs.on_hold): a catch-up queued behind a cancelled Add had read the folder and embedded
its passages anyway. The Cancel's line says so.

An update or a catch-up that changed nothing says nothing. Updates said one after another add up in the status
line while it still shows the last one's summary (300 files copied in, then one edited while they were embedded:
"301 files scanned: 300 added, 1 updated", not the edit's line alone over the copy's).
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
from typing import TYPE_CHECKING, Any, Callable, Optional, cast

from PySide6.QtCore import QObject, QSettings, QTimer, Signal
from PySide6.QtGui import QAction

from ..base.errors import WriterBusy
from ..library.resources.lock import writer_holder
from ..library.resources.watch_lock import WINDOW, WatchTaken, watching
from ..library.shared import SharedLibrary
from .changes import Changes
from .library_session import LibrarySession
from .window_tools import WindowTools
from .write_jobs import WriteJobs

if TYPE_CHECKING:
    from ..library import Library, SyncReport

__all__ = ["FolderWatch", "WATCH_KEY", "CATCH_UP_KEY", "RETRY_MS", "BUSY_MS", "CATCH_UP_DELAY_MS", "UPDATE_TITLE",
           "UPDATE_NAME", "UPDATED", "CATCH_UP_TITLE", "OFF_ENV"]

log = logging.getLogger(__name__)

WATCH_KEY = "library/watch"  # gui.ini: whether the window watches its folders (default: yes)
CATCH_UP_KEY = "library/catch_up"  # gui.ini: "running" while a catch-up runs (a crash leaves it)
RETRY_MS = 5_000  # how often the window looks again whether another process still watches the library (a flock)
BUSY_MS = 2_000  # how often waiting changes look again whether another process still writes the library
CATCH_UP_DELAY_MS = 3_000  # after the watch starts: the window's first search answered first
UPDATE_TITLE = "Updating changed files"
UPDATE_NAME = "An update of changed files"  # the same write, in the queue (Next: …) and its notes
UPDATED = "Changes in your folders indexed — "
CATCH_UP_TITLE = "Checking your folders for changes"
# Set (to anything but "" or "0"): the window never watches. The test suite sets it: its windows sit over folders
# the tests write into, and a watch of their own would sync those changes beside what each test does.
OFF_ENV = "SEARCHAPP_NO_WINDOW_WATCH"
_BUSY = "busy"  # an update's outcome when another process held the writer lock: its paths wait again


class FolderWatch(QObject):
    batch = Signal(list)  # the watcher's thread hands its changed paths over; handled on the window's thread
    # (library, its watcher's note or the error that stopped it, whether it had no folder as the start began)
    ready = Signal(object, object, bool)
    started = Signal()  # the window watches its folders now (tests wait for it)

    def __init__(self, tools: WindowTools, session: LibrarySession, writes: WriteJobs, ui: QSettings,
                 has_folders: Callable[[], bool]) -> None:
        super().__init__(tools.parent)
        self.tools, self.session, self.writes, self.ui = tools, session, writes, ui
        self.has_folders = has_folders  # the library's last status lists a folder
        self.watching: Optional[Library] = None  # the library whose watcher runs (the lock held for it)
        self.starting: Optional[Library] = None  # the library whose watcher is starting on its thread
        self._starter: Optional[threading.Thread] = None
        self._catch_up = False  # a catch-up is due once the starting watch runs
        self._began_empty = False  # the library had no folder as the watch started: nothing of before to catch up
        self.taken_by: Optional[str] = None  # the process that watches instead (said once per holder)
        self._lock_held = contextlib.ExitStack()
        self._paths: set[str] = set()  # changed paths no update has taken yet
        self._paths_lock = threading.Lock()  # an update's worker takes them while the watcher hands more
        self._open = False  # an update is queued that has not taken its paths yet: new ones join it
        self.updates = 0  # updates queued (tests)
        self.catch_ups = 0  # catch-ups queued (tests)
        # the updates' summary said last, their sum and the paths they read
        self._summed: Optional[tuple[str, SyncReport, frozenset[str]]] = None
        self._no_catch_up = False  # this session never catches up by itself (the quit guard gave up: start())
        self.action = QAction("&Watch Folders for Changes", tools.parent, checkable=True)
        self.action.setToolTip("Index a file a second after it is saved, copied in or deleted, while the window is open")
        self.action.setChecked(bool(ui.value(WATCH_KEY, True, type=bool)))
        self.action.toggled.connect(self._toggled)
        self.retry = QTimer(self, interval=RETRY_MS)
        self.retry.timeout.connect(self.start)
        self.busy = QTimer(self, interval=BUSY_MS, singleShot=True)
        self.busy.timeout.connect(self._submit_update)
        self.batch.connect(self._queue)
        self.ready.connect(self._ready)
        self._catch_up_held = False  # a catch-up that found the window's writes on hold: it runs when that ends
        writes.hold_note = self._hold_note
        writes.holdEnded.connect(self._hold_ended)

    def enabled(self) -> bool:
        return self.action.isChecked() and os.environ.get(OFF_ENV, "") in ("", "0")

    # -- the watch --------------------------------------------------------------
    def start(self, catch_up: bool = False, never_catch_up: bool = False) -> None:
        """Watch the library's folders, unless off, watching them already, or another process watches them; with
        `catch_up`, then read what changed while nothing watched (the module's docstring). `never_catch_up`: not
        in this session at all, even at a take-over (a resumed sync died twice: gui/quit_guard.py)."""
        self._no_catch_up = self._no_catch_up or never_catch_up
        lib = self.session.library
        if (self.watching or self.starting) not in (None, lib):
            self.stop()  # another library (settings, the File menu): the old one's watch and lock go first
        if (not self.enabled() or isinstance(lib, SharedLibrary) or lib.read_only or self.watching is lib
                or self.starting is lib):
            return
        try:
            self._lock_held.enter_context(watching(lib.data_dir, WINDOW))
        except WatchTaken as exc:
            if exc.holder != self.taken_by:
                self.taken_by = exc.holder
                self.tools.say(f"Changes in your folders are followed by another process ({exc.holder}); this "
                               "window takes over when it ends", 15000)
            self.retry.start()
            return
        self.retry.stop()
        if self.taken_by is not None:  # the other watch ended: what was saved since is read by a catch-up
            self.tools.say("This window follows the changes in your folders now (the other process's watch "
                           "ended)", 15000)
            catch_up = True
        self.taken_by = None
        self.starting, self._catch_up = lib, catch_up and not self._no_catch_up
        self._starter = threading.Thread(target=self._start_watcher, args=(lib,), daemon=True,
                                         name="searchapp-window-watch")
        self._starter.start()

    def _start_watcher(self, lib: Library) -> None:
        """On its own thread: start_watching waits for a sync under way and walks every folder. The folders are
        asked before that wait: a folder dropped on an empty library meanwhile is one its own sync reads."""
        empty = False
        try:
            empty = not lib.has_folders()
            self.ready.emit(lib, lib.start_watching(handoff=self.batch.emit).note, empty)
        except BaseException as exc:  # no watchdog, the system's limits, a closing library: said on the window's side
            self.ready.emit(lib, exc, empty)

    def _ready(self, lib: Library, outcome: object, empty: bool = False) -> None:
        if self.starting is not lib:  # stopped, or another library, meanwhile: this watch is not wanted
            if not isinstance(outcome, BaseException) and self.watching is not lib:
                lib.stop_watching()
            return
        self.starting = None
        if isinstance(outcome, BaseException):
            self._lock_held.close()
            self.tools.say(f"Changes in your folders are not followed: {outcome}; Re-sync (F5) reads them", 15000)
            return
        self.watching, self._began_empty = lib, empty
        if outcome:  # the watcher's note: it polls (the system's watches ran out), a folder it cannot watch
            self.tools.say(f"Watching your folders: {outcome}", 15000)
        if self._catch_up:
            QTimer.singleShot(CATCH_UP_DELAY_MS, lambda: self._catch_up_now(lib))
        self.started.emit()

    def stop(self) -> None:
        """End the watch (the update it queued runs on); the lock is let go for a `searchapp watch`."""
        self.retry.stop()
        self.taken_by = None  # whoever watched this library: another library is another question
        self.starting = None  # a start under way stops its watcher when it is ready (_ready)
        lib, self.watching = self.watching, None
        if lib is not None:
            lib.stop_watching()
        self._lock_held.close()

    def shutdown(self) -> None:
        """At the window's end, once the writes have stopped: a start still under way (it waited for a sync's
        lock) has ended, and its watcher with it."""
        self.stop()
        starter = self._starter
        if starter is not None and starter.is_alive():
            starter.join(timeout=30)
        lib = self.session.library
        if not isinstance(lib, SharedLibrary):
            lib.stop_watching()

    def on_changes(self, changes: Changes) -> None:
        if changes.settings:  # the library was reopened, or another opened: its watch, not the old one's
            self.writes.end_hold()  # and no Cancel of the old one's holds its writes
            self._catch_up_held = False
            self.start()

    def _toggled(self, on: bool) -> None:
        self.ui.setValue(WATCH_KEY, on)
        if on:
            self.start(catch_up=True)  # what changed while it was off
            return
        was, other = self.watching or self.starting, self.taken_by
        self.stop()
        if other is not None:  # a `searchapp watch` still keeps them current: the window just won't take over
            self.tools.say(f"The window will not follow changes in your folders; process {other} still does", 15000)
        elif was is not None:
            self.tools.say("Changes in your folders are no longer followed while the window is open; Re-sync All "
                           "(F5) reads them", 15000)

    # -- updates ----------------------------------------------------------------
    def _queue(self, paths: list[str]) -> None:
        """Changed paths: into the update that has not started, else into a new one queued behind the writes."""
        if not paths:
            return
        with self._paths_lock:
            self._paths.update(paths)
            if self._open:
                return  # it takes them when it starts
        self._submit_update()

    def _submit_update(self) -> None:
        """An update of the paths waiting, unless one that has not started has them, or another process writes the
        library now (they wait, and are looked at again in BUSY_MS)."""
        lib = self.watching
        if lib is None:
            return  # the watch ended (turned off, another library): its changes are read by the next catch-up
        if self.writes.on_hold:
            return  # after the person's Cancel: they wait for the person's next write (_hold_ended)
        if writer_holder(lib.data_dir) is not None:
            self.busy.start()
            return
        with self._paths_lock:
            if self._open or not self._paths:
                return
            self._open = True
        self.updates += 1
        self.writes.submit(UPDATE_TITLE, lambda prog, c: self._update(lib, prog, c), Changes(files=True),
                           self._done, UPDATE_NAME, own=True)

    def _update(self, lib: Library, progress: Any, cancel: Any) -> object:
        """The update's work, on its worker: every path waiting now (later ones go to the next update), and its
        report with them. None when there is none (a sync of no path would embed the whole backlog); _BUSY when
        another process took the writer lock first (the paths wait again)."""
        with self._paths_lock:
            if self.writes.on_hold:  # queued before the person's Cancel: its paths wait for their next write
                self._open = False
                return None
            paths, self._paths, self._open = sorted(self._paths), set(), False
        if not paths:
            return None
        try:
            return lib.sync_changed(paths, progress, cancel), frozenset(paths)
        except WriterBusy:
            with self._paths_lock:
                self._paths.update(paths)
            return _BUSY

    def _done(self, outcome: object) -> None:
        if outcome == _BUSY:
            self.busy.start()
        elif outcome is not None:
            rep, paths = cast("tuple[SyncReport, frozenset[str]]", outcome)
            if _did_something(rep):
                self._say_summed(rep, paths)

    def _say_summed(self, rep: SyncReport, paths: frozenset[str]) -> None:
        """The update's summary, added to the one before while the status line still shows that one and the two
        read different paths (a note saved three times is one file updated, not three)."""
        from ..library import SyncReport

        summed = self._summed
        if summed is not None and self.tools.line() == summed[0] and not paths & summed[2]:
            total = SyncReport()
            total.merge(summed[1])
            total.merge(rep)
            total.chunks_pending = rep.chunks_pending  # the library's count after the last, not a sum
            total.notes = list(dict.fromkeys(total.notes))  # one note said once, however many updates had it
            total.missing_roots = list(dict.fromkeys(total.missing_roots))
            rep, paths = total, paths | summed[2]
        said = self.writes.summary(rep, UPDATED)
        self.tools.say(said, 0)  # until the next thing said, as every sync's summary
        self.writes.summary_line = said  # and, as theirs, gone when the person's next write starts (WriteJobs)
        self._summed = (said, rep, paths)

    # -- the catch-up -----------------------------------------------------------
    def _catch_up_now(self, lib: Library, behind_a_write: bool = False) -> None:
        """`behind_a_write`: queued behind the person's write just submitted, which may hold the writer lock already
        (not another process's sync: its check meets WriterBusy where one does)."""
        if self.watching is not lib or not self.has_folders() or self._began_empty:
            return  # not watching now; nothing to read, or nothing that was there before the watch
        if not behind_a_write and writer_holder(lib.data_dir) is not None:
            return  # another process syncs it (its changes shown as they come)
        if self.writes.on_hold:  # after the person's Cancel: it runs when they ask for a write again
            self._catch_up_held = True
            return
        if self.ui.value(CATCH_UP_KEY, "", type=str) == "running":
            self.tools.say("The check of your folders for changes stopped unexpectedly last time, so it no longer runs "
                           "by itself; Re-sync All (F5) reads your folders and turns it back on", 0)
            return
        self.catch_ups += 1
        self.ui.setValue(CATCH_UP_KEY, "running")
        self.ui.sync()  # on disk before the sync starts: a crash in it must find it

        def check(prog: Any, cancel: Any) -> object:
            if self.writes.on_hold:  # queued before the person's Cancel (behind the Add they cancelled)
                self._catch_up_held = True
                return None
            try:
                return lib.sync(None, prog, cancel)
            except WriterBusy:  # another process began writing meanwhile: it reads the folders itself
                return None

        self.writes.submit(CATCH_UP_TITLE, check, Changes(files=True), self._caught_up,
                           "A check of your folders for changes", ended=self.rearm, own=True)

    def _hold_note(self) -> str:
        """What a Cancel's line adds while the window watches: its own writes wait too."""
        return " Changes in your folders wait for it too." if self.watching is not None else ""

    def _hold_ended(self) -> None:
        """The person asked for a write after a Cancel: the changes and the catch-up held meanwhile go in, behind
        it."""
        lib = self.watching
        if lib is None:
            return
        if self._catch_up_held:
            self._catch_up_held = False
            self._catch_up_now(lib, behind_a_write=True)
        with self._paths_lock:
            waiting = bool(self._paths) and not self._open
        if waiting:
            self._submit_update()

    def rearm(self) -> None:
        """A catch-up ended (done, failed or cancelled: not a crash), or the person's Re-sync All: it runs again."""
        self.ui.remove(CATCH_UP_KEY)

    def _caught_up(self, rep: Optional[SyncReport]) -> None:
        """The catch-up's summary, only when it found something: every start would otherwise say "0 added". Its
        notes alone are not news: they are said again by every sync of every folder (files waiting for an OCR
        engine that is not there)."""
        if rep is not None and _did_something(rep, notes=False):
            self.writes.sync_done(rep, "Found changes in your folders — ")


def _did_something(rep: SyncReport, notes: bool = True) -> bool:
    """Whether a sync the window ran by itself has anything to say: "0 added, 0 updated, 0 removed" read as if the
    change had been missed (a terminal's `index` had taken it first). A file left out is news when this sync left it
    out (`problems`), not when an earlier one did: every sync counts those again among its skipped and failed, and an
    unchanged library said "Found changes … 0 added, 0 updated, 0 removed, 80 not indexed" at every start."""
    changed = rep.added + rep.updated + rep.removed + len(rep.problems) + len(rep.reason_changed) + len(rep.left_out)
    return bool(changed or rep.chunks_embedded or (notes and rep.notes) or rep.missing_roots)
