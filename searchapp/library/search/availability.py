"""Whether an indexed file can be opened now: a hit from a missing or unreadable folder is still shown, marked
as unavailable (pipeline.mark_available), and an exact copy that can be opened takes its row (folding.py).

Only the rows shown and the files that have an exact copy among a search's candidates are asked, one stat each.

A network drive that stopped answering (a hard NFS mount, an SMB share whose server went away) holds a stat for
minutes, or for ever; a search that waited on it would hang, and a sync waiting for that search with it. So the
stats of one question are asked on a helper thread, STAT_WAIT_S (8 s) at most: a path whose stat has not answered by
then is "not answering", and so is, for STUCK_S, every path under the same folder of the library (else its own
folder): no search waits on that drive twice in a minute. The helper thread is left to its stat (a daemon
holding nothing); at most one is left a minute for each such folder.
"""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path
from typing import Callable, Iterable, Optional, Sequence

from ...base.member_paths import container_of
from ...base.stored_names import disk_path
from ...ingest.fsnames import is_within
from ...store import Store

__all__ = ["Readable", "RootsFn", "why_unavailable", "NOT_ANSWERING", "MISSING", "STAT_WAIT_S", "STUCK_S"]

# How long one question waits for its stats: a sleeping external disk takes a few seconds to spin up and answer
# (it is not a drive that stopped answering); a drive that did is waited for this long once a minute.
STAT_WAIT_S = 8.0
STUCK_S = 60.0  # how long a folder whose stat did not answer is taken as not answering, without asking again
NOT_ANSWERING = "not answering (a network drive that stopped responding?)"
MISSING = "file or folder missing"

_stuck: dict[str, float] = {}  # folder -> when a stat under it did not answer (time.monotonic)
_stuck_lock = threading.Lock()


def _why(path: str, stat: Callable[[Path], object]) -> str:
    """Why the stored `path` (a member: its container) cannot be read now, or "": a folder made unreadable is
    not a missing one."""
    try:
        stat(Path(disk_path(container_of(path))))
    except PermissionError:
        return "permission denied"
    except OSError:
        return MISSING
    return ""


def _folder_of(path: str, roots: Sequence[str]) -> str:
    """The folder taken as not answering with `path`: its folder of the library, else the folder holding it."""
    return next((r for r in roots if is_within(path, r)), os.path.dirname(container_of(path)))


def _stuck_under(path: str) -> bool:
    now = time.monotonic()
    with _stuck_lock:
        for folder, since in list(_stuck.items()):
            if now - since > STUCK_S:
                del _stuck[folder]  # asked again: the drive may be back
            elif is_within(path, folder):
                return True
    return False


def _os_stat(path: Path) -> object:
    """The stat asked (a test's stands in for a drive that stopped answering, which cannot be made here)."""
    return os.stat(path)


RootsFn = Callable[[], Sequence[str]]


def why_unavailable(paths: Iterable[str], roots: RootsFn = tuple) -> dict[str, str]:
    """Each of `paths` -> why it cannot be read now ("" when it can), within STAT_WAIT_S for each folder that does
    not answer (see the module docstring). `roots()`: the library's folders, to take a whole one as not answering
    at once; asked only then (every search asks its rows: the folder list, a round trip on a shared library, is
    read only when a stat hung)."""
    stat = _os_stat
    out: dict[str, str] = {}
    todo = list(dict.fromkeys(paths))
    while todo:
        for p in todo:
            if _stuck_under(p):
                out[p] = NOT_ANSWERING
        todo = [p for p in todo if p not in out]
        if not todo:
            break
        asked = _Asked(todo, stat)
        helper = threading.Thread(target=asked.run, name="searchapp-stat", daemon=True)
        helper.start()
        helper.join(STAT_WAIT_S)
        hung = asked.asking  # read before the answers: None only once every one of them is in (run() sets it last)
        out.update(dict(asked.done))  # a copy: the helper may still add to it
        if hung is None:
            break
        with _stuck_lock:
            _stuck[_folder_of(hung, roots())] = time.monotonic()
        out[hung] = NOT_ANSWERING
        todo = [p for p in todo if p not in out]  # the rest, each under that folder answered at once
    return out


class _Asked:
    """The stats of one helper thread: what each answered, and the path it is asking now (None when done)."""

    def __init__(self, paths: list[str], stat: Callable[[Path], object]) -> None:
        self.paths, self.stat = paths, stat
        self.done: dict[str, str] = {}
        self.asking: Optional[str] = paths[0] if paths else None  # None once every path answered

    def run(self) -> None:
        for p in self.paths:
            self.asking = p
            self.done[p] = _why(p, self.stat)
        self.asking = None


class Readable:
    """`readable(path)`: False when the file (a member: its container) cannot be read now, as a hit is marked
    (`why_unavailable`): that asks the file itself, so a folder renamed away, an unplugged drive, and the empty
    mount point such a drive leaves (which the root's own stat would pass) all count. A path under none of this
    library's roots (another machine's, in a shared library) is taken as readable: it is not known here."""

    def __init__(self, store: Store) -> None:
        self._store = store
        self._roots: Optional[list[str]] = None  # read at the first question: most searches have no copies

    def __call__(self, path: str) -> bool:
        if self._roots is None:
            self._roots = [r.path for r in self._store.roots()]
        roots = self._roots
        return not any(is_within(path, r) for r in roots) or not why_unavailable([path], lambda: roots)[path]
