"""OpenDocument text (.odt): headings and paragraphs of content.xml, lists and tables included.

Reads the XML directly through SafeZip; odfpy is only used by the tests.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Optional
from xml.etree.ElementTree import Element

from ...base.errors import ExtractionError, UnsupportedFileError
from ...base.types import Document
from .encoding import clean_text
from .ole_encrypted import ENCRYPTED
from .title import dc_title
from .xmlstream import XmlStream
from .ziputil import SafeZip

__all__ = ["SUFFIXES", "extract_odt", "paragraphs", "SKIPPED", "check_package"]

SUFFIXES = frozenset({".odt", ".ott"})

_TEXT = "{urn:oasis:names:tc:opendocument:xmlns:text:1.0}"
_OFFICE = "{urn:oasis:names:tc:opendocument:xmlns:office:1.0}"
_SVG = "{urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0}"
_PARAGRAPHS = frozenset({_TEXT + "p", _TEXT + "h"})
# Not document text: comments, change-tracking records (deleted text), a footnote's mark ("1", "*": kept inline it
# glued to the word before it, "rather1"); the note's body stays, read as its own paragraph.
SKIPPED = frozenset({_OFFICE + "annotation", _OFFICE + "annotation-end", _TEXT + "tracked-changes",
                     _TEXT + "note-citation", _SVG + "title", _SVG + "desc"})
_MANIFEST = "{urn:oasis:names:tc:opendocument:xmlns:manifest:1.0}"
# content.xml, or (ODF 1.4's "wholesome" encryption) the whole package as one member: encrypted, no text to read.
_ENCRYPTED_PARTS = frozenset({"content.xml", "encrypted-package"})
MAX_MANIFEST_BYTES = 16 * 2**20  # an entry per member (10,000 at most), about 1 KB each when encrypted
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


def check_package(z: SafeZip) -> None:
    """Before content.xml is parsed (by each ODF reader): UnsupportedFileError for a password-protected file, as
    for Office and PDF ones (its content.xml is ciphertext, which read as "corrupt XML"); ExtractionError when
    there is no content.xml."""
    if _encrypted(z):
        raise UnsupportedFileError(ENCRYPTED)
    if z.find("content.xml") is None:
        raise ExtractionError("not an OpenDocument file: content.xml missing")


def _encrypted(z: SafeZip) -> bool:
    """Whether META-INF/manifest.xml gives content.xml's entry (or the wholesome package's) encryption data.
    Streamed and capped (a manifest lists every member); a missing or broken manifest says no: content.xml then
    speaks for itself."""
    if z.find("META-INF/manifest.xml") is None:
        return False
    entries = XmlStream(z, "META-INF/manifest.xml", frozenset({"file-entry"}), max_bytes=MAX_MANIFEST_BYTES)
    try:
        for _, name, el, _stack in entries:
            if (name == "file-entry" and el.get(_MANIFEST + "full-path", "").lstrip("/") in _ENCRYPTED_PARTS
                    and el.find(_MANIFEST + "encryption-data") is not None):
                return True
    except ExtractionError:
        return False
    return False


def extract_odt(path: Path, max_bytes: int, **_caps: object) -> Document:
    with SafeZip(path) as z:
        check_package(z)
        root = z.xml("content.xml")
        title = dc_title(z.optional_xml("meta.xml"))
    body = root.find(f"{_OFFICE}body")
    paragraphs: list[str] = []
    _walk(body if body is not None else root, paragraphs, None)
    return Document(clean_text("\n\n".join(paragraphs)), kind="odt", title=title)
