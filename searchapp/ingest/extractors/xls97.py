"""Excel .xls: Excel 97-2003 and 5/95 (an OLE compound file), Excel 2.x to 4.0 (a bare workbook stream); each
sheet's cells, read by xlrd from the workbook stream.

ole.py takes the "Workbook" (BIFF8) or "Book" (BIFF5) stream out of the compound file, within the caps; Excel 2.x to
4.0 saved that stream (BIFF2-4) as the file itself, which is read whole, within the same byte cap. xlrd parses the
stream as given (it needs no container), sheet by sheet (on_demand: one sheet's cells in memory at a time; a BIFF2-4
file holds one sheet, or an Excel 4.0 workbook a few, read at once), with its messages sent nowhere. xlrd only
parses: it evaluates no formula (it reads the value Excel stored) and runs no macro. Sheets become pages as for
.xlsx (sheets.py: one line per row, cells joined by " | ", the same cell and text caps), and a cell reads as it
does there: a number by its value (sheets.number_text), a date or time as its cell style's number format shows it
(xlsx_dates.py: `2016-12-27`, `06:15`, to the second, whatever float noise the serial holds). A workbook with a
FILEPASS record is encrypted, and said to be.
"""

from __future__ import annotations

import io
import struct
from pathlib import Path
from typing import Any, Optional

from ...base.errors import UnsupportedFileError
from ...base.progress import CancelToken
from ...base.safe_open import open_regular
from ...base.types import Document
from .ole import OleFile, corrupt
from .ole_encrypted import ENCRYPTED
from .sheets import Workbook, cell_text, number_text
from .xlsx_dates import BUILTIN, DateFormat, date_format, serial_text
from .ziputil import PartTooLarge

__all__ = ["SUFFIXES", "read_xls", "bare_format", "read_bare_xls"]

SUFFIXES = frozenset({".xls", ".xlt"})
_CHECK_EVERY = 256  # rows
# The BOF record that opens a bare workbook stream, by the Excel that wrote it, and the kinds of stream it may open
# (workbook globals, a worksheet, an Excel 4.0 workbook): a chart or macro sheet is no workbook.
_BARE_BOF = {0x0009: "Excel 2.x", 0x0209: "Excel 3.0", 0x0409: "Excel 4.0", 0x0809: "Excel 5.0 or later"}
_BARE_STREAMS = frozenset({0x0005, 0x0010, 0x0100})


def _broken() -> tuple[type[BaseException], ...]:
    """xlrd's errors and the builtin ones it raises on a damaged file (it asserts, or reads past a record's end);
    an except clause evaluates this only when something was raised, so xlrd is still imported on first use."""
    import xlrd
    from xlrd.formula import FormulaError

    return (xlrd.XLRDError, FormulaError, AssertionError, struct.error, IndexError, KeyError, ValueError)


def read_xls(ole: OleFile, max_bytes: int, max_chars: Optional[int], cancel: Optional[CancelToken]) -> Document:
    name = next((n for n in ("Workbook", "Book") if ole.exists(n)), None)
    if name is None:
        raise corrupt("Excel file: no Workbook stream")
    return _read_stream(ole.stream(name, max_bytes), "Excel file", max_chars, cancel, bare=False)


def bare_format(path: Path) -> str:
    """The Excel that wrote `path` ("Excel 3.0") when the file is a workbook stream alone, as Excel 2.x to 4.0 saved
    workbooks; "" when it is not one. The BOF record's length and stream kind must be right too: a text file
    that happens to start with the same two bytes (a tab in UTF-16) is no workbook."""
    with open_regular(path) as fh:
        head = fh.read(8)
    if len(head) < 8:
        return ""
    opcode, length, _version, stream = struct.unpack("<HHHH", head)
    what = _BARE_BOF.get(opcode, "")
    return what if what and 4 <= length <= 20 and stream in _BARE_STREAMS else ""


def read_bare_xls(path: Path, what: str, max_bytes: int, max_chars: Optional[int],
                  cancel: Optional[CancelToken]) -> Document:
    """A workbook stream saved as the file itself; `what` is bare_format's answer."""
    with open_regular(path) as fh:
        data = fh.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise PartTooLarge(path.name, max_bytes)
    return _read_stream(data, f"{what} workbook", max_chars, cancel, bare=True)


