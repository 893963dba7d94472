"""Excel .xlsx/.xlsm: every worksheet's cells, a sheet per page (see sheets.py for the layout and caps).

Reads SpreadsheetML directly through SafeZip, streaming every part (xmlstream.py) so a sheet of a million
rows is never one tree in memory; a worksheet part is read up to MAX_SHEET_BYTES, the rest noted as left
out. A cell's text is what Excel stored: shared and inline strings, numbers as the shortest text of their
value (19.99 where the part holds 19.989999999999998, as .xls reads it: sheets.number_text; other number
formats are not applied) except dates and times, which read as `2016-12-27` (xlsx_dates.py), booleans as
TRUE/FALSE, errors such as #DIV/0!. A formula's own text is skipped; its cached value (what Excel last
computed) is kept. A sheet's cell comments follow its cells, a line each ("Comment A1: ..."), then its printed
headers and footers (`header_footer_text`: their left, centre and right parts, without the codes of page numbers,
dates, file names and fonts; each text once) and the words of its text boxes and shapes (its drawing part's
`a:t` runs, a paragraph a line): a letterhead in the header or a note in a text box is the sheet's own text, as a
.docx's headers are. Charts and pictures in a drawing are not read. Chart sheets and dialog sheets hold no cells
and are left out; sheet numbers stay their position in the workbook.
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Optional
from xml.etree.ElementTree import Element

from ...base.errors import ExtractionError
from ...base.progress import CancelToken
from ...base.types import Document
from .opc import core_title, listed_parts, package_part, part_relationships
from .sheets import Workbook, cell_text, number_text
from .xlsx_dates import DateFormat, cell_date_formats, iso_text, serial_text
from .xmlstream import XmlStream
from .ziputil import PartTooLarge, SafeZip, local_name

__all__ = ["SUFFIXES", "extract_xlsx", "MAX_SHARED_STRINGS", "MAX_SHEET_BYTES", "MAX_SHARED_STRINGS_BYTES"]

SUFFIXES = frozenset({".xlsx", ".xlsm"})

MAX_WORKBOOK_BYTES = 16 * 2**20  # workbook.xml lists sheets and names: a few KB in real files
MAX_SHARED_STRINGS = 1_000_000  # strings kept from sharedStrings.xml
# Bytes read of one part: a real sheet reaches the cell cap (sheets.py) long before; only padding gets here.
MAX_SHEET_BYTES = 64 * 2**20
MAX_SHARED_STRINGS_BYTES = 64 * 2**20
MAX_COLUMN = 16_384  # Excel's last column, XFD
_SI = frozenset({"si"})
_CELL = frozenset({"c"})
# A sheet's printed headers and footers (leaf elements at the end of its part): the odd pages', the even pages'
# and the first page's, when the sheet sets them apart.
_HEADERS = frozenset({"oddHeader", "oddFooter", "evenHeader", "evenFooter", "firstHeader", "firstFooter"})
# A header's codes (ECMA-376 18.3.1.46): &L &C &R start its left, centre and right parts; &P page, &N pages, &D
# date, &T time, &Z path, &F file, &A sheet name, &G picture are fields left out; &"font,style", &nn size, &K colour
# and &B &I &U &E &S &X &Y &O &H styles are formatting; && is one "&".
_HEADER_CODE = re.compile(r'&(?:"[^"]{0,200}"|\d{1,3}|K(?:[0-9A-Fa-f]{6}|\d\d[+-]\d{3})|[LCR]|[PNDTZFAG]|[BIUESXYOH]|&)')
MAX_HEADER = 2_000  # characters of one header or footer: Excel allows 255
MAX_DRAWING_BYTES = 16 * 2**20  # a sheet's drawing part: its shapes' text and their positions, a few KB
_TEXT_BODY = frozenset({"txBody"})
_COMMENTS = frozenset({"comment", "threadedComment"})
_COLUMN = re.compile(r"[A-Za-z]{1,3}")
_WORKBOOK_ITEMS = frozenset({"sheet", "workbookPr"})


def _column(ref: Optional[str], previous: int) -> int:
    """1-based column of a cell reference like "C5"; the next column when it has none (it may be left out)."""
    m = _COLUMN.match(ref or "")
    if not m:
        return previous + 1
    n = 0
    for ch in m.group(0).upper():
        n = n * 26 + ord(ch) - 64
    return min(n, MAX_COLUMN)


def _string_item(el: Element) -> str:
    """Text of a shared-string item or inline string: <t>, or rich-text runs <r><t>; phonetic <rPh> skipped."""
    parts: list[str] = []
    for child in el:
        name = local_name(child.tag)
        if name == "t":
            parts.append(child.text or "")
        elif name == "r":
            parts.extend(t.text or "" for t in child if local_name(t.tag) == "t")
    return "".join(parts)


def _shared_strings(z: SafeZip, part: str, budget: int, notes: list[str],
                    cancel: Optional[CancelToken]) -> list[str]:
    strings: list[str] = []
    chars = 0
    try:
        for _, name, el, _ in XmlStream(z, part, _SI, cancel, MAX_SHARED_STRINGS_BYTES):
            if name != "si":
                continue
            if len(strings) >= MAX_SHARED_STRINGS or chars > budget:
                notes.append(f"shared strings after the first {len(strings):,} left out")
                break
            text = cell_text(_string_item(el))
            strings.append(text)
            chars += len(text)
    except PartTooLarge as exc:
        notes.append(f"shared strings after the first {len(strings):,} left out: {exc}")
    return strings


class _Styles:
    """What a cell's s attribute says about showing its number: a date format, or None."""

    def __init__(self, formats: list[Optional[DateFormat]], date1904: bool) -> None:
        self.formats, self.date1904 = formats, date1904

    def date(self, style: Optional[str]) -> Optional[DateFormat]:
        if not style or not self.formats:
            return None
        try:
            index = int(style)
        except ValueError:
            return None
        return self.formats[index] if 0 <= index < len(self.formats) else None


