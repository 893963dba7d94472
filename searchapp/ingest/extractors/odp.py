"""OpenDocument presentations (.odp): each draw:page a page (page = slide number), its text, then its
speaker notes (presentation:notes) as "Notes: ..."."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

from ...base.errors import ExtractionError
from ...base.progress import CancelToken
from ...base.types import Document
from .odt import paragraphs
from .paged import PagedText
from .pptx import MAX_SLIDES, slide_page
from .title import dc_title
from .ziputil import SafeZip

__all__ = ["SUFFIXES", "extract_odp"]

SUFFIXES = frozenset({".odp", ".otp"})

_DRAW = "{urn:oasis:names:tc:opendocument:xmlns:drawing:1.0}"
_NOTES = "{urn:oasis:names:tc:opendocument:xmlns:presentation:1.0}notes"


def extract_odp(path: Path, max_bytes: int, max_chars: Optional[int] = None,
                cancel: Optional[CancelToken] = None) -> Document:
    pages = PagedText(max_chars)
    with SafeZip(path) as z:
        if z.find("content.xml") is None:
            raise ExtractionError("not an OpenDocument file: content.xml missing")
        root = z.xml("content.xml")
        title = dc_title(z.optional_xml("meta.xml"))
    slides = list(root.iter(_DRAW + "page"))
    if len(slides) > MAX_SLIDES:
        pages.note(f"only the first {MAX_SLIDES:,} of {len(slides):,} slides read")
    for number, slide in enumerate(slides[:MAX_SLIDES], start=1):
        if cancel is not None:
            cancel.check()
        if pages.full:
            break
        text: list[str] = []
        notes: list[str] = []
        for child in slide:
            (notes if child.tag == _NOTES else text).extend(paragraphs(child))
        pages.add(number, slide_page("\n".join(text), "\n".join(notes)))
    return pages.document("odp", title)
