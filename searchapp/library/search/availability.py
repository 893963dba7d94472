"""Whether an indexed file can be opened now: a hit from a missing or unreadable folder is still shown, marked
as unavailable (pipeline.mark_available), and an exact copy that can be opened takes its row (folding.py).

A folder renamed away or a drive unplugged is known by its root (sync/roots.py keeps such a root's passages):
`Readable` stats each root of this library once, never each file, so the folding of a search whose candidates
all have a copy on a missing drive costs a stat a root.
"""

from __future__ import annotations

import os
from typing import Optional

from ...base.member_paths import container_of
from ...ingest.fsnames import is_within, real_path
from ...store import Store

__all__ = ["Readable", "unavailable"]


def unavailable(path: str) -> str:
    """Why the stored `path` (a member: its container) cannot be read now, or "": a folder made unreadable is
    not a missing one."""
    try:
        os.stat(real_path(container_of(path)))
    except PermissionError:
        return "permission denied"
    except OSError:
        return "file or folder missing"
    return ""


class Readable:
    """`readable(path)`: False when the indexed root holding `path` cannot be read now. A path under none of this
    library's roots (another machine's, in a shared library) is taken as readable: it is not known here."""

    def __init__(self, store: Store) -> None:
        self._store = store
        self._roots: Optional[list[str]] = None  # read at the first question: most searches have no copies
        self._missing: dict[str, bool] = {}

    def __call__(self, path: str) -> bool:
        if self._roots is None:
            self._roots = [r.path for r in self._store.roots()]
        root = max((r for r in self._roots if is_within(path, r)), key=len, default=None)
        if root is None:
            return True
        if root not in self._missing:
            self._missing[root] = bool(unavailable(root))
        return not self._missing[root]
