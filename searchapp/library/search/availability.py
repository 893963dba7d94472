"""Whether an indexed file can be opened now: a hit from a missing or unreadable folder is still shown, marked
as unavailable (pipeline.mark_available), and an exact copy that can be opened takes its row (folding.py).

Only the files that have an exact copy among a search's candidates are asked, one stat each.
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
    """`readable(path)`: False when the file (a member: its container) cannot be read now, as a hit is marked
    (`unavailable`): that asks the file itself, so a folder renamed away, an unplugged drive, and the empty mount
    point such a drive leaves (which the root's own stat would pass) all count. A path under none of this
    library's roots (another machine's, in a shared library) is taken as readable: it is not known here."""

    def __init__(self, store: Store) -> None:
        self._store = store
        self._roots: Optional[list[str]] = None  # read at the first question: most searches have no copies

    def __call__(self, path: str) -> bool:
        if self._roots is None:
            self._roots = [r.path for r in self._store.roots()]
        return not any(is_within(path, r) for r in self._roots) or not unavailable(path)
