"""Whether a file lies in a git working tree on this disk (decision 0187): the one place where a sync puts the
vectors of passages it deletes on the shelf (store/shelf.py) instead of letting them go. What a git tree's file
held is still in its `.git` history on this disk, so its vectors keep nothing the disk does not already hold; a
branch switched back brings the same passages, and their meaning is taken off the shelf, not embedded again.

A tree is a folder holding `.git` (a folder, or a file: a linked worktree's or a submodule's), the file's own
folder or one above it, below the home folder: a `.git` in the home folder (a dotfiles repository) tracks a few
dotfiles, not the documents beside them, and one above it is no developer's tree of this person's."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Optional

from ...base.member_paths import split_member
from ...base.stored_names import disk_path

__all__ = ["GitTrees"]


class GitTrees:
    """Asks the disk once a folder (a sync deletes many files of the same few folders)."""

    def __init__(self, home: Optional[str] = None) -> None:
        self._home = os.path.normpath(home if home is not None else str(Path.home()))
        self._folders: dict[str, bool] = {}

    def holds(self, path: str) -> bool:
        """Whether the file `path` (an entry's stored key: an archive's member counts as its archive) is in a git
        working tree now. A tree deleted whole (its `.git` gone) holds nothing: its files' history is gone too."""
        return self._in_tree(os.path.dirname(_outer(path)))

    def gone_from(self, path: str) -> bool:
        """Whether the file `path` (its archive, for a member) is gone from disk, out of a git tree still there: not
        one a rule now leaves out (a secret's name, an exclusion), which is still on disk and whose meaning goes."""
        outer = _outer(path)
        return not os.path.lexists(outer) and self._in_tree(os.path.dirname(outer))

    def _in_tree(self, folder: str) -> bool:
        if folder in self._folders:
            return self._folders[folder]
        parent = os.path.dirname(folder)
        if folder == self._home or parent == folder:  # the home folder or the disk's root: no tree above
            found = False
        else:
            found = os.path.lexists(os.path.join(folder, ".git")) or self._in_tree(parent)
        self._folders[folder] = found
        return found


def _outer(path: str) -> str:
    """The file on disk that holds the entry `path` (stored key)."""
    return os.path.normpath(disk_path(split_member(path)[0]))
