"""Paths compared as the library compares them. How a name that is not UTF-8 is stored, found on disk again and
shown: base/stored_names.py (decision 0179)."""

from __future__ import annotations

import os
from typing import Iterable, Optional

from ..base.member_paths import split_member
from ..base.stored_names import disk_path

__all__ = ["is_within", "one_name_each", "other_files"]


def is_within(path: str, folder: str) -> bool:
    """`path` is `folder` or lies under it, compared as strings (callers pass both absolute, or both real).
    The one rule for roots, scopes and the watcher: `/a/bc` is not inside `/a/b`."""
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def _file_key(path: str) -> Optional[tuple[int, int, Optional[str]]]:
    """(device, inode, member) of a stored entry's file on disk (its container's, for a member); None when it
    cannot be read now (then it is nobody's second name)."""
    container, member = split_member(path)
    try:
        st = os.stat(disk_path(container))
    except (OSError, ValueError):
        return None
    return st.st_dev, st.st_ino, member


def _is_real(path: str) -> bool:
    container = disk_path(split_member(path)[0])
    return os.path.realpath(container) == os.path.abspath(container)


def one_name_each(paths: Iterable[str]) -> list[str]:
    """`paths` (stored entries' names) with one name kept for each file: a symlink to a file, a hard link, a file
    reached through a linked folder are the file itself, never its copy (a person deleting "the copy" of a file
    whose other name was its link deleted the only one: decision 0192). The name without a link on its way is
    kept, else the first; order kept. Compared by device and inode, on disk now."""
    return _one_each([(p, _file_key(p)) for p in paths])


def _one_each(keyed: list[tuple[str, Optional[tuple[int, int, Optional[str]]]]]) -> list[str]:
    chosen: dict[tuple[int, int, Optional[str]], str] = {}
    for path, key in keyed:
        if key is not None and (key not in chosen or (not _is_real(chosen[key]) and _is_real(path))):
            chosen[key] = path
    return [p for p, key in keyed if key is None or chosen[key] == p]


# Copies of one search row looked at on disk, at most: each is a stat at every search (a reviewer's row of 2,999
# copies made 5,999; on a network share or a sleeping disk, seconds). Past it they are listed as copies, as before
# decision 0192: since it a link is indexed once, at its own path, so a second name is left only by a hard link or
# a library written before.
STAT_AT_MOST = 64


def other_files(path: str, paths: Iterable[str]) -> list[str]:
    """`paths` less those that name the file `path` names, one name each (one_name_each): a search row's copies.
    Each path is looked at on disk once, and only where there are at most STAT_AT_MOST of them."""
    paths = [p for p in paths if p != path]
    if len(paths) > STAT_AT_MOST:
        return paths
    own = _file_key(path)
    keyed = [(p, _file_key(p)) for p in paths]
    return _one_each([(p, key) for p, key in keyed if own is None or key != own])
