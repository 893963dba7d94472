"""Live updates: watch every indexed root and sync what changed, a short quiet period after the last event.

Events (watchdog: inotify on Linux, FSEvents on macOS, ReadDirectoryChangesW on Windows) only name paths;
the work is `Library.sync_changed(paths)`, the same incremental sync as a full one but restricted to those
files and folders, so an edit re-embeds only changed passages and a move re-embeds nothing.

Decisions:
- Debounce: changes are collected until no event arrived for `debounce` seconds (an editor's save is
  several events; copying a folder is thousands), but never held longer than MAX_HOLD_FACTOR × debounce.
- When the OS refuses more watches (inotify's max_user_watches / max_user_instances), the watcher falls
  back to polling every `poll_interval` seconds and says so in `note`; nothing is missed, it is just slower.
- Events inside the data directory, hidden folders and skip_dirs are dropped before they cost a sync.
- A failed sync (e.g. another process holds the writer lock) keeps its paths and is retried with backoff.
- `stop()` cancels a live update in flight at its next batch boundary (a folder of thousands of files copied in
  is minutes of embedding on an ordinary laptop: a `kill` or Ctrl+C must not wait for it). What it finished is
  kept; the rest is read by the catch-up of the next `watch` (a full sync of every folder).
"""

from __future__ import annotations

import errno
import logging
import os
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Optional, Protocol

from ...base.errors import Cancelled, SearchAppError
from ...base.progress import CancelToken
from ...base.stored_names import stored_name
from ...ingest.fsnames import is_within
from .roots import in_scope
from .contract import SyncReport
from .watched_folders import WatchedFolders

if TYPE_CHECKING:  # watchdog itself is imported only when watching starts
    from watchdog.events import FileSystemEvent
    from watchdog.observers.api import BaseObserver

    from ...base.config import Config
    from ...store import Store

__all__ = ["LibraryWatcher", "LibraryToWatch", "MAX_HOLD_FACTOR"]

MAX_HOLD_FACTOR = 10
_RETRY_MAX = 60.0
# How often the folder list is read again while nothing happens: a folder another process added (the window, a
# CLI `index`) is watched from then on, and one it removed is no longer synced.
ROOTS_EVERY_S = 5.0
_OUT_OF_WATCHES = (errno.ENOSPC, errno.EMFILE, errno.ENOMEM)  # the system's limits: not worth retrying each tick
# "attrib": a chmod or chown alone (watchdog 5+ tells it apart from "modified"): a file made readable again is
# read then, not left failed until the next full sync
_RELEVANT = frozenset({"created", "modified", "deleted", "moved", "closed", "attrib"})

log = logging.getLogger(__name__)


class LibraryToWatch(Protocol):
    """What the watcher asks of the library it keeps current (Library)."""

    @property
    def data_dir(self) -> Path: ...

    @property
    def config(self) -> Config: ...

    def reader(self) -> Store: ...

    def sync_changed(self, changed: list[str], *, cancel: Optional[CancelToken] = None) -> SyncReport: ...


class _Handler:
    """watchdog calls `dispatch` on its own thread for every event, and nothing else: a duck-typed handler, not a
    subclass of watchdog's FileSystemEventHandler, which `schedule` is typed to take (hence its two
    `type: ignore[arg-type]`)."""

    def __init__(self, watcher: "LibraryWatcher") -> None:
        self.watcher = watcher

    def dispatch(self, event: FileSystemEvent) -> None:
        if event.event_type not in _RELEVANT:
            return  # opened / closed without writing
        if event.is_directory and event.event_type in ("modified", "closed"):
            return  # a folder's entries changed: those entries have events of their own
        paths = [event.src_path] + ([event.dest_path] if getattr(event, "dest_path", "") else [])
        if event.is_directory and event.event_type in ("deleted", "moved"):
            self.watcher.lost(os.fsdecode(event.src_path))  # a watched folder itself: its watch has ended
        self.watcher.notify([os.fsdecode(p) for p in paths])


