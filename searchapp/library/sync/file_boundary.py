"""The per-file boundary of a sync: whatever one file's reading, extraction, OCR, chunking, tokenizing, hashing,
storing or embedding raises is that file's failure, recorded with a one-line reason, and the sync goes on (the
next sync reads a failed file again). Only what is no one file's fault stops a sync: a cancel, the library's own
errors (its database full, locked or damaged, its model, its config) and what is not an Exception (KeyboardInterrupt).
"""

from __future__ import annotations

import sqlite3
from typing import Optional

from ...base.errors import ExtractionError, SearchAppError

__all__ = ["file_failure", "one_line", "MAX_REASON"]

MAX_REASON = 300  # characters of a reason kept in the ledger


def one_line(reason: str) -> str:
    return " ".join(reason.split())[:MAX_REASON]


def file_failure(exc: BaseException) -> Optional[str]:
    """The reason to record for the one file `exc` was raised for, or None when it must stop the sync."""
    if not isinstance(exc, Exception):
        return None
    if isinstance(exc, SearchAppError) and not isinstance(exc, ExtractionError):
        return None  # Cancelled, StoreError, a model that cannot load: not this file's doing
    if isinstance(exc, sqlite3.DatabaseError) and not isinstance(exc, (sqlite3.IntegrityError, sqlite3.DataError)):
        return None  # disk full, database locked or malformed: every file after this one would fail the same way
    if isinstance(exc, ExtractionError):
        return one_line(str(exc))
    return one_line(f"internal error: {type(exc).__name__}: {exc}")
