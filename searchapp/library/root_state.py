"""Whether an indexed root can be read right now.

A root that cannot be read (renamed away, an unplugged drive, an unmounted share) is kept with every
passage: losing a whole index because a drive was not plugged in is worse than showing stale hits marked
as unavailable. Only `remove` forgets a root.
"""

from __future__ import annotations

import os
import stat
from typing import Optional

__all__ = ["missing_reason", "root_missing", "owning_root"]


def missing_reason(path: str, has_files: bool, has_files_below: bool = False) -> Optional[str]:
    """Why the root at `path` cannot be synced now, or None when it can.

    `has_files_below`: the library holds files under `path/` (it was indexed as a folder). A folder that
    is there but completely empty while the library holds files of it is taken for an unmounted mount
    point (the two cannot be told apart): its files are kept until it has entries again or the user
    removes it. A folder replaced by a file, a FIFO or anything else that is not a folder is missing too:
    scanning it would drop every indexed file of the folder.
    """
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return "not found (renamed, deleted, or on a drive that is not connected)"
    except OSError as exc:
        return f"cannot be read: {exc.strerror or exc}"
    if stat.S_ISREG(st.st_mode):
        if has_files_below:
            return "is a file now, not the folder that was indexed; its indexed files are kept"
        return None  # a single file as a root: the scan reads it (or says why not)
    if not stat.S_ISDIR(st.st_mode):  # a FIFO, socket or device: never read as a root (a FIFO would block)
        return "is not a folder or a regular file now; its indexed files are kept"
    try:
        with os.scandir(path) as it:
            empty = next(it, None) is None
    except OSError as exc:
        return f"cannot be read: {exc.strerror or exc}"
    if empty and has_files:
        return "empty (not mounted?); its indexed files are kept"
    return None


def root_missing(store, root) -> Optional[str]:
    """missing_reason for an indexed root (a RootRow) of `store`."""
    return missing_reason(root.path, store.has_files(root.id), store.has_files_below(root.id, root.path))


def owning_root(path: str, roots: list[str]) -> Optional[str]:
    """The innermost of `roots` that `path` is, or lies under; None when there is none."""
    owners = [r for r in roots if path == r or path.startswith(r.rstrip(os.sep) + os.sep)]
    return max(owners, key=len) if owners else None
