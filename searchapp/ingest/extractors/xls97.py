"""Excel 97-2003 .xls (and Excel 5/95): each sheet's cells, read by xlrd from the workbook stream.

ole.py takes the "Workbook" (BIFF8) or "Book" (BIFF5) stream out of the compound file, within the caps; xlrd parses
that stream as given (it needs no container), sheet by sheet (on_demand: one sheet's cells in memory at a time),
with its messages sent nowhere. xlrd only parses: it evaluates no formula (it reads the value Excel stored) and
runs no macro. Sheets become pages as for .xlsx (sheets.py: one line per row, cells joined by " | ", the same
cell and text caps). A workbook with a FILEPASS record is encrypted, and said to be.
"""

from __future__ import annotations

import datetime
import io
from typing import Any, Optional

from ...base.errors import UnsupportedFileError
from ...base.progress import CancelToken
from ...base.types import Document
from .ole import OleFile, corrupt
from .ole_encrypted import ENCRYPTED
from .sheets import Workbook, cell_text, number_text

__all__ = ["SUFFIXES", "read_xls"]

SUFFIXES = frozenset({".xls", ".xlt"})
_CHECK_EVERY = 256  # rows


def _broken() -> tuple[type[BaseException], ...]:
    import struct

    import xlrd
    from xlrd.formula import FormulaError

    """xlrd's errors and the builtin ones it raises on a damaged file (it asserts, or reads past a record's end);
    an except clause evaluates this only when something was raised, so xlrd is still imported on first use."""
    return (xlrd.XLRDError, FormulaError, AssertionError, struct.error, IndexError, KeyError, ValueError)


def read_xls(ole: OleFile, max_bytes: int, max_chars: Optional[int], cancel: Optional[CancelToken]) -> Document:
    import xlrd

    name = next((n for n in ("Workbook", "Book") if ole.exists(n)), None)
    if name is None:
        raise corrupt("Excel file: no Workbook stream")
    data = ole.stream(name, max_bytes)
    try:
        book = xlrd.open_workbook(file_contents=data, on_demand=True, ragged_rows=True, logfile=io.StringIO(),
                                  verbosity=0)
    except _broken() as exc:
        if "encrypted" in str(exc).lower():
            raise UnsupportedFileError(ENCRYPTED) from None
        raise corrupt(f"Excel file: {exc}") from None
    out = Workbook(max_chars)
    try:
        for index in range(book.nsheets):
            if out.full:
                break
            sheet = book.sheet_by_index(index)
            out.start_sheet(index + 1, sheet.name)
            _cells(sheet, book.datemode, out, cancel)
            book.unload_sheet(index)
    except _broken() as exc:
        raise corrupt(f"Excel file: {type(exc).__name__}: {exc}") from None
    finally:
        book.release_resources()
    return out.document("xls")


# sheet and cell: xlrd's Sheet and Cell (xlrd has no type information, so they are Any to mypy)
def _cells(sheet: Any, datemode: int, out: Workbook, cancel: Optional[CancelToken]) -> None:
    for r in range(sheet.nrows):
        if cancel is not None and r % _CHECK_EVERY == 0:
            cancel.check()
        if out.full:
            return
        skipped = 0
        for cell in sheet.row(r):
            text = _value(cell, datemode)
            if text:
                out.cell(text, skipped=skipped)
                skipped = 0
            else:
                skipped += 1
        out.end_row()


def _value(cell: Any, datemode: int) -> str:
    import xlrd

    kind, value = cell.ctype, cell.value
    if kind == xlrd.XL_CELL_TEXT:
        return cell_text(value)
    if kind == xlrd.XL_CELL_NUMBER:
        return number_text(float(value))
    if kind == xlrd.XL_CELL_DATE:
        try:
            when: datetime.datetime = xlrd.xldate_as_datetime(value, datemode)
        except (ValueError, OverflowError, xlrd.xldate.XLDateError):
            return repr(value)
        return when.date().isoformat() if when.time() == when.min.time() else when.isoformat(sep=" ")
    if kind == xlrd.XL_CELL_BOOLEAN:
        return "TRUE" if value else "FALSE"
    return ""
