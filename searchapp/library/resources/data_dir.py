"""Opening a data dir: does a library exist, may this command create one, can it be written, is it private.

Read-only commands (search, status, eval ann) never create a library; a library the process cannot write
(a read-only mount, a backup, another user's 0555 folder) opens read-only, so search and status still work
and writes say why they cannot. Opening for writing makes the folder 0700 and its files 0600 (see
base/private.py), tightening a library made by an older version once, with a notice.

Decision (as ssh does with ~/.ssh): before anything is written, the folder and every entry in it must be this
user's. One another user owns (a world-writable folder someone else made, a planted ocr_cache.sqlite) is
refused with one line, exit 2, and nothing in it is used or changed: that user could read the passages and OCR
text written there, or plant text to be indexed. Ours but open to others is repaired (0700/0600) with a notice.
The databases are never symbolic links (SQLite would create or open the target, outside the folder).
A library this process cannot write (another user's backup) still opens read-only: nothing is written there.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from ...base.errors import DataDirError, StoreError
from ...base.private import create_private_file, foreign_owner, make_private_dir, owner_refusal, tighten
from ...store.damage import damaged_message, is_damage
from ...store.ocr_cache import OCR_CACHE_NAME
from ...store.history import SEARCHES_DB
from ..members.temp_copies import remove_stale_copies

__all__ = ["DB_NAME", "DataDirState", "open_data_dir", "can_write", "read_only_error", "damaged_message", "is_damage"]

DB_NAME = "library.sqlite"
_DATABASES = (DB_NAME, SEARCHES_DB, OCR_CACHE_NAME)  # and their -wal, -shm, -journal


@dataclass(frozen=True)
class DataDirState:
    read_only: bool
    notice: Optional[str] = None  # said once, e.g. that permissions were tightened


def can_write(path: Path) -> bool:
    """Whether this process may write `path`. One function so tests running as root (where chmod denies
    nothing) can stand in for a read-only mount."""
    return os.access(path, os.W_OK)


def open_data_dir(data_dir: Path, *, create: bool) -> DataDirState:
    """Check `data_dir` before SQLite touches it; raise DataDirError (exit 2) or StoreError (exit 3)."""
    remove_stale_copies()  # at start, once per process: member copies a killed searchapp left in the temp folder
    d = Path(data_dir)
    db = d / DB_NAME
    if d.exists() and not d.is_dir():
        raise DataDirError(f"the data dir {d} is a file, not a folder; pass --data-dir a folder (or a new path)")
    if not d.exists():
        if not create:
            raise DataDirError(_no_library(d))
        try:
            make_private_dir(d)
        except OSError as exc:
            raise DataDirError(f"cannot create the library folder {d}: {exc.strerror or exc}") from None
    if not os.access(d, os.R_OK | os.X_OK):
        raise DataDirError(f"cannot read the library folder {d}: permission denied")
    if db.exists():
        if not db.is_file():
            raise DataDirError(f"{db} is not a file; it should be the library database")
        if not os.access(db, os.R_OK):
            raise DataDirError(f"cannot read the library database {db}: permission denied")
        if db.stat().st_size == 0:
            raise StoreError(f"the library database {db} is empty (0 bytes): its contents were lost (a full disk "
                             f"or a copy that failed?). Restore it from a backup, or delete it and run "
                             f"`searchapp index FOLDER` to build the library again.")
    elif not create:
        raise DataDirError(_no_library(d))
    writable = can_write(d) and (not db.exists() or can_write(db))
    if not writable:
        if not db.exists():
            raise DataDirError(f"the library folder {d} is read-only; a new library cannot be created there")
        return DataDirState(read_only=True)
    _refuse_untrusted(d)
    changed = tighten(d)
    create_private_file(db)
    notice = None
    if changed:
        names = ", ".join(n for n in changed if n != ".") or "the folder"
        notice = (f"made the library in {d} private (other users could read or write it): "
                  f"folder 0700, files 0600 ({names})")
    return DataDirState(read_only=False, notice=notice)


def _refuse_untrusted(d: Path) -> None:
    """DataDirError when the folder or an entry in it is another user's, or a database is a link (see above)."""
    st = os.stat(d)
    if foreign_owner(st):
        raise owner_refusal(d, st)
    try:
        entries = list(os.scandir(d))
    except OSError as exc:
        raise DataDirError(f"cannot read the library folder {d}: {exc.strerror or exc}") from None
    for entry in entries:
        try:
            est = entry.stat(follow_symlinks=False)
        except FileNotFoundError:  # gone since the listing: SQLite's -wal/-shm go when another process closes
            continue
        if foreign_owner(est):
            raise owner_refusal(Path(entry.path), est)
        if entry.is_symlink() and entry.name.startswith(_DATABASES):
            raise DataDirError(f"{entry.path} is a symbolic link; searchapp never follows one to its databases "
                               f"(remove the link, or pass --data-dir the folder it points into)")


def read_only_error(data_dir: Path, action: str) -> DataDirError:
    """The refusal of a write on a read-only library; `action` names what was asked ("removing", "reindexing"):
    a `remove` told that "indexing needs write access" read as if it had been asked to index."""
    return DataDirError(f"the library in {data_dir} is read-only (a read-only disk or folder); "
                        f"search and status work, but {action} needs write access")


def _no_library(d: Path) -> str:
    return f"no library at {d} (index a folder first: `searchapp index PATH`, or check --data-dir)"
