"""PowerPoint .pptx: each slide a page (page = slide number in the presentation's order), its text by
paragraph, then its speaker notes as "Notes: ...", then its reviewers' comments, one paragraph each and without
their authors, as a .docx's comments are read (docx.py): the legacy parts' p:cm/p:text and the modern parts'
(ppt/comments/modernComment_*.xml) txBody paragraphs, a comment's replies after it.

Slide order comes from ppt/presentation.xml through its relationships, not from part names (slide7.xml may be
the second slide). Slide numbers and dates are fields repeated on every slide: left out; a footer or header is
text a person typed: kept. The text a person added to a slide layout or slide master (a company name, a
"Confidential" box) is read once, on the page of the first slide shown with it; their placeholders are the
template's ("Click to edit Master title style"): left out, as .ppt's masters' are (ppt97.py). Charts and
SmartArt live in other parts and are not read. Slides are streamed (xmlstream.py), one
paragraph held at a time; a slide part over MAX_SLIDE_BYTES is skipped and noted (a real slide is a few KB),
and so are a comments part over MAX_COMMENTS_BYTES and the speaker notes and comments of a slide whose
relationships part is over its cap (opc.py).
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional
from xml.etree.ElementTree import Element

from ...base.errors import ExtractionError
from ...base.progress import CancelToken
from ...base.types import Document
from .opc import core_title, listed_parts, package_part, part_relationships, part_size
from .paged import PagedText
from .xmlstream import XmlStream
from .ziputil import PartTooLarge, SafeZip, local_name

__all__ = ["SUFFIXES", "extract_pptx", "slide_page", "MAX_SLIDES"]

SUFFIXES = frozenset({".pptx", ".pptm", ".ppsx"})

MAX_SLIDES = 5000  # like PDF pages: beyond that a file is generated data
MAX_SLIDE_BYTES = 16 * 2**20
MAX_PRESENTATION_BYTES = 16 * 2**20
MAX_COMMENTS_BYTES = 4 * 2**20  # one slide's comments part: a real one is a few KB
_SKIP_PLACEHOLDERS = frozenset({"sldNum", "dt", "sldImg"})
_MASTERS = ("/slideLayout", "/slideMaster")  # a slide's layout, the layout's master
_SLIDE_ID = frozenset({"sldId"})
_COMMENT = frozenset({"cm"})  # p:cm (legacy) and p188:cm (modern), each held whole: a few elements
_COMMENTS = "/comments"  # both relationship types end so: officeDocument/2006/… and office/2018/10/…


def _is_drawing(tag: str, name: str) -> bool:
    return "drawingml" in tag and local_name(tag) == name  # transitional and strict namespaces alike


def _is_paragraph(name: str, el: Element) -> bool:
    return name == "p" and "drawingml" in el.tag


def _walk(el: Element, paragraphs: list[str], current: Optional[list[str]]) -> None:
    """The text of paragraph `el` (and of any paragraph in it) appended to `paragraphs`."""
    tag = el.tag if isinstance(el.tag, str) else ""
    name = local_name(tag)
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


def _part_text(z: SafeZip, part: str, notes: PagedText, cancel: Optional[CancelToken] = None,
               master: bool = False) -> str:
    """The text of a slide, notes slide or (`master`: all placeholders left out) slide layout or master."""
    size = part_size(z, part)
    if size is None:
        return ""
    if size > MAX_SLIDE_BYTES:
        notes.note(f"{part} skipped: larger than {MAX_SLIDE_BYTES // 2**20} MB")
        return ""
    paragraphs: list[str] = []
    # Open elements whose paragraphs are not text: placeholder shapes in _SKIP_PLACEHOLDERS (on a master: all), and an
    # mc:AlternateContent once its first branch has ended (its other branches hold the same content).
    skipped: set[int] = set()
    for _, name, el, stack in XmlStream(z, part, _is_paragraph, cancel, MAX_SLIDE_BYTES):
        skipped.discard(id(el))
        if _is_paragraph(name, el):
            if not any(_is_drawing(a.tag, "p") or id(a) in skipped for a in stack):
                _walk(el, paragraphs, None)
        elif name == "ph" and len(stack) >= 3 and local_name(stack[-2].tag) == "nvSpPr":
            if local_name(stack[-3].tag) == "sp" and (master or el.get("type", "body") in _SKIP_PLACEHOLDERS):
                skipped.add(id(stack[-3]))
        if stack and local_name(stack[-1].tag) == "AlternateContent":
            skipped.add(id(stack[-1]))
    return "\n".join(paragraphs)


def _relationships(z: SafeZip, slide: str, pages: PagedText) -> dict[str, tuple[str, str]]:
    """A slide's relationships: its notes, its layout. {} (noted) when the part is over its cap."""
    try:
        return part_relationships(z, slide)
    except PartTooLarge as exc:
        pages.note(f"speaker notes and comments of {slide} skipped: {exc}")
        return {}