def _read_stream(data: bytes, what: str, max_chars: Optional[int], cancel: Optional[CancelToken],
                 bare: bool) -> Document:
    """The sheets of a workbook stream; `what` names the file in a reason ("Excel file", "Excel 4.0 workbook").
    A bare stream of a BIFF version xlrd does not read is not supported; in an OLE file, it is corrupt."""
    import xlrd

    try:
        # formatting_info: each cell's style, whose number format tells a date (and which parts of it) from a number
        book = xlrd.open_workbook(file_contents=data, on_demand=True, ragged_rows=True, logfile=io.StringIO(),
                                  verbosity=0, formatting_info=True)
    except _broken() as exc:
        if "encrypted" in str(exc).lower():
            raise UnsupportedFileError(ENCRYPTED) from None
        if bare and "BIFF version" in str(exc):  # xlrd: "Can't determine file's BIFF version", "BIFF version 1 ..."
            raise UnsupportedFileError(f"{what}: not supported") from None
        raise corrupt(f"{what}: {exc}") from None
    out = Workbook(max_chars)
    formats = _Formats(book)
    try:
        for index in range(book.nsheets):
            if out.full:
                break
            sheet = book.sheet_by_index(index)
            out.start_sheet(index + 1, sheet.name)
            _cells(sheet, formats, out, cancel)
            book.unload_sheet(index)
    except _broken() as exc:
        raise corrupt(f"{what}: {type(exc).__name__}: {exc}") from None
    finally:
        book.release_resources()
    return out.document("xls")


class _Formats:
    """How each cell style (XF record) shows a number: the date format of its number format code, judged as for
    .xlsx (xlsx_dates.date_format), or None. xlrd's Book has no type information, so it is Any to mypy."""

    def __init__(self, book: Any) -> None:
        self.book, self.date1904 = book, book.datemode == 1
        self._seen: dict[int, Optional[DateFormat]] = {}  # at most one per XF index (16 bits)

    def date(self, xf: int, kind: int, number: float) -> Optional[DateFormat]:
        import xlrd

        if xf not in self._seen:
            self._seen[xf] = self._judge(xf)
        fmt = self._seen[xf]
        if fmt is None and kind == xlrd.XL_CELL_DATE:  # a date format xlrd knows by number only (CJK)
            return DateFormat(True, not number.is_integer(), False, False)
        return fmt

    def _judge(self, xf: int) -> Optional[DateFormat]:
        xf_list, format_map = self.book.xf_list, self.book.format_map
        if not isinstance(xf, int) or not 0 <= xf < len(xf_list):
            return None
        key = xf_list[xf].format_key
        known = format_map.get(key)
        code = known.format_str if known is not None and known.format_str else BUILTIN.get(key)
        return date_format(code) if code else None


# sheet: xlrd's Sheet (xlrd has no type information, so it is Any to mypy)
def _cells(sheet: Any, formats: _Formats, out: Workbook, cancel: Optional[CancelToken]) -> None:
    import xlrd

    empty = (xlrd.XL_CELL_EMPTY, xlrd.XL_CELL_BLANK)
    for r in range(sheet.nrows):
        if cancel is not None and r % _CHECK_EVERY == 0:
            cancel.check()
        if out.full:
            return
        skipped = 0
        # A row's types and values as xlrd keeps them, not a Cell object per cell: a row of 256 blank cells
        # (formatting_info keeps them) costs little; a cell's style is looked up for numbers only.
        for c, (kind, value) in enumerate(zip(sheet.row_types(r), sheet.row_values(r), strict=True)):
            text = "" if kind in empty else _value(kind, value, formats, sheet, r, c)
            if text:
                out.cell(text, skipped=skipped)
                skipped = 0
            else:
                skipped += 1
        out.end_row()


def _value(kind: int, value: Any, formats: _Formats, sheet: Any, r: int, c: int) -> str:
    import xlrd

    if kind == xlrd.XL_CELL_TEXT:
        return cell_text(value)
    if kind in (xlrd.XL_CELL_NUMBER, xlrd.XL_CELL_DATE):
        number = float(value)
        fmt = formats.date(sheet.cell_xf_index(r, c), kind, number)
        return (serial_text(number, fmt, formats.date1904) if fmt is not None else None) or number_text(number)
    if kind == xlrd.XL_CELL_BOOLEAN:
        return "TRUE" if value else "FALSE"
    return ""
