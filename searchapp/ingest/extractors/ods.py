"""OpenDocument spreadsheets (.ods): every table's cells, a sheet per page (see sheets.py for layout and caps).

content.xml is streamed: each row is rendered and dropped as it ends. A cell's text is its displayed
paragraphs (what LibreOffice shows, number formats applied); comments are left out. table:number-columns-
repeated and table:number-rows-repeated are honoured only within the caps of sheets.py, so the "repeat
1,048,576 empty rows" LibreOffice writes at the end of every sheet (or a hostile repeat on a full cell)
costs nothing. A table nested inside a cell is read as that cell's text.
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional
from xml.etree.ElementTree import Element

from ...base.errors import ExtractionError
from ...base.progress import CancelToken
from ...base.types import Document
from .odt import paragraphs
from .sheets import Run, Workbook, cell_text
from .title import dc_title
from .ziputil import SafeZip

__all__ = ["SUFFIXES", "extract_ods"]

SUFFIXES = frozenset({".ods", ".ots"})

_TABLE = "{urn:oasis:names:tc:opendocument:xmlns:table:1.0}"
_CELLS = frozenset({_TABLE + "table-cell", _TABLE + "covered-table-cell"})
_ROW = _TABLE + "table-row"
_MAX_COUNT = 1 << 24  # repeat attributes are attacker-controlled; sheets.py caps what is rendered
_CHECK_EVERY = 4096  # XML events between two cancel checks


def _count(el: Element, attr: str) -> int:
    try:
        return max(1, min(int(el.get(_TABLE + attr, "1")), _MAX_COUNT))
    except ValueError:
        return 1


def extract_ods(path: Path, max_bytes: int, max_chars: Optional[int] = None,
                cancel: Optional[CancelToken] = None) -> Document:
    book = Workbook(max_chars)
    with SafeZip(path) as z:
        if z.find("content.xml") is None:
            raise ExtractionError("not an OpenDocument file: content.xml missing")
        _read(z, book, cancel)
        title = dc_title(z.optional_xml("meta.xml"))
    return book.document("ods", title)


def _read(z: SafeZip, book: Workbook, cancel: Optional[CancelToken]) -> None:
    stack: list[Element] = []
    tables = 0  # open table:table elements: 1 inside a sheet, more inside a table nested in a cell
    sheet = 0
    runs: list[Run] = []
    for n, (event, el) in enumerate(z.iterparse("content.xml")):
        if cancel is not None and n % _CHECK_EVERY == 0:
            cancel.check()
        if event == "start":
            stack.append(el)
            if el.tag == _TABLE + "table":
                tables += 1
                if tables == 1:
                    sheet += 1
                    book.start_sheet(sheet, el.get(_TABLE + "name", ""))
            continue
        stack.pop()
        parent = stack[-1] if stack else None
        if tables == 1 and el.tag in _CELLS and parent is not None and parent.tag == _ROW:
            text = cell_text(" ".join(paragraphs(el)))
            runs.append((text, _count(el, "number-columns-repeated")))
        elif tables == 1 and el.tag == _ROW:
            book.add_row(runs, _count(el, "number-rows-repeated"))
            runs = []
            if book.full:
                return
        elif el.tag == _TABLE + "table":
            tables -= 1
            if tables:
                continue  # nested in a cell: part of that cell's text
            runs = []
        else:
            if len(stack) == 1:
                stack[0].remove(el)  # styles, scripts: done with
            continue
        if parent is not None:
            parent.remove(el)  # used: drop it so memory stays flat
