"""A damaged library database is one line that says how to recover, never a traceback."""

from __future__ import annotations

import sqlite3
from pathlib import Path

__all__ = ["is_damage", "damaged_message"]


def is_damage(exc: BaseException) -> bool:
    """A corrupt database (SQLITE_CORRUPT / SQLITE_NOTADB), not a locked, full or read-only one."""
    return isinstance(exc, sqlite3.DatabaseError) and not isinstance(exc, sqlite3.OperationalError)


def damaged_message(db: Path, exc: BaseException) -> str:
    return (f"the library database {db} is damaged ({exc}). To recover: move it aside "
            f"(mv '{db}' '{db}.damaged') and run `searchapp index FOLDER` for each of your folders to build "
            "it again; your own files are not affected.")
