"""Whether an indexed root can be read right now.

A root that cannot be read (renamed away, an unplugged drive, an unmounted share) is kept with every
passage: losing a whole index because a drive was not plugged in is worse than showing stale hits marked
as unavailable. Only `remove` forgets a root.
"""

from __future__ import annotations

import os
from typing import Optional

__all__ = ["missing_reason", "owning_root"]


def missing_reason(path: str, has_files: bool) -> Optional[str]:
    """Why the root at `path` cannot be synced now, or None when it can.

    A folder that is there but completely empty while the library holds files of it is taken for an
    unmounted mount point (the two cannot be told apart): its files are kept until it has entries again
    or the user removes it.
    """
    try:
        os.stat(path)
    except FileNotFoundError:
        return "not found (renamed, deleted, or on a drive that is not connected)"
    except OSError as exc:
        return f"cannot be read: {exc.strerror or exc}"
    if not os.path.isdir(path):
        return None  # a single file as a root: the scan reads it (or says why not)
    try:
        with os.scandir(path) as it:
            empty = next(it, None) is None
    except OSError as exc:
        return f"cannot be read: {exc.strerror or exc}"
    if empty and has_files:
        return "empty (not mounted?); its indexed files are kept"
    return None


def owning_root(path: str, roots: list[str]) -> Optional[str]:
    """The innermost of `roots` that `path` is, or lies under; None when there is none."""
    owners = [r for r in roots if path == r or path.startswith(r.rstrip(os.sep) + os.sep)]
    return max(owners, key=len) if owners else None