def _value(cell: Element, strings: list[str], styles: _Styles) -> str:
    kind = cell.get("t", "n")
    v = None
    for child in cell:
        name = local_name(child.tag)
        if name == "v":
            v = child.text
        elif name == "is":
            return cell_text(_string_item(child))
    if v is None:
        return ""
    if kind == "s":
        try:
            index = int(v)
        except ValueError:
            return ""
        return strings[index] if 0 <= index < len(strings) else ""
    if kind == "b":
        return "TRUE" if v.strip() in ("1", "true") else "FALSE"
    if kind == "n":
        fmt = styles.date(cell.get("s"))
        if fmt is not None:
            return serial_text(v, fmt, styles.date1904) or _number(v)
        return _number(v)
    if kind == "d":
        return cell_text(iso_text(v))
    return cell_text(v)


def _number(v: str) -> str:
    """A number cell: as .xls gives the same double (sheets.number_text); kept as written when it is no number."""
    try:
        value = float(v)
    except ValueError:
        return cell_text(v)
    return number_text(value) if math.isfinite(value) else cell_text(v)


def header_footer_text(raw: Optional[str]) -> str:
    """A header's or footer's words: its parts one after the other, its fields and formatting codes left out."""
    def code(m: re.Match[str]) -> str:
        return "&" if m.group(0) == "&&" else " " if m.group(0) in ("&L", "&C", "&R") else ""

    return cell_text(" ".join(_HEADER_CODE.sub(code, (raw or "")[:MAX_HEADER]).split()))


def _read_sheet(z: SafeZip, part: str, book: Workbook, strings: list[str], styles: _Styles,
                cancel: Optional[CancelToken], headers: list[str]) -> None:
    """The sheet's cells into `book`; its headers' and footers' words into `headers` (read after its comments)."""
    column = 0
    row_tag = ""  # the tag of <row> as this part spells it, once seen
    try:
        for _, name, el, stack in XmlStream(z, part, _CELL, cancel, MAX_SHEET_BYTES):
            if name == "c":
                parent = stack[-1].tag if stack else ""
                if parent != row_tag:
                    if local_name(parent) != "row":
                        continue
                    row_tag = parent
                at = _column(el.get("r"), column)
                text = _value(el, strings, styles) if len(el) else ""  # no child: no value, however written
                book.cell(text, skipped=max(at - column - 1, 0))
                column = max(at, column + 1)  # a reference going backwards is taken as the next column
                if not text and not book.capped:
                    continue
            elif name == "row":
                book.end_row()
                column = 0
            elif name in _HEADERS:
                text = header_footer_text(el.text)
                if text and text not in headers:
                    headers.append(text)
                continue
            else:
                continue
            if book.full:
                return
    except PartTooLarge as exc:
        book.pages.note(exc.cut_note())


def _read_comments(z: SafeZip, part: str, book: Workbook, cancel: Optional[CancelToken]) -> None:
    """A worksheet's cell comments, one line each, "Comment A1: ...", after its cells: each counts as a cell, and
    the cell and text caps hold. Excel 365's threaded comments (and their replies) are read from their own part;
    the copy it keeps of them in the comments part, under a paragraph about Excel versions, is skipped. The
    cells are read without them: a broken comments part is noted and left out, as a styles part is."""
    try:
        targets = {type_.rpartition("/")[2]: t for type_, t in part_relationships(z, part).values() if z.find(t)}
        threaded: set[str] = set()
        for kind in ("threadedComment", "comments"):
            if kind in targets:
                book.end_row()  # a row a cut sheet part left open
                if not _comments(z, targets[kind], book, threaded, cancel):
                    return
    except PartTooLarge as exc:
        book.pages.note(exc.cut_note())
    except ExtractionError as exc:
        book.pages.note(f"comments left out: {exc}")


