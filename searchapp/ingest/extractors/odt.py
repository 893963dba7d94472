"""OpenDocument text (.odt): headings and paragraphs of content.xml, lists and tables included, then the pages'
headers and footers (styles.xml's master pages), each text once. Also what the three ODF readers share: the
paragraphs of an element, the check for a password-protected package, and the headers and footers.

Reads the XML directly through SafeZip; odfpy is only used by the tests.
"""

from __future__ import annotations

import dataclasses
import logging
import re
from pathlib import Path
from typing import Optional
from xml.etree.ElementTree import Element

from ...base.errors import ExtractionError, UnsupportedFileError
from ...base.progress import CancelToken
from ...base.types import Document
from .encoding import clean_text
from .ole_encrypted import ENCRYPTED
from .title import dc_title
from .xmlstream import XmlStream
from .ziputil import PartTooLarge, SafeZip, local_name

__all__ = ["SUFFIXES", "extract_odt", "paragraphs", "SKIPPED", "check_package", "page_texts", "after_pages",
           "MAX_STYLES_BYTES"]
log = logging.getLogger(__name__)

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
_STYLE = "{urn:oasis:names:tc:opendocument:xmlns:style:1.0}"
_PRESENTATION = "{urn:oasis:names:tc:opendocument:xmlns:presentation:1.0}"
# A page's header and footer: a text's or a sheet's (style:header... in a master page), or a slide master's frames.
_PAGE_PARTS = frozenset(f"{_STYLE}{part}{kind}" for part in ("header", "footer") for kind in ("", "-left", "-first"))
_PAGE_FRAMES = frozenset({"header", "footer"})
# Fields whose stored value stands for what each printed page shows: "1", "???" (Calc's sheet name), a save date.
_PAGE_SKIPPED = SKIPPED | {_TEXT + field for field in ("page-number", "page-count", "page-continuation", "sheet-name",
                                                        "date", "time", "file-name", "title", "chapter")}
_NUMBERING = frozenset({_TEXT + "page-number", _TEXT + "page-count"})
_WORDS = re.compile(r"\w+")
MAX_STYLES_BYTES = 16 * 2**20  # styles.xml; a real one is under 1 MB, its master pages at its end
_MAX_SPACES = 1000  # <text:s text:c="..."> is attacker-controlled
_XML_WS = re.compile(r"[ \t\r\n]+")  # ODF collapses XML whitespace like HTML does


def _spaces(el: Element) -> str:
    try:
        n = int(el.get(_TEXT + "c", "1"))
    except ValueError:
        n = 1
    return " " * max(1, min(n, _MAX_SPACES))


def _walk(el: Element, paragraphs: list[str], current: Optional[list[str]],
          skipped: frozenset[str] = SKIPPED) -> None:
    tag = el.tag
    if tag in skipped:
        return
    if tag in _PARAGRAPHS:
        buf: list[str] = []
        _children(el, paragraphs, buf, skipped)
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
    _children(el, paragraphs, current, skipped)


def _children(el: Element, paragraphs: list[str], current: Optional[list[str]], skipped: frozenset[str]) -> None:
    if current is not None and el.text:
        current.append(_XML_WS.sub(" ", el.text))
    for child in el:
        _walk(child, paragraphs, current, skipped)
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
        paragraphs += page_texts(z, path)
    return Document(clean_text("\n\n".join(paragraphs)), kind="odt", title=title)


def page_texts(z: SafeZip, path: Path, cancel: Optional[CancelToken] = None) -> list[str]:
    """The paragraphs of the headers and footers of styles.xml's master pages (a text's or sheet's pages, a slide
    master's header and footer frames), each text once: a person finds a document by its letterhead, which is
    written once for every page. Page fields are left out, and a line that was only the page numbering with them.
    A broken or oversized styles.xml gives what came before the fault: the document's text is readable without it."""
    out: list[str] = []
    if z.find("styles.xml") is None:
        return out
    seen: set[str] = set()
    try:
        for _, name, el, stack in XmlStream(z, "styles.xml", _is_page_part, cancel, MAX_STYLES_BYTES):
            if (not _is_page_part(name, el) or el.get(_STYLE + "display") == "false"
                    or any(_is_page_part(local_name(a.tag), a) for a in stack)):
                continue  # not a header or footer, one not shown, or one inside another (read with it)
            for text in _page_paragraphs(el):
                if text not in seen:
                    seen.add(text)
                    out.append(text)
    except PartTooLarge as exc:
        log.info("%s: %s", path, exc.cut_note())
    except ExtractionError as exc:
        log.info("%s: headers and footers not read: %s", path, exc)
    return out


def _is_page_part(name: str, el: Element) -> bool:
    return el.tag in _PAGE_PARTS or (name == "frame" and el.get(_PRESENTATION + "class") in _PAGE_FRAMES)


def _page_paragraphs(el: Element) -> list[str]:
    out: list[str] = []
    for child in el:
        if child.tag not in _PARAGRAPHS:
            out += _page_paragraphs(child)  # a region (left, centre, right) or a frame's text box
            continue
        if _numbering_only(child):
            continue
        found: list[str] = []
        _walk(child, found, None, _PAGE_SKIPPED)
        out += (text for text in found if _WORDS.search(text))
    return out


def _numbering_only(paragraph: Element) -> bool:
    """Whether a header's or footer's paragraph is only its page numbering ("Page 1 of 9", "- 1 -", "1 / 9",
    "1ページ"): page fields with at most one word beside each, in any language, before the first and between them
    ("Page", "of") or after the last and between them ("ページ"). Any other paragraph is read less its fields:
    "Confidential — Page 1" keeps "Confidential — Page"."""
    gaps: list[list[str]] = [[]]  # the text before the first field, between two, after the last
    _numbering_gaps(paragraph, gaps)
    if len(gaps) == 1:
        return False
    words = [len(_WORDS.findall(" ".join(gap))) for gap in gaps]  # "Confidential<tab/>Page": two words
    return max(words) <= 1 and (words[0] == 0 or words[-1] == 0)


def _numbering_gaps(el: Element, gaps: list[list[str]]) -> None:
    if el.text:
        gaps[-1].append(el.text)
    for child in el:
        if child.tag in _NUMBERING:
            gaps.append([])
        elif child.tag not in _PAGE_SKIPPED:
            _numbering_gaps(child, gaps)
        if child.tail:
            gaps[-1].append(child.tail)


def after_pages(doc: Document, texts: list[str]) -> Document:
    """`doc` (sheets or slides) with `texts`, the headers and footers, after its last page: they are on every
    page, so on none of their own (they count with the last one)."""
    extra = clean_text("\n\n".join(texts)).strip()
    if not extra:
        return doc
    return dataclasses.replace(doc, text=f"{doc.text}\n\n{extra}" if doc.text else extra)
