"""Excel .xls: Excel 97-2003 and 5/95 (an OLE compound file), Excel 2.x to 4.0 (a bare workbook stream); each
sheet's cells, read by xlrd from the workbook stream.

ole.py takes the "Workbook" (BIFF8) or "Book" (BIFF5) stream out of the compound file, within the caps; Excel 2.x to
4.0 saved that stream (BIFF2-4) as the file itself, which is read whole, within the same byte cap. xlrd parses the
stream as given (it needs no container), sheet by sheet, with its messages sent nowhere. xlrd only parses: it
evaluates no formula (it reads the value Excel stored) and runs no macro.

Each cell xlrd reads goes to _Cells (xlrd's Sheet.put_cell, replaced on each sheet), not to xlrd's own rows: xlrd
pads a row with empty cells up to a cell's column, so one cell at column 256 of each of 65,536 rows would hold 16
million cells; _Cells holds the cells written, with the XF index of each (the cell's style, whose number format
tells a date from a number), and stops at the cap. Blank cells (formatting only) are not read at all
(formatting_info=False). Sheets are read one at a time, at most MAX_SHEETS, each sheet's data once (several
BOUNDSHEET records may point at the same data). Sheets become pages as for .xlsx (sheets.py: one line per row,
cells joined by " | ", the same cell and text caps), and a cell reads as it does there: a number by its value
(sheets.number_text), a date or time as its cell style's number format shows it (xlsx_dates.py: `2016-12-27`,
`06:15`, to the second, whatever float noise the serial holds). A workbook with a FILEPASS record is encrypted,
and said to be. A chart of Microsoft Graph (an object Office 97-2003 embeds, or one saved as a file) holds a
Workbook stream of its own kind: its BOF record's version has the 0x80 bit set (0x0580, 0x0680: each of the 26 such
charts among Apache POI's and Tika's test files), which xlrd does not know ("Can't determine file's BIFF version");
it is skipped as a chart, not failed as a corrupt Excel file.
"""

from __future__ import annotations

import functools
import io
import struct
from pathlib import Path
from typing import Any, Optional

from ...base.errors import UnsupportedFileError
from ...base.progress import CancelToken
from ...base.safe_open import open_regular, read_at_most
from ...base.types import Document
from .ole import OleFile, corrupt
from .ole_encrypted import ENCRYPTED
from .ole_objects import chart, prog_id
from .sheets import Workbook, cell_text, number_text
from .xlsx_dates import BUILTIN, DateFormat, date_format, serial_text
from .ziputil import PartTooLarge

__all__ = ["SUFFIXES", "MAX_SHEETS", "read_xls", "ms_graph", "bare_format", "read_bare_xls"]

SUFFIXES = frozenset({".xls", ".xlt"})
MAX_SHEETS = 1000  # sheets read per workbook; a real one has a few dozen at most
# Cells held per sheet past those the cell cap still allows: cells that show no text (an error, an empty string)
# do not count against that cap, so a sheet of them must stop somewhere too.
_UNSHOWN = 50_000
_CHECK_EVERY = 4096  # cells, and rows
# The BOF record that opens a bare workbook stream, by the Excel that wrote it, and the kinds of stream it may open
# (workbook globals, a worksheet, an Excel 4.0 workbook): a chart or macro sheet is no workbook.
_BARE_BOF = {0x0009: "Excel 2.x", 0x0209: "Excel 3.0", 0x0409: "Excel 4.0", 0x0809: "Excel 5.0 or later"}
_BARE_STREAMS = frozenset({0x0005, 0x0010, 0x0100})
_MS_GRAPH_BOF = frozenset({0x0580, 0x0680})  # the BOF versions Microsoft Graph writes (Excel's own: 0x0500, 0x0600)


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
    data = ole.stream(name, max_bytes)
    if ms_graph(data):
        raise UnsupportedFileError(chart(prog_id(ole.optional("\x01CompObj", 4096))))
    return _read_stream(data, "Excel file", max_chars, cancel, bare=False)


def ms_graph(data: bytes) -> bool:
    """Whether a workbook stream is a Microsoft Graph chart's: its first record a BOF of Graph's own version."""
    return len(data) >= 8 and data[:2] == b"\x09\x08" and struct.unpack_from("<H", data, 4)[0] in _MS_GRAPH_BOF


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
        data = read_at_most(fh, max_bytes + 1)
    if len(data) > max_bytes:
        raise PartTooLarge(path.name, max_bytes)
    return _read_stream(data, f"{what} workbook", max_chars, cancel, bare=True)


