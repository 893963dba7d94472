"""Office's own XML, told from a file's first bytes: Word 2003's XML document and Word 2007's flat XML (wordml.py), and
Excel 2003's XML spreadsheet (spreadsheetml.py). Office saves them as .xml, and opens them under a .doc or an .xls
name too, so people keep them under any of the three: an .xml is read here, a .doc or an .xls by legacy_office.py,
which asks `office_xml` first. Any other .xml (a configuration file, an RSS feed, an SVG) is read as text, as it was
(text.py: never parsed).

The head is matched as bytes (no parser): Word's processing instruction `progid="Word.Document"` or a root
w:wordDocument; a root Workbook (any prefix) with the spreadsheet namespace in the head, with or without Excel's
`progid="Excel.Sheet"`. An Excel HTML export (`<html xmlns:x=...>`) has another root, and stays HTML.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Optional

from ...base.progress import CancelToken
from ...base.safe_open import open_regular, read_at_most
from ...base.types import Document
from .text import extract_text

__all__ = ["SUFFIXES", "HEAD_BYTES", "office_xml", "office_xml_of", "extract_xml", "read_office_xml"]

SUFFIXES = frozenset({".xml"})
HEAD_BYTES = 4096  # the root comes after at most an XML declaration, Office's processing instruction and a comment
_ROOT = re.compile(rb"<(?![?!])(?:[\w.-]+:)?([\w.-]+)")  # the first element's local name
_WORD_PROGID = b'progid="Word.Document"'
_SPREADSHEET = b"urn:schemas-microsoft-com:office:spreadsheet"


def office_xml(head: bytes) -> str:
    """"doc" for Word's XML, "xls" for Excel's, "" for anything else, from a file's first bytes (HEAD_BYTES)."""
    head = head[:HEAD_BYTES]
    root = _ROOT.search(head)
    name = root.group(1) if root else b""
    if name == b"wordDocument" or _WORD_PROGID in head:
        return "doc"
    if name == b"Workbook" and _SPREADSHEET in head:
        return "xls"
    return ""


def office_xml_of(path: Path) -> str:
    """`office_xml` of a file's first bytes."""
    with open_regular(path) as fh:
        return office_xml(read_at_most(fh, HEAD_BYTES))


def read_office_xml(kind: str, path: Path, max_bytes: int, max_chars: Optional[int] = None,
                    cancel: Optional[CancelToken] = None, data: Optional[bytes] = None) -> Document:
    """A file `office_xml` found to be `kind` ("doc" or "xls"), read by its reader."""
    if kind == "doc":
        from .wordml import extract_wordml

        return extract_wordml(path, max_bytes, max_chars=max_chars, cancel=cancel, data=data)
    from .spreadsheetml import extract_spreadsheetml

    return extract_spreadsheetml(path, max_bytes, max_chars=max_chars, cancel=cancel, data=data)


def extract_xml(path: Path, max_bytes: int, max_chars: Optional[int] = None, cancel: Optional[CancelToken] = None,
                data: Optional[bytes] = None) -> Document:
    """An .xml file: Office's XML by its reader, any other as text. `data`: its bytes, when the caller read them."""
    kind = office_xml(data) if data is not None else office_xml_of(path)
    if kind:
        return read_office_xml(kind, path, max_bytes, max_chars, cancel, data)
    return extract_text(path, max_bytes, data=data)
