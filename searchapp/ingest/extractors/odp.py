"""OpenDocument presentations (.odp): each draw:page a page (page = slide number), its text, then its
speaker notes (presentation:notes) as "Notes: ...". After the slides, their headers and footers, each text once:
the ones the slides declare (presentation:footer-decl, what Insert > Header and Footer writes) and the masters'
header and footer frames (odt.page_texts).

content.xml is streamed (xmlstream.py): each paragraph is read and dropped as it ends, so memory stays flat
on any size; reading stops at MAX_SLIDES slides, at the text cap, or past MAX_CONTENT_BYTES (a real deck's
content.xml is a few MB), and what was left out is noted.
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional
from xml.etree.ElementTree import Element

from ...base.progress import CancelToken
from ...base.types import Document
from .odt import SKIPPED, after_pages, check_package, page_texts, paragraphs
from .paged import PagedText
from .pptx import MAX_SLIDES, slide_page
from .title import dc_title
from .xmlstream import XmlStream
from .ziputil import PartTooLarge, SafeZip

__all__ = ["SUFFIXES", "extract_odp", "MAX_CONTENT_BYTES"]

SUFFIXES = frozenset({".odp", ".otp"})

MAX_CONTENT_BYTES = 64 * 2**20
_DRAW = "{urn:oasis:names:tc:opendocument:xmlns:drawing:1.0}"
_TEXT = "{urn:oasis:names:tc:opendocument:xmlns:text:1.0}"
_PAGE = _DRAW + "page"
_NOTES = "{urn:oasis:names:tc:opendocument:xmlns:presentation:1.0}notes"
_PARAGRAPHS = frozenset({_TEXT + "p", _TEXT + "h"})
_PRESENTATION = "{urn:oasis:names:tc:opendocument:xmlns:presentation:1.0}"
_DECLS = frozenset({_PRESENTATION + "header-decl", _PRESENTATION + "footer-decl"})
_MAX_DECL_CHARS = 10_000  # one footer's text: a line


def _is_paragraph(_name: str, el: Element) -> bool:
    return el.tag in _PARAGRAPHS


def extract_odp(path: Path, max_bytes: int, max_chars: Optional[int] = None,
                cancel: Optional[CancelToken] = None) -> Document:
    pages = PagedText(max_chars)
    with SafeZip(path) as z:
        check_package(z)
        footers: list[str] = []
        try:
            _read(z, pages, footers, cancel)
        except PartTooLarge as exc:
            pages.note(exc.cut_note())
        title = dc_title(z.optional_xml("meta.xml"))
        if not pages.full:
            footers += (text for text in page_texts(z, path, cancel) if text not in footers)
    return after_pages(pages.document("odp", title), footers)


def _read(z: SafeZip, pages: PagedText, footers: list[str], cancel: Optional[CancelToken]) -> None:
    number = 0
    text: list[str] = []
    notes: list[str] = []
    for _, _name, el, stack in XmlStream(z, "content.xml", _is_paragraph, cancel, MAX_CONTENT_BYTES):
        if el.tag == _PAGE:
            number += 1
            if number > MAX_SLIDES:
                pages.note(f"only the first {MAX_SLIDES:,} slides read")
                return
            pages.add(number, slide_page("\n".join(text), "\n".join(notes)))
            text, notes = [], []
            if pages.full:
                return
        elif el.tag in _DECLS:  # declared before the slides, each once
            decl = " ".join((el.text or "")[:_MAX_DECL_CHARS].split())
            if decl and decl not in footers:
                footers.append(decl)
        elif el.tag in _PARAGRAPHS:
            tags = [a.tag for a in stack]
            if _PAGE not in tags or any(t in _PARAGRAPHS or t in SKIPPED for t in tags):
                continue  # outside a slide, inside a paragraph read with it, or a comment
            (notes if _NOTES in tags else text).extend(paragraphs(el))
