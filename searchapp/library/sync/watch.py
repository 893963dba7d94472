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
"""

from __future__ import annotations

import errno
import logging
import os
import stat
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Optional, Protocol

from ...base.errors import SearchAppError
from ...ingest.fsnames import is_within
from .roots import in_scope
from .contract import SyncReport

if TYPE_CHECKING:  # watchdog itself is imported only when watching starts
    from watchdog.events import FileSystemEvent
    from watchdog.observers.api import BaseObserver, ObservedWatch

    from ...base.config import Config
    from ...store import Store

__all__ = ["LibraryWatcher", "LibraryToWatch", "MAX_HOLD_FACTOR"]

MAX_HOLD_FACTOR = 10
_RETRY_MAX = 60.0
# How often the folder list is read again while nothing happens: a folder another process added (the window, a
# CLI `index`) is watched from then on, and one it removed is no longer synced.
ROOTS_EVERY_S = 5.0
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

    def sync_changed(self, changed: list[str]) -> SyncReport: ...


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
        self.watcher.notify([os.fsdecode(p) for p in paths])


class LibraryWatcher:
    def __init__(self, library: LibraryToWatch, *, on_change: Optional[Callable[[SyncReport, list[str]], None]] = None,
                 on_error: Optional[Callable[[BaseException], None]] = None, debounce: float = 1.0,
                 poll_interval: float = 30.0, force_polling: bool = False) -> None:
        self.library = library
        self.on_change = on_change
        self.on_error = on_error
        self.debounce = float(debounce)
        self.poll_interval = float(poll_interval)
        self.force_polling = force_polling
        self.mode = "stopped"  # "events" | "polling" | "stopped"
        self.note: Optional[str] = None
        self._roots: list[str] = []  # the folders whose changes are synced (read from the library)
        self._scheduled: set[str] = set()  # the folders an observer watch was added for (never twice)
        # root -> (its watch, the folder it watches as (st_dev, st_ino)): a folder that went away and came back (a
        # drive unplugged and plugged in, a folder renamed away and back) is another folder to the system's watch
        self._watches: dict[str, tuple[ObservedWatch, tuple[int, int]]] = {}
        self._away: set[str] = set()  # watched folders gone since: caught up when they are back
        self._dropped: set[str] = set()  # folders the library no longer holds: caught up if put back (an undo)
        self._pending: dict[str, float] = {}  # path -> first time seen in this batch
        self._last_event = 0.0
        self._cond = threading.Condition()
        self._stop = False
        self._observer: Optional[BaseObserver] = None
        self._thread: Optional[threading.Thread] = None
        self._data_dir = os.path.abspath(library.data_dir)

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    # -- life cycle ---------------------------------------------------------
    def start(self) -> None:
        self._roots = [r.path for r in self.library.reader().roots()]
        self._observer = self._start_observer()
        self._thread = threading.Thread(target=self._run, name="searchapp-watch", daemon=True)
        self._thread.start()

    def _start_observer(self) -> BaseObserver:
        from watchdog.observers import Observer
        from watchdog.observers.polling import PollingObserver

        if not self.force_polling:
            observer = Observer()
            try:
                self._schedule(observer)
                observer.start()  # inotify adds its watches here: this is where its limits bite
                self.mode = "events"
                return observer
            except OSError as exc:
                if exc.errno not in (errno.ENOSPC, errno.EMFILE, errno.ENOMEM):
                    raise
                self.note = (f"the system refused more file watches ({exc.strerror or exc}); checking for changes "
                             f"every {self.poll_interval:g} s instead (raise fs.inotify.max_user_watches to fix)")
                log.warning("%s", self.note)
                _stop_quietly(observer)
        observer = PollingObserver(timeout=self.poll_interval)
        self._schedule(observer)
        observer.start()
        self.mode = "polling"
        return observer

    def _schedule(self, observer: BaseObserver) -> None:
        handler = _Handler(self)
        for root in self._roots:
            # A single-file root is watched through its folder; events for siblings are dropped by scope.
            target, seen = _watched_folder(root)
            if seen is not None:
                watch = observer.schedule(handler, target, recursive=True)  # type: ignore[arg-type]  # see _Handler
                self._watches[root] = (watch, seen)
                self._scheduled.add(root)

    def add_root(self, root: str) -> None:
        """Watch a root added after start (the library calls this from add_folder; _refresh_roots for a folder
        another process added, or one that was not there before: an unplugged drive plugged in)."""
        if root not in self._roots:
            self._roots = [*self._roots, root]  # a new list: the observer's thread reads it meanwhile
        if root in self._scheduled or self._observer is None:
            return
        target, seen = _watched_folder(root)
        if seen is None:  # not here now: the next look at the folder list tries again
            return
        try:
            watch = self._observer.schedule(_Handler(self), target, recursive=True)  # type: ignore[arg-type]  # see _Handler
            self._watches[root] = (watch, seen)
            self._scheduled.add(root)
        except OSError as exc:  # out of watches: this root is caught up by the next full sync
            self._scheduled.add(root)  # said once, not every few seconds
            self.note = f"{root} is not watched: {exc.strerror or exc}"
            log.warning("%s", self.note)

    def stop(self) -> None:
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
        path = os.path.abspath(path)
        if is_within(path, self._data_dir):
            return False  # our own database and index files
        skip = self.library.config.scan.skip_dirs
        exclude = self.library.config.scan.exclude
        return any(in_scope(root, path, skip, exclude) for root in self._roots)

    def notify(self, paths: list[str]) -> None:
        now = time.monotonic()
        wanted = [p for p in paths if self._wanted(p)]
        if not wanted:
            return
        with self._cond:
            for p in wanted:
                self._pending.setdefault(p, now)
            self._last_event = now
            self._cond.notify_all()

    def _take_batch(self) -> Optional[list[str]]:
        """Block until a batch is due (quiet for `debounce`, or held too long) or the watcher stops; [] after
        ROOTS_EVERY_S without any change (time to read the folder list again)."""
        with self._cond:
            while not self._stop:
                if self._pending:
                    now = time.monotonic()
                    quiet_at = self._last_event + self.debounce
                    hold_until = min(self._pending.values()) + self.debounce * MAX_HOLD_FACTOR
                    due = min(quiet_at, hold_until)
                    if now >= due:
                        batch, self._pending = sorted(self._pending), {}
                        return batch
                    self._cond.wait(due - now)
                elif not self._cond.wait(ROOTS_EVERY_S) and not self._pending and not self._stop:
                    return []
            return None

    def _refresh_roots(self) -> None:
        """The library's folders as stored now (outside the lock: scheduling a watch must not wait on events)."""
        try:
            stored = [r.path for r in self.library.reader().roots()]
        except Exception as exc:  # a busy, locked or closing database: the next tick reads it again, and the
            log.debug("folder list not read: %s", exc)  # watch goes on (an error here ended its thread)
            return
        self._check_watched()
        for root in stored:
            self.add_root(root)
        back = sorted(r for r in self._away if r in self._scheduled) + sorted(self._dropped.intersection(stored))
        self._dropped.difference_update(stored)
        if back:
            self._away.difference_update(back)
            log.warning("%s is back: watching it again, and reading what changed while it was away", ", ".join(back))
            # The whole folder, as a sync of it: what changed while it was away (or, put back by an undo, while it
            # was out of the library) is read.
            self.notify(back)
        gone = set(self._roots) - set(stored)
        self._dropped.update(gone)
        if gone:
            self._roots = [r for r in self._roots if r not in gone]  # its events are no longer wanted

    def _check_watched(self) -> None:
        """A watched folder that is gone, or is another folder now (unplugged and plugged in again, renamed away and
        back), loses its watch: the system's watch followed the old one or ended with it, and nothing said so.
        add_root watches it anew once it is there, and _refresh_roots catches it up."""
        for root, (watch, seen) in list(self._watches.items()):
            if _watched_folder(root)[1] == seen:
                continue
            del self._watches[root]
            self._scheduled.discard(root)
            self._away.add(root)
            if self._observer is not None:
                try:
                    self._observer.unschedule(watch)
                except (KeyError, OSError, RuntimeError):  # its emitter already ended with the folder
                    pass
            if os.path.lexists(root):
                continue  # another folder in its place: watched anew by the add_root that follows
            log.warning("%s is gone (a drive unplugged, a folder moved?): its files stay searchable, and it is "
                        "watched again when it is back", root)

    def _run(self) -> None:
        retry = self.debounce
        while (batch := self._take_batch()) is not None:
            if not batch:
                self._refresh_roots()
                continue
            try:
                rep = self.library.sync_changed(batch)
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


def _watched_folder(root: str) -> tuple[str, Optional[tuple[int, int]]]:
    """(the folder watched for `root` (a single-file root through its folder), its (st_dev, st_ino)), the second
    None when it is not here now (a missing folder's parent is no stand-in: it would be "back" at once)."""
    if not os.path.lexists(root):
        return root, None
    target = root if os.path.isdir(root) else os.path.dirname(root)
    try:
        st = os.stat(target)
    except OSError:
        return target, None
    return target, ((st.st_dev, st.st_ino) if stat.S_ISDIR(st.st_mode) else None)


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
