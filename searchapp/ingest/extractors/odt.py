"""OpenDocument text (.odt): headings and paragraphs of content.xml, lists and tables included.

Reads the XML directly through SafeZip; odfpy is only used by the tests.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Optional
from xml.etree.ElementTree import Element

from ...base.errors import ExtractionError
from ...base.types import Document
from .encoding import clean_text
from .title import dc_title
from .ziputil import SafeZip

__all__ = ["SUFFIXES", "extract_odt", "paragraphs", "SKIPPED"]

SUFFIXES = frozenset({".odt", ".ott"})

_TEXT = "{urn:oasis:names:tc:opendocument:xmlns:text:1.0}"
_OFFICE = "{urn:oasis:names:tc:opendocument:xmlns:office:1.0}"
_SVG = "{urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0}"
_PARAGRAPHS = frozenset({_TEXT + "p", _TEXT + "h"})
# Not document text: comments, change-tracking records (deleted text), a footnote's mark ("1", "*": kept inline it
# glued to the word before it, "rather1"); the note's body stays, read as its own paragraph.
SKIPPED = frozenset({_OFFICE + "annotation", _OFFICE + "annotation-end", _TEXT + "tracked-changes",
                     _TEXT + "note-citation", _SVG + "title", _SVG + "desc"})
_MAX_SPACES = 1000  # <text:s text:c="..."> is attacker-controlled
_XML_WS = re.compile(r"[ \t\r\n]+")  # ODF collapses XML whitespace like HTML does


def _spaces(el: Element) -> str:
    try:
        n = int(el.get(_TEXT + "c", "1"))
    except ValueError:
        n = 1
    return " " * max(1, min(n, _MAX_SPACES))


def _walk(el: Element, paragraphs: list[str], current: Optional[list[str]]) -> None:
    tag = el.tag
    if tag in SKIPPED:
        return
    if tag in _PARAGRAPHS:
        buf: list[str] = []
        _children(el, paragraphs, buf)
        text = "".join(buf).strip(" ")
        if text.strip():
            paragraphs.append(text)
        return
    if current is not None:
        if tag == _TEXT + "s":
            current.append(_spaces(el))
            return
        if tag == _TEXT + "tab":
            current.append("\t")
            return
        if tag == _TEXT + "line-break":
            current.append("\n")
            return
    _children(el, paragraphs, current)


def _children(el: Element, paragraphs: list[str], current: Optional[list[str]]) -> None:
    if current is not None and el.text:
        current.append(_XML_WS.sub(" ", el.text))
    for child in el:
        _walk(child, paragraphs, current)
        if current is not None and child.tail:
            current.append(_XML_WS.sub(" ", child.tail))


def paragraphs(el: Element) -> list[str]:
    """The paragraphs (text:p, text:h) under `el`, as plain text; comments and tracked deletions left out.
    Used by the other ODF readers for a cell, a slide or its notes."""
    out: list[str] = []
    _walk(el, out, None)
    return out


def extract_odt(path: Path, max_bytes: int, **_caps: object) -> Document:
    with SafeZip(path) as z:
        if z.find("content.xml") is None:
            raise ExtractionError("not an OpenDocument file: content.xml missing")
        root = z.xml("content.xml")
        title = dc_title(z.optional_xml("meta.xml"))
    body = root.find(f"{_OFFICE}body")
    paragraphs: list[str] = []
    _walk(body if body is not None else root, paragraphs, None)
    return Document(clean_text("\n\n".join(paragraphs)), kind="odt", title=title)
