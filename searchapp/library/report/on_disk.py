"""`explain`'s word on what is on disk now beside what the last sync read (decision 0192): an entry whose file
changed since (its indexed text is older), was deleted since (the next sync removes it), or, for a path the library
no longer holds, was found renamed or moved by a sync (sync/meta_keys.py record_moves). `explain` is the "why isn't
this found?" command: it called a file just edited "indexed" with its old text, and a deleted one "indexed" beside
"cannot read". Compared as a sync compares (words_pass.py): size and mtime, then, where only the ctime moved or the
row was marked to check again, the bytes' sha256.
"""

from __future__ import annotations

import os
import stat
import time
from pathlib import Path
from typing import Optional

from ...base.entry_dates import clamped_ns
from ...base.hashing import file_sha256
from ...base.member_paths import display_path, split_member
from ...base.stored_names import disk_path
from ...ingest.scan import CTIME_IS_CHANGE, changed_in_place
from ...store import Store
from ...store.rows import FileRow
from ..sync.meta_keys import recorded_move

__all__ = ["AS_READ", "CHANGED", "DELETED", "since_sync", "moved_to"]

AS_READ, CHANGED, DELETED = "as_read", "changed", "deleted"


def since_sync(row: FileRow) -> Optional[tuple[str, str]]:
    """(AS_READ, CHANGED or DELETED, what to say) of a stored file's row (a member's: its container's) against its
    file now; None when it cannot be told (a file that cannot be stat'ed for another reason than being gone)."""
    on_disk = disk_path(split_member(row.path)[0])
    try:
        st = os.stat(on_disk)
    except FileNotFoundError:
        return DELETED, "deleted since the last sync; the next sync removes it (`searchapp index`)"
    except OSError:
        return None
    if row.status != "indexed" and stat.S_ISDIR(st.st_mode):
        # a link the scan skipped as a folder (a loop, one out of the indexed folder): no text was read, so none is
        # older; `explain loop` said "changed since the last sync" of a link untouched, with two equal times
        return AS_READ, "as the last sync found it"
    if not stat.S_ISREG(st.st_mode) or _changed(row, st, on_disk):  # a file then, a folder now: changed
        told = f"modified {_when(st.st_mtime_ns)}, the indexed text is of {_when(row.mtime_ns)}"
        return CHANGED, (f"changed since the last sync (indexed text is older): {told}; `searchapp index` reads it "
                         "again")
    return AS_READ, "as the last sync read it"


def _changed(row: FileRow, st: os.stat_result, on_disk: str) -> bool:
    if (st.st_size, clamped_ns(st.st_mtime_ns)) != (row.size, row.mtime_ns):
        return True
    in_place = changed_in_place(row.ctime_ns, st.st_ctime_ns if CTIME_IS_CHANGE else None)
    if not in_place or not row.sha256:  # same size and times: unchanged, as a sync judges it
        return False
    try:  # same size and mtime, a ctime that moved: its bytes tell (decision 0150), as the sync's hash does
        return file_sha256(Path(on_disk)) != row.sha256
    except OSError:
        return False


def _when(ns: int) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(ns / 1e9))


def moved_to(store: Store, path: str) -> Optional[tuple[str, str]]:
    """(where, what to say) of `path` (no entry now) when a sync found it renamed or moved: where its bytes are
    indexed now; None when no sync recorded it (or nothing holds those bytes any more)."""
    found = recorded_move(store, path)
    if found is None:
        return None
    sha, new = found
    places = [new] if new is not None else store.paths_by_sha256([sha]).get(sha, [])
    places = [p for p in places if p != path]
    if not places:
        return None
    more = f" (and {len(places) - 1} more with the same bytes)" if len(places) > 1 else ""
    return places[0], f"renamed or moved at a sync: now {display_path(places[0])}{more}"