def _read_stream(data: bytes, what: str, max_chars: Optional[int], cancel: Optional[CancelToken],
                 bare: bool) -> Document:
    """The sheets of a workbook stream; `what` names the file in a reason ("Excel file", "Excel 4.0 workbook").
    A bare stream of a BIFF version xlrd does not read is not supported; in an OLE file, it is corrupt."""
    reader = _Reader(Workbook(max_chars), cancel)
    try:
        book = _open(data, reader)
    except _broken() as exc:
        if "encrypted" in str(exc).lower():
            raise UnsupportedFileError(ENCRYPTED) from None
        if bare and "BIFF version" in str(exc):  # xlrd: "Can't determine file's BIFF version", "BIFF version 1 ..."
            raise UnsupportedFileError(f"{what}: not supported") from None
        raise corrupt(f"{what}: {exc}") from None
    try:
        if book.on_demand:  # Excel 5.0 and later: the sheets are read here; earlier ones were read by _open
            for number in range(len(book._sheet_names)):
                if reader.out.full:
                    break
                book.get_sheet(number)
    except _broken() as exc:
        raise corrupt(f"{what}: {type(exc).__name__}: {exc}") from None
    finally:
        book.release_resources()
        del book.get_sheet  # the Book and the reader's method refer to each other: freed now, not at the next GC
    return reader.out.document("xls")


def _open(data: bytes, reader: _Reader) -> Any:
    """xlrd's Book for a workbook stream, as xlrd.open_workbook makes it (on_demand, ragged_rows), except that
    every sheet is read by `reader`: its get_sheet replaces the Book's own, and xlrd calls it as it reads the
    globals of an Excel 2.x to 4.0 workbook (no on_demand there) and as _read_stream asks for each later sheet."""
    import xlrd
    from xlrd.biffh import XL_WORKBOOK_GLOBALS, biff_text_from_num
    from xlrd.book import SUPPORTED_VERSIONS, Book

    if not data:
        raise xlrd.XLRDError("the workbook stream is empty")
    book = Book()
    book.get_sheet = functools.partial(reader.sheet, book)
    try:
        book.biff2_8_load(file_contents=data, logfile=io.StringIO(), verbosity=0, use_mmap=False,
                          formatting_info=False, on_demand=True, ragged_rows=True)
        version = book.getbof(XL_WORKBOOK_GLOBALS)
        if not version:
            raise xlrd.XLRDError("Can't determine file's BIFF version")
        if version not in SUPPORTED_VERSIONS:
            raise xlrd.XLRDError(f"BIFF version {biff_text_from_num[version]} is not supported")
        book.biff_version = version
        if version <= 40:  # one worksheet, no globals
            book.on_demand = False
            book.fake_globals_get_sheet()
        else:  # an Excel 4.0 workbook (45) holds its sheets in the globals, each read as it comes
            book.on_demand = version > 45
            book.parse_globals()
    except BaseException:
        book.release_resources()
        del book.get_sheet
        raise
    return book


class _Reader:
    """Reads each sheet xlrd is asked for into the Workbook: its cells through _Cells, then row by row."""

    def __init__(self, out: Workbook, cancel: Optional[CancelToken]) -> None:
        self.out, self.cancel = out, cancel
        self.sheets = 0
        # [start, end) of the stream each sheet read covered: a sheet that starts inside one was read with it. A
        # check of starts alone let a file of 1,000 sheet starts before one long sheet cost 1,000 reads of it.
        self._read: list[tuple[int, int]] = []
        self._scanned = self._records = 0  # bytes and records read for all sheets: at most SCAN_TIMES the stream

    def _scan(self, book: Any, read: Any, end: list[int]) -> Any:
        """xlrd's Book.get_record_parts, counted: records that put no cell (filler, blank cells) cost a hostile
        file's reads too, so they count against a budget of bytes, with a cancel check every so often."""
        record = read(book)
        end[0] = max(end[0], book._position)
        self._scanned += 4 + len(record[2])
        if self._scanned > _scan_budget(book):
            self.out.cap("reading stopped: the sheets' records ran past the workbook's own size")
            raise _Full
        self._records += 1
        if self.cancel is not None and self._records % _CHECK_EVERY == 0:
            self.cancel.check()
        return record

    # book: xlrd's Book (xlrd has no type information, so it is Any to mypy)
    def sheet(self, book: Any, number: int, update_pos: bool = True) -> None:
        """xlrd's Book.get_sheet, reading the sheet into the Workbook instead of keeping it."""
        from xlrd.biffh import XL_WORKSHEET
        from xlrd.sheet import Sheet

        if self.out.full:
            return
        position = book._sh_abs_posn[number] if update_pos else book._position
        if any(start <= position < end for start, end in self._read):  # a BOUNDSHEET into a sheet already read
            return
        if self.sheets == MAX_SHEETS:
            self.out.cap(f"only the first {MAX_SHEETS:,} sheets read")
            return
        self.sheets += 1
        book._position = position
        book.getbof(XL_WORKSHEET)
        sheet = Sheet(book, book._position, book._sheet_names[number], number)
        cells = _Cells(sheet, self.out.max_cells - self.out.cells + _UNSHOWN, self.cancel)
        sheet.put_cell = cells.put
        end = [position + 1]
        book.get_record_parts = functools.partial(self._scan, book, type(book).get_record_parts, end)
        try:
            sheet.read(book)  # it reads with the Book's get_record_parts, counted by _scan
        except _Full:
            pass
        finally:
            del book.get_record_parts
            self._read.append((position, end[0]))
        self.out.held(len(cells.held))
        self.out.start_sheet(number + 1, sheet.name)
        _rows(cells.held, _Formats(book), self.out, self.cancel)
        if cells.stopped:
            self.out.cap(f"only the first {self.out.max_cells:,} cells read")


