"""A damaged library database is one line that says how to recover, never a traceback."""

from __future__ import annotations

import sqlite3
from pathlib import Path

__all__ = ["is_damage", "damaged_message"]


_DAMAGE_CODES = (sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB)


def is_damage(exc: BaseException) -> bool:
    """A corrupt database (SQLITE_CORRUPT / SQLITE_NOTADB), not a locked, full or read-only one, nor a broken
    constraint (IntegrityError is a DatabaseError too: a name saved twice is no damage)."""
    if not isinstance(exc, sqlite3.DatabaseError):
        return False
    code = getattr(exc, "sqlite_errorcode", None)  # extended codes: the primary one is the low byte
    if isinstance(code, int):
        return code & 0xFF in _DAMAGE_CODES
    return type(exc) is sqlite3.DatabaseError  # raised without a code: SQLite's corrupt/notadb are this class


def damaged_message(db: Path, exc: BaseException) -> str:
    return (f"the library database {db} is damaged ({exc}). To recover: move it aside "
            f"(mv '{db}' '{db}.damaged') and run `searchapp index FOLDER` for each of your folders to build "
            "it again; your own files are not affected.")
