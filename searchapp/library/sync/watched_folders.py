"""The folders an observer watches for a library's roots, and whether each watch still holds.

watchdog keeps one watch, and one emitter, per folder: two roots that share a folder (two single-file roots side
by side, a folder root that is also a file root's parent) share its watch, so it is dropped only when no root
needs it any more. A folder watched only for the single files in it is watched alone, not with every folder below
it: `~/notes.txt` added as a root watched all of the home folder, down to the last cache file (inotify gives each
folder below a watch of its own, and the system's limit is often 8,192); once a folder root needs it, its watch
takes in what is below, and gives it up again when only single files need it. A system's watch ends with its folder: a folder deleted, moved away, or unplugged, is no
longer watched even once it is back, and ext4 gives a folder made again at once the old one's inode. So a watch is
known to have ended when the handler sees its folder itself deleted or moved (`lose`), or when the folder's
(st_dev, st_ino) differs from the one it had when watched (`check`); its roots are then watched anew by the
watcher as soon as their folders are there.
"""

from __future__ import annotations

import os
import stat
import threading
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Optional

from ...base.stored_names import disk_path

if TYPE_CHECKING:  # watchdog itself is imported only when watching starts
    from watchdog.observers.api import BaseObserver, ObservedWatch

__all__ = ["WatchedFolders", "watched_folder"]

Identity = tuple[int, int]  # (st_dev, st_ino)


def watched_folder(root: str) -> tuple[str, Optional[Identity]]:
    """(the folder watched for `root`: itself, or a single-file root's folder, as on disk (a root is stored as
    names are: base/stored_names.py); that folder's identity), the second None when `root` is not here now (a
    missing folder root's parent is no stand-in: it would be "here" at once)."""
    root = disk_path(root)
    if not os.path.lexists(root):
        return root, None
    target = root if os.path.isdir(root) else os.path.dirname(root)
    return target, _identity(target)


def _identity(folder: str) -> Optional[Identity]:
    try:
        st = os.stat(folder)
    except OSError:
        return None
    return (st.st_dev, st.st_ino) if stat.S_ISDIR(st.st_mode) else None


@dataclass
class _Watch:
    watch: ObservedWatch
    identity: Identity
    roots: set[str] = field(default_factory=set)

    def below(self, target: str) -> bool:
        """Whether the folders below `target` are to be watched: a root is the folder itself (not a file in it)."""
        return any(disk_path(root) == target for root in self.roots)


class WatchedFolders:
    """One watch per folder, shared by the roots in it; thread-safe (the watcher's thread, the library's own
    add_folder and watchdog's handler all call it)."""

    def __init__(self, observer: BaseObserver, handler: Any) -> None:
        self._observer, self._handler = observer, handler
        # Held across the observer's schedule/unschedule, which take watchdog's own lock. watchdog calls the
        # handler (then `lose`) holding that lock: `lose` takes `_lost_lock` alone, never this one, or the two
        # threads would wait for each other (a reviewer's repro hung add_folder and then stop()).
        self._lock = threading.Lock()
        self._lost_lock = threading.Lock()  # taken after _lock, or alone; no observer call under it
        self._folders: dict[str, _Watch] = {}  # watched folder -> its watch
        self._lost: set[str] = set()  # watched folders the handler saw deleted or moved themselves

    def has(self, root: str) -> bool:
        with self._lock:
            return any(root in w.roots for w in self._folders.values())

    def watch(self, root: str) -> bool:
        """Watch `root` (sharing its folder's watch when there is one); False when it is not here now. An
        OSError is the observer's (out of watches)."""
        target, identity = watched_folder(root)
        if identity is None:
            return False
        with self._lock:
            held = self._folders.get(target)
            if held is not None and (held.identity != identity or self._is_lost(target)):
                return False  # its watch has ended: `check` ends it for every root in it, and they are caught up
            if held is None:
                watch = self._observer.schedule(self._handler, target, recursive=disk_path(root) == target)
                held = self._folders[target] = _Watch(watch, identity)
            held.roots.add(root)
            self._rescope(target, held)
            return True

    def forget(self, root: str) -> None:
        """`root` is no longer the library's: its share of its folder's watch is given up."""
        with self._lock:
            for target, w in list(self._folders.items()):
                w.roots.discard(root)
                if not w.roots:
                    self._unschedule(target)
                else:
                    self._rescope(target, w)

    def lose(self, folder: str) -> None:
        """The handler saw `folder` itself deleted or moved (watchdog's thread, holding its observer's lock): if it
        is a watched folder, its watch has ended. Read without `_lock` (see __init__): a folder not watched is
        dropped from the set by the next `check`."""
        with self._lost_lock:
            self._lost.add(folder)

    def _is_lost(self, folder: str) -> bool:
        with self._lost_lock:
            return folder in self._lost

    def check(self) -> list[str]:
        """The roots whose watch has ended (its folder gone, moved, or another folder now): their watches are
        dropped, for the watcher to watch them anew once they are here."""
        ended: list[str] = []
        with self._lock:
            for target, w in list(self._folders.items()):
                if self._is_lost(target) or _identity(target) != w.identity:
                    ended += sorted(w.roots)
                    self._unschedule(target)
            with self._lost_lock:
                self._lost.intersection_update(self._folders)  # events for folders not watched (any subfolder)
        return ended

    def _rescope(self, target: str, w: _Watch) -> None:
        """`target`'s watch made to take in the folders below it, or not, as its roots now need (the lock held):
        watchdog fixes that when a watch is made, so the watch is made again."""
        if w.watch.is_recursive == w.below(target):
            return
        self._observer.unschedule(w.watch)
        w.watch = self._observer.schedule(self._handler, target, recursive=w.below(target))

    def _unschedule(self, target: str) -> None:
        """Drop `target`'s watch (the lock held)."""
        w = self._folders.pop(target)
        with self._lost_lock:
            self._lost.discard(target)
        try:
            self._observer.unschedule(w.watch)
        except (KeyError, OSError, RuntimeError):  # its emitter already ended with the folder
            pass
