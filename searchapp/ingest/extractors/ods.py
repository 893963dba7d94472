"""OpenDocument spreadsheets (.ods): every table's cells, a sheet per page (see sheets.py for layout and caps), then
the printed pages' headers and footers (odt.page_texts), each text once.

content.xml is streamed (xmlstream.py): each cell is read and dropped as it ends, up to MAX_CONTENT_BYTES
(the rest noted as left out). A cell's text is its displayed paragraphs (what LibreOffice shows, number
formats applied, so a date reads as a date); a cell written with a value but no paragraph reads its
office: value (a date as 2016-12-27). Comments are left out. table:number-columns-repeated and
table:number-rows-repeated are honoured only within the caps of sheets.py, so the "repeat 1,048,576 empty
rows" LibreOffice writes at the end of every sheet (or a hostile repeat on a full cell) costs nothing, and
empty cells written one by one make one gap like a repeat. A table nested inside a cell is read as that
cell's text.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Optional
from xml.etree.ElementTree import Element

from ...base.progress import CancelToken
from ...base.types import Document
from .odt import after_pages, check_package, page_texts, paragraphs
from .sheets import Workbook, cell_text
from .title import dc_title
from .xmlstream import XmlStream
from .ziputil import PartTooLarge, SafeZip

__all__ = ["SUFFIXES", "extract_ods", "MAX_CONTENT_BYTES"]

SUFFIXES = frozenset({".ods", ".ots"})

MAX_CONTENT_BYTES = 128 * 2**20  # content.xml read; a real sheet reaches the cell cap (sheets.py) long before
_TABLE = "{urn:oasis:names:tc:opendocument:xmlns:table:1.0}"
_OFFICE = "{urn:oasis:names:tc:opendocument:xmlns:office:1.0}"
_CELLS = frozenset({"table-cell", "covered-table-cell"})
_MAX_COUNT = 1 << 24  # repeat attributes are attacker-controlled; sheets.py caps what is rendered
_TIME = re.compile(r"-?P(?:(\d+)D)?T?(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)(?:[.,]\d+)?S)?")
_ISO_MIDNIGHT = re.compile(r"(\d{4}-\d\d-\d\d)T00:00(?::00(?:\.0+)?)?")


def _count(el: Element, attr: str) -> int:
    try:
        return max(1, min(int(el.get(_TABLE + attr, "1")), _MAX_COUNT))
    except ValueError:
        return 1


def _stored_value(el: Element) -> str:
    """A cell's value from its office: attributes, for a cell written without a paragraph to show it:
    a date as 2016-12-27 (its time when not midnight), a time as 13:45:00, a boolean as TRUE/FALSE."""
    kind = el.get(_OFFICE + "value-type", "")
    if kind == "date":
        value = el.get(_OFFICE + "date-value", "")
        m = _ISO_MIDNIGHT.fullmatch(value)
        return m.group(1) if m else value.replace("T", " ")
    if kind == "time":
        m = _TIME.fullmatch(el.get(_OFFICE + "time-value", ""))
        if not m or not any(m.groups()):
            return ""
        d, h, mi, sec = (int(g or 0) for g in m.groups())
        return f"{d * 24 + h:02d}:{mi:02d}:{sec:02d}"
    if kind == "boolean":
        return "TRUE" if el.get(_OFFICE + "boolean-value", "") in ("true", "1") else "FALSE"
    if kind == "string":
        return el.get(_OFFICE + "string-value", "")
    return el.get(_OFFICE + "value", "") if kind else ""


def extract_ods(path: Path, max_bytes: int, max_chars: Optional[int] = None,
                cancel: Optional[CancelToken] = None) -> Document:
    book = Workbook(max_chars)
    with SafeZip(path) as z:
        check_package(z)
        try:
            _read(z, book, cancel)
        except PartTooLarge as exc:
            book.pages.note(exc.cut_note())
        title = dc_title(z.optional_xml("meta.xml"))
        footers = page_texts(z, path, cancel) if not book.full else []
    return after_pages(book.document("ods", title), footers)


def _read(z: SafeZip, book: Workbook, cancel: Optional[CancelToken]) -> None:
    tables = 0  # open table:table elements: 1 inside a sheet, more inside a table nested in a cell
    sheet = 0
    for event, name, el, stack in XmlStream(z, "content.xml", _CELLS, cancel, MAX_CONTENT_BYTES, starts=True):
        if name == "table" and el.tag == _TABLE + "table":
            if event == "start":
                tables += 1
                if tables == 1:
                    sheet += 1
                    book.start_sheet(sheet, el.get(_TABLE + "name", ""))
            else:
                tables -= 1
            continue
        if event == "start" or tables != 1:
            continue  # a table nested in a cell is part of that cell's text
        if name in _CELLS and stack[-1].tag == _TABLE + "table-row":
            text = cell_text(" ".join(paragraphs(el))) or cell_text(_stored_value(el))
            book.cell(text, _count(el, "number-columns-repeated"))
        elif el.tag == _TABLE + "table-row":
            book.end_row(_count(el, "number-rows-repeated"))
        else:
            continue
        if book.full:
            return
