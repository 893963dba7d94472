"""Paths compared as the library compares them. How a name that is not UTF-8 is stored, found on disk again and
shown: base/stored_names.py (decision 0179)."""

from __future__ import annotations

import os

__all__ = ["is_within"]


def is_within(path: str, folder: str) -> bool:
    """`path` is `folder` or lies under it, compared as strings (callers pass both absolute, or both real).
    The one rule for roots, scopes and the watcher: `/a/bc` is not inside `/a/b`."""
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)
