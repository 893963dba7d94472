"""`[scan] exclude`: glob patterns for files and folders the user leaves out of an indexed folder.

A pattern with a path separator is matched against the full path (`~` expands; a folder's pattern
covers everything under it); one without is matched against each name, like `skip_dirs` but for files too.
"""

from __future__ import annotations

import fnmatch
import os
from typing import Iterable

__all__ = ["Excluder"]


class Excluder:
    def __init__(self, patterns: Iterable[str]) -> None:
        pats = [p.strip() for p in patterns if p and p.strip()]
        self.paths = [os.path.abspath(os.path.expanduser(p)).rstrip(os.sep) or os.sep for p in pats if os.sep in p]
        self.names = [p for p in pats if os.sep not in p]

    def __bool__(self) -> bool:
        return bool(self.paths or self.names)

    def entry(self, path: str, name: str) -> bool:
        """Whether the entry `path` (whose last part is `name`) itself matches a pattern."""
        return any(fnmatch.fnmatchcase(name, p) for p in self.names) or any(
            fnmatch.fnmatchcase(path, p) for p in self.paths)

    def under(self, root: str, path: str) -> bool:
        """Whether `path`, or a folder between `root` and it, matches a pattern (for paths met one by one). The
        root itself is never left out by its own name: the person chose it, and a full scan reads it (a folder
        named `old~` was indexed by a sync while its changes were ignored and explain called it excluded)."""
        if not self:
            return False
        current = os.path.abspath(path)
        root = os.path.abspath(root)
        while current != root and len(current) > len(root):
            if self.entry(current, os.path.basename(current)):
                return True
            current = os.path.dirname(current)
        return False