SCAN_TIMES = 2  # a sheet's records are read once; every sheet's together at most twice the stream's bytes


def _scan_budget(book: Any) -> int:
    return SCAN_TIMES * int(book.stream_len) + 2**16


class _Full(Exception):
    """Raised from _Cells.put to stop xlrd reading a sheet: the cells held reach the cap."""


class _Cells:
    """One sheet's cells as xlrd reads them: (row, column, cell type, value, XF index), in the file's order.
    xlrd's own put_cell would pad each row up to the cell's column; this holds only the cells written, at most
    `limit` of them (then reading the sheet stops)."""

    def __init__(self, sheet: Any, limit: int, cancel: Optional[CancelToken]) -> None:
        self.held: list[tuple[int, int, int, Any, int]] = []
        self.stopped = False
        self._types: dict[int, int] = sheet._xf_index_to_xl_type_map  # shared with the Book: filled as XFs come
        self._rows, self._columns = sheet.utter_max_rows, sheet.utter_max_cols
        self._limit, self._cancel = max(limit, 0), cancel

    def put(self, rowx: int, colx: int, ctype: Optional[int], value: Any, xf_index: int) -> None:
        if ctype is None:  # a number: its XF tells xlrd's date type from a number, as xlrd's put_cell does
            ctype = self._types[xf_index]
        if not (0 <= colx < self._columns and 0 <= rowx < self._rows):
            raise IndexError(f"cell ({rowx}, {colx}) outside the sheet")
        held = self.held
        if len(held) >= self._limit:
            self.stopped = True
            raise _Full
        if self._cancel is not None and len(held) % _CHECK_EVERY == 0:
            self._cancel.check()
        held.append((rowx, colx, ctype, value, xf_index))


def _rows(held: list[tuple[int, int, int, Any, int]], formats: _Formats, out: Workbook,
          cancel: Optional[CancelToken]) -> None:
    """The held cells row by row, each row by column (a file may write them in any order); of two cells at one
    place, the later one is kept, as xlrd keeps it."""
    held.sort(key=lambda cell: (cell[0], cell[1]))  # stable: the later of two cells at one place stays last
    row, last, rows = -1, -1, 0
    for n, (r, c, kind, value, xf) in enumerate(held):
        if n + 1 < len(held) and held[n + 1][:2] == (r, c):
            continue
        if r != row:
            if row >= 0:
                out.end_row()
            if out.full:
                return
            rows += 1
            if cancel is not None and rows % _CHECK_EVERY == 0:
                cancel.check()
            row, last = r, -1
        text = _value(kind, value, xf, formats)
        if text:
            out.cell(text, skipped=c - last - 1)
            last = c
    if row >= 0:
        out.end_row()


class _Formats:
    """How each cell style (XF record) shows a number: the date format of its number format code, judged as for
    .xlsx (xlsx_dates.date_format), or None. One per sheet: an Excel 4.0 workbook's sheets each have their own
    XF records, and an Excel 2.x sheet adds them as its cells come. xlrd's Book has no type information, so it is
    Any to mypy."""

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


def _value(kind: int, value: Any, xf: int, formats: _Formats) -> str:
    import xlrd

    if kind == xlrd.XL_CELL_TEXT:
        return cell_text(value)
    if kind in (xlrd.XL_CELL_NUMBER, xlrd.XL_CELL_DATE):
        number = float(value)
        fmt = formats.date(xf, kind, number)
        return (serial_text(number, fmt, formats.date1904) if fmt is not None else None) or number_text(number)
    if kind == xlrd.XL_CELL_BOOLEAN:
        return "TRUE" if value else "FALSE"
    return ""