def _notes(z: SafeZip, rels: dict[str, tuple[str, str]], pages: PagedText, cancel: Optional[CancelToken]) -> str:
    return "\n".join(_part_text(z, target, pages, cancel) for type_, target in rels.values()
                     if type_.endswith("/notesSlide"))


def _comment_paragraphs(cm: Element) -> list[str]:
    """A comment's text: a legacy one's p:text; a modern one's txBody paragraphs, then its replies' (the file
    writes the replies first)."""
    paragraphs: list[str] = []
    replies: list[str] = []
    for child in cm:
        name = local_name(child.tag) if isinstance(child.tag, str) else ""
        if name == "text" and child.text and child.text.strip():
            paragraphs.append(child.text.strip())
        elif name == "txBody":
            _walk(child, paragraphs, None)
        elif name == "replyLst":
            for body in (b for reply in child for b in reply if local_name(b.tag) == "txBody"):
                _walk(body, replies, None)
    return paragraphs + replies


def _comments(z: SafeZip, rels: dict[str, tuple[str, str]], pages: PagedText,
              cancel: Optional[CancelToken]) -> str:
    """What reviewers typed on a slide, from each comments part its relationships name (one over
    MAX_COMMENTS_BYTES is skipped and noted)."""
    paragraphs: list[str] = []
    for type_, part in rels.values():
        size = part_size(z, part) if type_.endswith(_COMMENTS) else None
        if size is None:
            continue
        if size > MAX_COMMENTS_BYTES:
            pages.note(f"{part} skipped: larger than {MAX_COMMENTS_BYTES // 2**20} MB")
            continue
        read: list[str] = []
        try:
            for _, name, el, stack in XmlStream(z, part, _COMMENT, cancel, MAX_COMMENTS_BYTES):
                if name == "cm" and len(stack) == 1:
                    read += _comment_paragraphs(el)
        except ExtractionError as exc:  # a broken comments part, read since 0.27.0: the slides' own text still counts
            pages.note(f"{part} skipped: {exc}")
            continue
        paragraphs += read
    return "\n".join(paragraphs)


def _masters_text(z: SafeZip, rels: dict[str, tuple[str, str]], seen: set[str], pages: PagedText,
                  cancel: Optional[CancelToken]) -> str:
    """The own text of a slide's layout and of the layout's master, each once a presentation (`seen`: the parts
    read). A layout read before had its master read with it."""
    texts: list[str] = []
    part = ""
    for kind in _MASTERS:
        if part:  # the layout's own relationships name its master
            try:
                rels = part_relationships(z, part)
            except PartTooLarge as exc:
                pages.note(f"master text of {part} skipped: {exc}")
                break
        part = next((target for type_, target in rels.values() if type_.endswith(kind)), "")
        if not part or part in seen:
            break
        seen.add(part)
        texts.append(_part_text(z, part, pages, cancel, master=True))
    return "\n".join(text for text in texts if text)


def slide_page(text: str, notes: str, comments: str = "") -> str:
    """A slide's page text: its own text, then its speaker notes, then its comments."""
    page = f"{text}\n\nNotes: {notes}" if notes else text
    return f"{page}\n\n{comments}" if comments else page


def _slides(z: SafeZip, presentation: str) -> list[str]:
    listed = listed_parts(z, presentation, MAX_PRESENTATION_BYTES, _SLIDE_ID, "a PowerPoint presentation")
    return [target for _name, _attrs, type_, target in listed if type_.endswith("/slide")]


def extract_pptx(path: Path, max_bytes: int, max_chars: Optional[int] = None,
                 cancel: Optional[CancelToken] = None) -> Document:
    pages = PagedText(max_chars)
    with SafeZip(path) as z:
        slides = _slides(z, package_part(z, "/officeDocument", "ppt/presentation.xml"))
        if len(slides) > MAX_SLIDES:
            pages.note(f"only the first {MAX_SLIDES:,} of {len(slides):,} slides read")
        masters: set[str] = set()
        for number, slide in enumerate(slides[:MAX_SLIDES], start=1):
            if cancel is not None:
                cancel.check()
            if pages.full:
                break
            rels = _relationships(z, slide, pages)
            text = "\n".join(t for t in (_part_text(z, slide, pages, cancel),
                                          _masters_text(z, rels, masters, pages, cancel)) if t)
            pages.add(number, slide_page(text, _notes(z, rels, pages, cancel), _comments(z, rels, pages, cancel)))
        title = core_title(z)
    return pages.document("pptx", title)