def _comments(z: SafeZip, part: str, book: Workbook, threaded: set[str], cancel: Optional[CancelToken]) -> bool:
    """The comments of one part; `threaded` gathers the cells of threaded comments (and skips their copies).
    False once a cap is reached."""
    for _, name, el, _ in XmlStream(z, part, _COMMENTS, cancel, MAX_SHEET_BYTES):
        if name not in _COMMENTS:
            continue
        ref = cell_text(el.get("ref"))
        if name == "threadedComment":
            if len(threaded) < book.max_cells:  # only to skip copies: a few hundred in a real sheet
                threaded.add(ref)
        elif ref in threaded:
            continue
        texts = [_string_item(t) if len(t) else t.text or "" for t in el if local_name(t.tag) == "text"]
        text = cell_text(" ".join(texts))
        if text:
            book.cell(f"Comment {ref}: {text}")
            book.end_row()
        if book.full:
            return False
    return True


def _read_lines(book: Workbook, lines: list[str]) -> None:
    """`lines` after what the sheet holds so far, a row each, under the cell and text caps."""
    book.end_row()  # a row a cut sheet part left open
    for line in lines:
        if book.full:
            return
        book.cell(line)
        book.end_row()


def _read_drawings(z: SafeZip, part: str, book: Workbook, cancel: Optional[CancelToken]) -> None:
    """The words of the sheet's text boxes and shapes (its drawing part's `a:t` runs, a paragraph a line), each
    text once (a shape Excel writes twice, for new and old readers, inside mc:AlternateContent). A broken drawing
    is noted and left out: the cells are read without it."""
    lines: list[str] = []
    try:
        for type_, target in part_relationships(z, part).values():
            if type_.endswith("/drawing") and z.find(target):
                for _, name, el, _ in XmlStream(z, target, _TEXT_BODY, cancel, MAX_DRAWING_BYTES):
                    if name != "txBody":
                        continue
                    for p in el:
                        if local_name(p.tag) == "p":
                            line = cell_text("".join(t.text or "" for t in p.iter() if local_name(t.tag) == "t"))
                            if line and line not in lines:
                                lines.append(line)
                    if len(lines) >= book.max_cells:
                        break
    except PartTooLarge as exc:
        book.pages.note(exc.cut_note())
    except ExtractionError as exc:
        book.pages.note(f"text boxes left out: {exc}")
    _read_lines(book, lines)


def _sheets(z: SafeZip, workbook: str) -> tuple[list[tuple[int, str, Optional[str]]], bool]:
    """(sheet number, name, worksheet part or None) in workbook order; whether dates count from 1904."""
    sheets: list[tuple[int, str, Optional[str]]] = []
    date1904 = False
    for name, attrs, type_, target in listed_parts(z, workbook, MAX_WORKBOOK_BYTES, _WORKBOOK_ITEMS,
                                                   "an Excel workbook"):
        if name == "workbookPr":
            date1904 = attrs.get("date1904", "").strip().lower() in ("1", "true")
        else:
            sheets.append((len(sheets) + 1, attrs.get("name", ""), target if type_.endswith("/worksheet") else None))
    return sheets, date1904


def extract_xlsx(path: Path, max_bytes: int, max_chars: Optional[int] = None,
                 cancel: Optional[CancelToken] = None) -> Document:
    book = Workbook(max_chars)
    with SafeZip(path) as z:
        workbook = package_part(z, "/officeDocument", "xl/workbook.xml")
        sheets, date1904 = _sheets(z, workbook)
        notes: list[str] = []
        strings: list[str] = []
        formats: list[Optional[DateFormat]] = []
        for type_, target in part_relationships(z, workbook).values():
            if type_.endswith("/sharedStrings") and z.find(target):
                strings = _shared_strings(z, target, book.pages.budget, notes, cancel)
            elif type_.endswith("/styles") and z.find(target):
                formats = cell_date_formats(z, target, cancel)
        styles = _Styles(formats, date1904)
        for note in notes:
            book.pages.note(note)
        for number, name, part in sheets:
            if book.full:
                break
            if part is None or not z.find(part):
                continue
            book.start_sheet(number, name)
            headers: list[str] = []
            _read_sheet(z, part, book, strings, styles, cancel, headers)
            if not book.full:
                _read_comments(z, part, book, cancel)
            _read_lines(book, headers)
            if not book.full:
                _read_drawings(z, part, book, cancel)
        title = core_title(z)
    return book.document("xlsx", title)
