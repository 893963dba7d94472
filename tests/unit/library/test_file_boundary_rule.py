"""Which errors are one file's failure and which stop a sync (library/sync/file_boundary.py)."""

from __future__ import annotations

import sqlite3

import pytest

from searchapp.base.errors import Cancelled, ExtractionError
from searchapp.library.sync.file_boundary import MAX_REASON, file_failure


@pytest.mark.parametrize("exc", [
    sqlite3.OperationalError("database or disk is full"),
    sqlite3.DatabaseError("database disk image is malformed"),
    sqlite3.InternalError("the library's database, not a file"),
    Cancelled("cancelled"),
    KeyboardInterrupt(),
], ids=lambda e: type(e).__name__)
def test_the_librarys_own_errors_stop_the_sync(exc):
    assert file_failure(exc) is None


@pytest.mark.parametrize("exc,reason", [
    (sqlite3.IntegrityError("UNIQUE constraint failed"), "internal error: IntegrityError: UNIQUE constraint failed"),
    (sqlite3.DataError("string or blob too big"), "internal error: DataError: string or blob too big"),
    (ExtractionError("not a PDF:\nno header"), "not a PDF: no header"),
    (RuntimeError("x" * 1000), ("internal error: RuntimeError: " + "x" * 1000)[:MAX_REASON]),
], ids=lambda e: type(e).__name__ if isinstance(e, BaseException) else "")
def test_what_one_files_data_raises_fails_that_file(exc, reason):
    assert file_failure(exc) == reason
