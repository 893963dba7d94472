"""File names as the library stores them.

Linux file names are bytes; Python hands back names that are not valid UTF-8 with each bad byte as a lone
surrogate (PEP 383), which SQLite TEXT cannot hold. Decision: such a name is stored with every bad byte
written as the four characters `\\xNN` (`storable`), and `real_path` turns a stored name back into one the
file system accepts. Valid UTF-8 names, newlines included, are stored unchanged. A stored name with an
escape is meant for display and lookup; in the unlikely case that a folder holds both `a\\xff.txt` (bytes)
and a file literally named `a\\\\xff.txt`, they share one row and the later one wins.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

__all__ = ["storable", "real_path", "is_within"]

_ESCAPE = re.compile(rb"\\x([0-9a-f]{2})")


def storable(path: str | os.PathLike[str]) -> str:
    """`path` as a str SQLite can store: unchanged when it is valid UTF-8, else with bad bytes as \\xNN."""
    s = os.fspath(path)
    try:
        s.encode("utf-8")
        return s
    except UnicodeEncodeError:
        return os.fsencode(s).decode("utf-8", "backslashreplace")


def real_path(stored: str) -> Path:
    """The file a stored name refers to: the name itself when it exists, else with \\xNN escapes undone."""
    if "\\x" not in stored or os.path.lexists(stored):
        return Path(stored)
    raw = _ESCAPE.sub(lambda m: bytes([int(m.group(1), 16)]), stored.encode("utf-8"))
    return Path(os.fsdecode(raw))


def is_within(path: str, folder: str) -> bool:
    """`path` is `folder` or lies under it, compared as strings (callers pass both absolute, or both real).
    The one rule for roots, scopes and the watcher: `/a/bc` is not inside `/a/b`."""
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)
