"""Excel 2003's "XML Spreadsheet": one XML file whose root is a Workbook in urn:schemas-microsoft-com:office:spreadsheet
(marked `<?mso-application progid="Excel.Sheet"?>`), which Excel opens under an .xml or an .xls name, so people keep
it so. Read as text it gave its styles and tags; read as HTML under an .xls name, its window sizes and no sheet names.

Each ss:Worksheet is a page that starts with its ss:Name, then a line per ss:Row, as every workbook is laid out
(sheets.py). A cell's text is its ss:Data's: a string as written (rich text's html:B, html:Font runs joined), a
number as .xls and .xlsx give it (sheets.number_text), a date at midnight as 2024-01-02, a boolean as TRUE or FALSE.
A cell's comment (ss:Comment) is left out, as in .ods. ss:Index on a cell (a jump over empty columns) keeps the
columns apart as a gap; ss:MergeAcross widens the cell it is on.

The file is read within the size cap and streamed with DTDs, entities and external references forbidden
(ziputil.iterparse_xml): each element is dropped once it has ended but for the cell being read (xmlstream.XmlStream,
which caps the nesting); the cell and text caps of sheets.py hold.
"""

from __future__ import annotations

import io
import re
from pathlib import Path
from typing import Optional
from xml.etree.ElementTree import Element

from ...base.progress import CancelToken
from ...base.types import Document
from .encoding import read_capped
from .sheets import Workbook, cell_text, number_text
from .title import clean_title
from .xmlstream import XmlStream
from .ziputil import iterparse_xml

__all__ = ["SPREADSHEET_NS", "extract_spreadsheetml"]

SPREADSHEET_NS = "urn:schemas-microsoft-com:office:spreadsheet"
_SS = "{" + SPREADSHEET_NS + "}"
_TITLE = "{urn:schemas-microsoft-com:office:office}Title"  # in o:DocumentProperties
_MAX_INDEX = 1 << 24  # ss:Index is the file's to say: sheets.py caps the gap it makes
_MIDNIGHT = re.compile(r"(\d{4}-\d\d-\d\d)T00:00(?::00(?:\.0+)?)?")


def extract_spreadsheetml(path: Path, max_bytes: int, max_chars: Optional[int] = None,
                          cancel: Optional[CancelToken] = None, data: Optional[bytes] = None) -> Document:
    book = Workbook(max_chars)
    title = ""
    sheet = 0
    column = 0  # columns of the open row given so far
    events = iterparse_xml(io.BytesIO(read_capped(path, max_bytes) if data is None else data), path.name)
    for event, _, el, stack in XmlStream.of_events(events, path.name, frozenset({"Cell"}), cancel, starts=True):
        tag = el.tag
        if event == "start":
            if tag == _SS + "Worksheet":
                sheet += 1
                book.start_sheet(sheet, el.get(_SS + "Name", ""))
            elif tag == _SS + "Row":
                column = 0
            continue
        if tag == _SS + "Cell" and sheet and stack and stack[-1].tag == _SS + "Row":
            at = _number(el.get(_SS + "Index"), column + 1)  # 1-based
            book.cell(_cell(el), 1, skipped=max(0, at - column - 1))
            column = max(column, at) + _number(el.get(_SS + "MergeAcross"), 0)
        elif tag == _SS + "Row" and sheet:
            book.end_row()
        elif tag == _TITLE and not title:
            title = clean_title(el.text)
        if book.full:
            break
    return book.document("xls", title)


def _cell(cell: Element) -> str:
    """The text of a cell's own ss:Data (not its comment's), as the module doc says."""
    data = cell.find(_SS + "Data")
    if data is None:
        return ""
    text = cell_text("".join(data.itertext()))
    kind = data.get(_SS + "Type", "")
    if kind == "Number":
        try:
            return number_text(float(text))
        except ValueError:
            return text
    if kind == "DateTime":
        m = _MIDNIGHT.fullmatch(text)
        return m.group(1) if m else text.replace("T", " ")
    if kind == "Boolean":
        return "TRUE" if text == "1" else "FALSE" if text == "0" else text
    return text


def _number(value: Optional[str], default: int) -> int:
    try:
        return max(0, min(int(value), _MAX_INDEX)) if value is not None else default
    except ValueError:
        return default
