"""Word .docx: paragraphs of the main document part (tables' cells included), then foot/endnotes.

Reads the WordprocessingML directly through SafeZip; python-docx is only used by the tests.
"""

from __future__ import annotations

import posixpath
from pathlib import Path
from typing import Optional
from xml.etree.ElementTree import Element

from ...base.errors import ExtractionError
from ...base.types import Document
from .encoding import clean_text
from .ziputil import SafeZip, local_name

__all__ = ["SUFFIXES", "extract_docx"]

SUFFIXES = frozenset({".docx", ".docm", ".dotx"})

_OFFICE_DOCUMENT = "/officeDocument"
# Property and deleted-text subtrees: <w:tabs><w:tab/> in pPr is a tab stop, not a tab.
_SKIP = frozenset({"pPr", "rPr", "sectPr", "tblPr", "trPr", "tcPr", "del", "moveFrom", "instrText", "delText"})
_CHARS = {"tab": "\t", "br": "\n", "cr": "\n", "noBreakHyphen": "-"}


def _main_part(z: SafeZip) -> str:
    """Target of the officeDocument relationship, else the usual name."""
    if z.find("_rels/.rels"):
        for rel in z.xml("_rels/.rels"):
            if rel.get("Type", "").endswith(_OFFICE_DOCUMENT) and rel.get("Target"):
                return posixpath.normpath(rel.get("Target", "").lstrip("/"))
    return "word/document.xml"


def _walk(el: Element, paragraphs: list[str], current: Optional[list[str]]) -> None:
    name = local_name(el.tag)
    if name in _SKIP:
        return
    if name == "p":
        buf: list[str] = []
        for child in el:
            _walk(child, paragraphs, buf)
        text = "".join(buf).strip()
        if text:
            paragraphs.append(text)
        return
    if name == "AlternateContent":  # Choice and Fallback hold the same content twice
        first = next(iter(el), None)
        if first is not None:
            _walk(first, paragraphs, current)
        return
    if current is not None:
        if name == "t" and el.text:
            current.append(el.text)
        elif name in _CHARS:
            current.append(_CHARS[name])
    for child in el:
        _walk(child, paragraphs, current)


def extract_docx(path: Path, max_bytes: int) -> Document:
    with SafeZip(path) as z:
        main = _main_part(z)
        if z.find(main) is None:
            raise ExtractionError(f"not a Word document: {main} missing")
        paragraphs: list[str] = []
        _walk(z.xml(main), paragraphs, None)
        folder = posixpath.dirname(main)
        for extra in ("footnotes.xml", "endnotes.xml"):
            part = posixpath.join(folder, extra)
            if z.find(part):
                _walk(z.xml(part), paragraphs, None)
    return Document(clean_text("\n\n".join(paragraphs)), kind="docx")
