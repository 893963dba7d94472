"""PowerPoint .pptx: each slide a page (page = slide number in the presentation's order), its text by
paragraph, then its speaker notes as "Notes: ...".

Slide order comes from ppt/presentation.xml through its relationships, not from part names (slide7.xml may be
the second slide). Slide numbers, dates, headers and footers are placeholders repeated on every slide: left
out. Charts and SmartArt live in other parts and are not read. A slide part over MAX_SLIDE_BYTES is skipped
and noted: a real slide is a few KB.
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional
from xml.etree.ElementTree import Element

from ...base.progress import CancelToken
from ...base.types import Document
from .opc import core_title, listed_parts, package_part, part_relationships, part_size
from .paged import PagedText
from .ziputil import SafeZip, local_name

__all__ = ["SUFFIXES", "extract_pptx", "slide_page", "MAX_SLIDES"]

SUFFIXES = frozenset({".pptx", ".pptm", ".ppsx"})

MAX_SLIDES = 5000  # like PDF pages: beyond that a file is generated data
MAX_SLIDE_BYTES = 16 * 2**20
MAX_PRESENTATION_BYTES = 16 * 2**20
_SKIP_PLACEHOLDERS = frozenset({"sldNum", "dt", "ftr", "hdr", "sldImg"})


def _is_drawing(tag: str, name: str) -> bool:
    return "drawingml" in tag and local_name(tag) == name  # transitional and strict namespaces alike


def _placeholder(shape: Element) -> str:
    """The placeholder type of a <p:sp> (nvSpPr/nvPr/ph@type), or ""."""
    for nv in shape:
        if local_name(nv.tag) == "nvSpPr":
            for pr in nv:
                for ph in pr:
                    if local_name(ph.tag) == "ph":
                        return ph.get("type", "body")
    return ""


def _walk(el: Element, paragraphs: list[str], current: Optional[list[str]]) -> None:
    tag = el.tag if isinstance(el.tag, str) else ""
    name = local_name(tag)
    if name == "sp" and _placeholder(el) in _SKIP_PLACEHOLDERS:
        return
    if name == "AlternateContent":  # Choice and Fallback hold the same content twice
        first = next(iter(el), None)
        if first is not None:
            _walk(first, paragraphs, current)
        return
    if _is_drawing(tag, "p"):
        buf: list[str] = []
        for child in el:
            _walk(child, paragraphs, buf)
        text = "".join(buf).strip()
        if text:
            paragraphs.append(text)
        return
    if current is not None:
        if _is_drawing(tag, "t") and el.text:
            current.append(el.text)
        elif _is_drawing(tag, "br"):
            current.append("\n")
    for child in el:
        _walk(child, paragraphs, current)


def _part_text(z: SafeZip, part: str, notes: PagedText) -> str:
    size = part_size(z, part)
    if size is None:
        return ""
    if size > MAX_SLIDE_BYTES:
        notes.note(f"{part} skipped: larger than {MAX_SLIDE_BYTES // 2**20} MB")
        return ""
    paragraphs: list[str] = []
    _walk(z.xml(part), paragraphs, None)
    return "\n".join(paragraphs)


def slide_page(text: str, notes: str) -> str:
    """A slide's page text: its own text, then its speaker notes."""
    return f"{text}\n\nNotes: {notes}" if notes else text


def _slides(z: SafeZip, presentation: str) -> list[str]:
    listed = listed_parts(z, presentation, MAX_PRESENTATION_BYTES, "sldId", "a PowerPoint presentation")
    return [target for _el, type_, target in listed if type_.endswith("/slide")]


def extract_pptx(path: Path, max_bytes: int, max_chars: Optional[int] = None,
                 cancel: Optional[CancelToken] = None) -> Document:
    pages = PagedText(max_chars)
    with SafeZip(path) as z:
        slides = _slides(z, package_part(z, "/officeDocument", "ppt/presentation.xml"))
        if len(slides) > MAX_SLIDES:
            pages.note(f"only the first {MAX_SLIDES:,} of {len(slides):,} slides read")
        for number, slide in enumerate(slides[:MAX_SLIDES], start=1):
            if cancel is not None:
                cancel.check()
            if pages.full:
                break
            text = _part_text(z, slide, pages)
            notes = "\n".join(_part_text(z, target, pages) for type_, target in part_relationships(z, slide).values()
                            if type_.endswith("/notesSlide"))
            pages.add(number, slide_page(text, notes))
        title = core_title(z)
    return pages.document("pptx", title)
