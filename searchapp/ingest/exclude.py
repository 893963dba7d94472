"""`[scan] exclude`: glob patterns for files and folders the user leaves out of an indexed folder.

A pattern with a path separator is matched against the full path (`~` expands; a folder's pattern
covers everything under it); one without is matched against each name, like `skip_dirs` but for files too.
"""

from __future__ import annotations

import fnmatch
import os
from typing import Collection, Iterable, Optional

from .fsnames import is_within

__all__ = ["Excluder", "in_scope"]


class Excluder:
    def __init__(self, patterns: Iterable[str]) -> None:
        pats = [p.strip() for p in patterns if p and p.strip()]
        self.paths = [os.path.abspath(os.path.expanduser(p)).rstrip(os.sep) or os.sep for p in pats if os.sep in p]
        self.names = [p for p in pats if os.sep not in p]

    def __bool__(self) -> bool:
        return bool(self.paths or self.names)

    def entry(self, path: str, name: str) -> bool:
        """Whether the entry `path` (whose last part is `name`) itself matches a pattern."""
        return self.pattern_of(path, name) is not None

    def pattern_of(self, path: str, name: str) -> Optional[str]:
        """The first pattern the entry `path` (whose last part is `name`) itself matches, else None."""
        return next((p for p in self.names if fnmatch.fnmatchcase(name, p)), None) or next(
            (p for p in self.paths if fnmatch.fnmatchcase(path, p)), None)

    def under(self, root: str, path: str) -> bool:
        """Whether `path`, or a folder between `root` and it, matches a pattern (for paths met one by one). The
        root itself is never left out by its own name: the person chose it, and a full scan reads it (a folder
        named `old~` was indexed by a sync while its changes were ignored and explain called it excluded)."""
        return self.pattern_under(root, path) is not None

    def pattern_under(self, root: str, path: str) -> Optional[str]:
        """The pattern that leaves `path` out (under's), the outermost entry's first one: what explain names."""
        if not self:
            return None
        current = os.path.abspath(path)
        root = os.path.abspath(root)
        found = None
        while current != root and len(current) > len(root):
            found = self.pattern_of(current, os.path.basename(current)) or found
            current = os.path.dirname(current)
        return found


def in_scope(root: str, path: str, skip_dirs: Collection[str], exclude: Collection[str] = ()) -> bool:
    """Whether `path` belongs to `root` as a full scan would see it: under it, and not inside a hidden, skipped or
    excluded folder (a watcher reports changes in .git/ too; a link's target is indexed at its own path only where
    its folder's scan reaches it: ingest/scan.py)."""
    root, path = os.path.abspath(root), os.path.abspath(path)
    if path == root:
        return True
    if not is_within(path, root):
        return False
    parts = os.path.relpath(path, root).split(os.sep)
    if any(p.startswith(".") or p in skip_dirs for p in parts):
        return False
    return not (exclude and Excluder(exclude).under(root, path))