class LibraryWatcher:
    def __init__(self, library: LibraryToWatch, *, on_change: Optional[Callable[[SyncReport, list[str]], None]] = None,
                 on_error: Optional[Callable[[BaseException], None]] = None, debounce: float = 1.0,
                 poll_interval: float = 30.0, force_polling: bool = False,
                 handoff: Optional[Callable[[list[str]], None]] = None) -> None:
        self.library = library
        # Where a batch goes instead of a sync here: the window queues it as a write of its own (gui/folder_watch.py),
        # with the progress strip, Cancel and its place behind the writes asked before it.
        self.handoff = handoff
        self.on_change = on_change
        self.on_error = on_error
        self.debounce = float(debounce)
        self.poll_interval = float(poll_interval)
        self.force_polling = force_polling
        self.mode = "stopped"  # "events" | "polling" | "stopped"
        self.note: Optional[str] = None
        self._roots: list[str] = []  # the folders whose changes are synced (read from the library)
        self._folders: Optional[WatchedFolders] = None  # their observer watches (watched_folders.py)
        self._unwatchable: set[str] = set()  # roots the observer refused (out of watches): said once
        self._away: set[str] = set()  # roots whose watch ended (gone, moved): caught up when they are back
        self._dropped: set[str] = set()  # roots the library no longer holds: caught up if put back (an undo)
        self._roots_lock = threading.RLock()  # the lists above: add_folder's thread and the watch thread
        self._next_refresh = 0.0  # when the folder list is read again (time.monotonic)
        self.refreshes = 0  # folder-list reads done (tests wait for them, not for a time)
        self._pending: dict[str, float] = {}  # path -> first time seen in this batch
        self._last_event = 0.0
        self._cond = threading.Condition()
        self._stop = False
        self.cancel = CancelToken()  # set by stop(): the live update in flight stops at its next batch
        self._observer: Optional[BaseObserver] = None
        self._thread: Optional[threading.Thread] = None
        self._data_dir = os.path.abspath(library.data_dir)

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    # -- life cycle ---------------------------------------------------------
    def start(self) -> None:
        self._roots = [r.path for r in self.library.reader().roots()]
        self._next_refresh = time.monotonic() + ROOTS_EVERY_S
        self._observer = self._start_observer()
        folders = self._folders
        with self._roots_lock:  # not here at the start (a drive unplugged): read when it is there
            self._away.update(r for r in self._roots if folders is not None and not folders.has(r))
        self._thread = threading.Thread(target=self._run, name="searchapp-watch", daemon=True)
        self._thread.start()

    def _start_observer(self) -> BaseObserver:
        from watchdog.observers import Observer
        from watchdog.observers.polling import PollingObserverVFS

        if not self.force_polling:
            observer = Observer()
            try:
                self._schedule(observer)
                observer.start()  # inotify adds its watches here: this is where its limits bite
                self.mode = "events"
                return observer
            except OSError as exc:
                if exc.errno not in _OUT_OF_WATCHES:
                    raise
                self.note = (f"the system refused more file watches ({exc.strerror or exc}); checking for changes "
                             f"every {self.poll_interval:g} s instead (raise fs.inotify.max_user_watches to fix)")
                log.warning("%s", self.note)
                _stop_quietly(observer)
        # lstat: a folder's symlink is not walked into, as inotify does not follow one. watchdog's default (stat)
        # walked a link to a folder above it ("loop -> ..") ~40 times deep at every poll, and a live update then
        # named its file as …/loop/personal/loop/…/watch1.txt, 600 characters long
        observer = PollingObserverVFS(os.lstat, os.scandir, polling_interval=self.poll_interval)
        self._schedule(observer)
        observer.start()
        self.mode = "polling"
        return observer

    def _schedule(self, observer: BaseObserver) -> None:
        # A single-file root is watched through its folder; events for siblings are dropped by scope.
        self._folders = WatchedFolders(observer, _Handler(self))
        for root in self._roots:
            self._folders.watch(root)  # an OSError here (out of watches) is _start_observer's fallback

    def add_root(self, root: str, caught_up: bool = False) -> None:
        """Watch a root added after start (the library calls this from add_folder; _refresh_roots for a folder
        another process added, or one that was not there before: an unplugged drive plugged in). `caught_up`: the
        caller has read the whole folder now, or asks for it (add_folder, an undo here): no catch-up is due."""
        with self._roots_lock:
            if root not in self._roots:
                self._roots = [*self._roots, root]  # a new list: the observer's thread reads it meanwhile
            if caught_up:
                self._dropped.discard(root)
                self._away.discard(root)
            folders = self._folders
            if folders is None or root in self._unwatchable or folders.has(root):
                return
            try:
                folders.watch(root)  # not here now: the next look at the folder list tries again
            except OSError as exc:  # this root is caught up by the next full sync
                if exc.errno in _OUT_OF_WATCHES:
                    self._unwatchable.add(root)  # said once, not every few seconds
                self.note = f"{root} is not watched: {exc.strerror or exc}"
                log.warning("%s", self.note)  # else (gone meanwhile, refused) tried again at the next look
            except Exception as exc:  # e.g. no thread left for its emitter: the folder's change is committed
                self.note = f"{root} is not watched: {exc}"  # already (add_folder), so said, never raised
                log.exception("%s", self.note)

    def lost(self, folder: str) -> None:
        """The handler saw `folder` itself deleted or moved (watchdog's thread)."""
        if self._folders is not None:
            self._folders.lose(folder)

    def stop(self) -> None:
        self.cancel.cancel()
        with self._cond:
            self._stop = True
            self._cond.notify_all()
        if self._observer is not None:
            _stop_quietly(self._observer)
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join()
        self.mode = "stopped"

    # -- events -------------------------------------------------------------
    def _wanted(self, path: str) -> bool:
        """Whether a changed `path` (stored, as the roots are) is one a sync reads."""
        if is_within(path, self._data_dir):
            return False  # our own database and index files
        skip = self.library.config.scan.skip_dirs
        exclude = self.library.config.scan.exclude
        return any(in_scope(root, path, skip, exclude) for root in self._roots)

    def notify(self, paths: list[str]) -> None:
        now = time.monotonic()
        # As the library stores names, the roots' and every sync's (a name that is not UTF-8: decision 0179)
        wanted = [p for p in (stored_name(os.path.abspath(p)) for p in paths) if self._wanted(p)]
        if not wanted:
            return
        with self._cond:
            for p in wanted:
                self._pending.setdefault(p, now)
            self._last_event = now
            self._cond.notify_all()

    def _take_batch(self) -> Optional[list[str]]:
        """Block until a batch is due (quiet for `debounce`, or held too long) or the watcher stops; [] every
        ROOTS_EVERY_S (time to read the folder list again), changes or not: a folder another process added, one
        gone or back, one put back by an undo, must not wait for a quiet moment that a log file written every few
        seconds never gives."""
        with self._cond:
            while not self._stop:
                now = time.monotonic()
                if now >= self._next_refresh:
                    self._next_refresh = now + ROOTS_EVERY_S
                    return []
                if self._pending:
                    quiet_at = self._last_event + self.debounce
                    hold_until = min(self._pending.values()) + self.debounce * MAX_HOLD_FACTOR
                    due = min(quiet_at, hold_until)
                    if now >= due:
                        batch, self._pending = sorted(self._pending), {}
                        return batch
                    self._cond.wait(min(due, self._next_refresh) - now)
                else:
                    self._cond.wait(self._next_refresh - now)
            return None

    def _refresh_roots(self) -> None:
        """The library's folders as stored now: watch the new ones, stop syncing the removed ones, watch anew the
        ones whose watch ended once they are back, and read again what changed while they were away."""
        with self._roots_lock:
            before = list(self._roots)  # a folder add_folder adds meanwhile is not "gone" for not being stored yet
        try:
            stored = [r.path for r in self.library.reader().roots()]
        except Exception as exc:  # a busy, locked or closing database: the next tick reads it again, and the
            log.debug("folder list not read: %s", exc)  # watch goes on (an error here ended its thread)
            return
        with self._roots_lock:
            catch_up = self._follow_folders(before, stored)
        if catch_up:
            # The whole folder, as a sync of it: what changed while it was away (or, put back by an undo, while
            # it was out of the library) is read.
            self.notify(catch_up)

    def _follow_folders(self, before: list[str], stored: list[str]) -> list[str]:
        """_refresh_roots' bookkeeping (the roots lock held); the roots to read again."""
        folders = self._folders
        for root in folders.check() if folders is not None else []:
            self._away.add(root)
            if not os.path.lexists(root):
                log.warning("%s is gone (a drive unplugged, a folder moved?): its files stay searchable, and it is "
                            "watched again when it is back", root)
        for root in stored:
            self.add_root(root)
        back = sorted(r for r in self._away if folders is not None and folders.has(r))
        if back:
            self._away.difference_update(back)
            log.warning("%s is back: watching it again, and reading what changed while it was away", ", ".join(back))
        returned = sorted(self._dropped.intersection(stored))
        self._dropped.difference_update(stored)
        gone = set(before) - set(stored)
        for root in gone:  # removed from the library: its watch is given up, and an undo may put it back
            if folders is not None:
                folders.forget(root)
            self._away.discard(root)
            self._unwatchable.discard(root)
            self._dropped.add(root)
        if gone:
            self._roots = [r for r in self._roots if r not in gone]  # its events are no longer wanted
        return back + returned

    def _run(self) -> None:
        retry = self.debounce
        while (batch := self._take_batch()) is not None:
            if not batch:
                try:
                    self._refresh_roots()
                    self.refreshes += 1
                except BaseException as exc:  # a bug or the system (no thread for an emitter): said, watch goes on
                    log.exception("reading the folder list failed")
                    self._report_error(exc)
                continue
            if self.handoff is not None:
                try:
                    self.handoff(batch)
                except Exception as exc:  # a bug: said, and the watch goes on
                    log.exception("handing the changes over failed")
                    self._report_error(exc)
                continue
            try:
                rep = self.library.sync_changed(batch, cancel=self.cancel)
            except Cancelled as exc:  # stop(): what the update finished is kept; on_error says how far it got
                self._report_error(exc)
                return
            except SearchAppError as exc:  # e.g. another process is syncing: keep the paths, try again later
                # Said once: by on_error when there is one (the command line prints it), else logged here.
                (log.debug if self.on_error is not None else log.warning)(
                    "live update failed, retrying in %.0f s: %s", retry, exc)
                self._report_error(exc)
                with self._cond:
                    now = time.monotonic()
                    for p in batch:
                        self._pending.setdefault(p, now)
                    self._last_event = now
                    self._cond.wait(retry)
                retry = min(retry * 2, _RETRY_MAX)
                continue
            except BaseException as exc:  # a bug: report it, keep watching
                log.exception("live update failed")
                self._report_error(exc)
                continue
            retry = self.debounce
            if self.on_change is not None:
                try:
                    self.on_change(rep, batch)
                except Exception:
                    log.exception("on_change callback failed")

    def _report_error(self, exc: BaseException) -> None:
        if self.on_error is not None:
            try:
                self.on_error(exc)
            except Exception:
                log.exception("on_error callback failed")


def _inactive_emitter(record: logging.LogRecord) -> bool:
    """A logging filter: False for watchdog's "queue_events() called when the thread is inactive", an error it logs
    when a watch is stopped while an event is read (every Ctrl+C of `searchapp watch` could print it): no harm."""
    return "called when the thread is inactive" not in str(record.msg)


def _stop_quietly(observer: BaseObserver) -> None:
    inotify_log = logging.getLogger("watchdog.observers.inotify")
    if _inactive_emitter not in inotify_log.filters:
        inotify_log.addFilter(_inactive_emitter)
    try:
        observer.stop()
        if observer.is_alive():
            observer.join(timeout=10)
    except (RuntimeError, OSError):
        pass
