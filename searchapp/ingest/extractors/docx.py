"""Word .docx: paragraphs of the main document part (tables' cells included), then foot/endnotes and comments,
then the parts Word imported whole (altChunk: an HTML, MHT or RTF file pasted in as it was, read by their readers),
then the headers and footers, each paragraph once (every section may repeat the same header in a part of its own).

Reads the WordprocessingML directly through SafeZip; python-docx is only used by the tests.
The parts are streamed: each outermost paragraph is turned into text and then dropped, so a part of
hundreds of MB never becomes one tree in memory, reading stops at the text cap, and cancel is honoured.
"""

from __future__ import annotations

import logging
import posixpath
from pathlib import Path
from typing import Optional
from xml.etree.ElementTree import Element

from ...base.errors import ExtractionError
from ...base.natural_order import natural_key
from ...base.progress import CancelToken
from ...base.types import Document
from .encoding import clean_text
from .opc import core_title, package_part, part_relationships, part_size
from .ziputil import PartTooLarge, SafeZip, local_name

__all__ = ["SUFFIXES", "extract_docx"]

SUFFIXES = frozenset({".docx", ".docm", ".dotx"})

_OFFICE_DOCUMENT = "/officeDocument"
# Property and deleted-text subtrees: <w:tabs><w:tab/> in pPr is a tab stop, not a tab.
_SKIP = frozenset({"pPr", "rPr", "sectPr", "tblPr", "trPr", "tcPr", "del", "moveFrom", "instrText", "delText"})
_CHARS = {"tab": "\t", "br": "\n", "cr": "\n", "noBreakHyphen": "-"}
_CHECK_EVERY = 4096  # XML events between two cancel checks
log = logging.getLogger(__name__)
_ALT_CHUNK = "/aFChunk"  # the relationship of an imported part (w:altChunk)
MAX_ALT_CHUNK_BYTES = 16 * 2**20  # one imported part: an HTML or RTF file pasted into a letter
_HEADER_FOOTER = ("/header", "/footer")  # the relationships of the main part to its headers' and footers' parts
MAX_HEADER_BYTES = 4 * 2**20  # one header or footer part: a few KB in a real letter (a logo is an image part)


def _main_part(z: SafeZip) -> str:
    return package_part(z, _OFFICE_DOCUMENT, "word/document.xml")


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


class _Frame:
    __slots__ = ("name", "children", "skipped")

    def __init__(self, name: str, skipped: bool) -> None:
        self.name, self.children, self.skipped = name, 0, skipped


def _stream_part(z: SafeZip, part: str, paragraphs: list[str], budget: list[int],
                 cancel: Optional[CancelToken], max_bytes: Optional[int] = None) -> None:
    """Paragraphs of one part in document order, as `_walk` on the whole tree would give them; PartTooLarge past
    `max_bytes` of the part (what came before it is in `paragraphs`)."""
    frames: list[_Frame] = []
    elements: list[Element] = []
    open_p = 0  # paragraphs open (and not in skipped content) around the current element
    for n, (event, el) in enumerate(z.iterparse(part, max_bytes=max_bytes)):
        if cancel is not None and n % _CHECK_EVERY == 0:
            cancel.check()
        if event == "start":
            name = local_name(el.tag)
            parent = frames[-1] if frames else None
            skipped = bool(parent and (parent.skipped or (parent.name == "AlternateContent" and parent.children)))
            skipped = skipped or name in _SKIP
            if parent:
                parent.children += 1
            frames.append(_Frame(name, skipped))
            elements.append(el)
            if name == "p" and not skipped:
                open_p += 1
            continue
        frame = frames.pop()
        elements.pop()
        if frame.name == "p" and not frame.skipped:
            open_p -= 1
            if open_p == 0:
                before = len(paragraphs)
                _walk(el, paragraphs, None)
                budget[0] -= sum(len(p) + 2 for p in paragraphs[before:])
        if open_p == 0 and elements:
            del elements[-1][-1]  # used (or not text): drop it, so memory stays flat
        if budget[0] < 0:
            return  # the registry cuts at the cap and reports it


def extract_docx(path: Path, max_bytes: int, max_chars: Optional[int] = None,
                 cancel: Optional[CancelToken] = None) -> Document:
    budget = [max_chars if max_chars is not None else 1 << 62]
    with SafeZip(path) as z:
        main = _main_part(z)
        if z.find(main) is None:
            raise ExtractionError(f"not a Word document: {main} missing")
        paragraphs: list[str] = []
        _stream_part(z, main, paragraphs, budget, cancel)
        folder = posixpath.dirname(main)
        for extra in ("footnotes.xml", "endnotes.xml", "comments.xml"):  # comments: what reviewers typed
            part = posixpath.join(folder, extra)
            if budget[0] >= 0 and z.find(part):
                _stream_part(z, part, paragraphs, budget, cancel)
        if budget[0] >= 0:
            try:
                paragraphs += _imported_parts(z, main, cancel)
            except ExtractionError as exc:  # a broken .rels or imported part: the document's own text still counts
                log.info("%s: imported parts not read: %s", path, exc)
        if budget[0] >= 0:
            paragraphs += _headers_and_footers(z, main, budget, cancel, path)
        title = core_title(z)
    return Document(clean_text("\n\n".join(paragraphs)), kind="docx", title=title)


def _imported_parts(z: SafeZip, main: str, cancel: Optional[CancelToken]) -> list[str]:
    """The text of each part the document imports whole (w:altChunk): HTML by the HTML reader, RTF by the RTF
    reader, a web page saved as one file (MHT, as tools that build Word files from HTML import it) by the MHTML
    reader, plain text as it is; after the document's own text (their place in it is not kept). A part over
    MAX_ALT_CHUNK_BYTES, or of another kind, is left out."""
    from .encoding import decode_text
    from .html import html_to_text
    from .mhtml import mhtml_text
    from .rtf import rtf_text

    out: list[str] = []
    for type_, part in part_relationships(z, main).values():
        stored = z.find(part) if type_.endswith(_ALT_CHUNK) else None
        size = part_size(z, stored) if stored else None
        if stored is None or size is None or size > MAX_ALT_CHUNK_BYTES:
            continue
        suffix = posixpath.splitext(stored)[1].lower()
        try:
            data = z.read(stored)
            if suffix in (".htm", ".html", ".xhtml"):
                text = html_to_text(decode_text(data), title=False, cancel=cancel)
            elif suffix == ".rtf" or data.lstrip()[:5] == b"{\\rtf":
                text = rtf_text(data, cancel)[0]
            elif suffix in (".mht", ".mhtml"):  # testAltChunkMHT.docx was "no text found"
                text = mhtml_text(data, cancel)
            elif suffix == ".txt":
                text = decode_text(data)
            else:
                continue
        except ExtractionError:  # a broken imported part: the document's own text still counts
            continue
        if text.strip():
            out.append(text.strip())
    return out


def _headers_and_footers(z: SafeZip, main: str, budget: list[int], cancel: Optional[CancelToken],
                         path: Path) -> list[str]:
    """The paragraphs of the headers, then the footers, the main part uses (header1.xml, header2.xml, ... in
    that order), each text once: a person finds a letter by its letterhead, which Word stores once per section
    and per kind of page (first, even, default). A part past MAX_HEADER_BYTES keeps what came before the cap."""
    try:
        rels = part_relationships(z, main).values()
    except ExtractionError as exc:  # a broken .rels: the document's own text still counts
        log.info("%s: headers and footers not read: %s", path, exc)
        return []
    parts = sorted({(type_.endswith("/footer"), natural_key(part)) for type_, part in rels
                    if type_.endswith(_HEADER_FOOTER) and z.find(part)})
    out: list[str] = []
    seen: set[str] = set()
    for _, (_, part) in parts:  # headers, then footers, each by number (header10 after header9)
        found: list[str] = []
        try:
            _stream_part(z, z.find(part) or part, found, budget, cancel, MAX_HEADER_BYTES)
        except PartTooLarge as exc:
            log.info("%s: %s", path, exc.cut_note())
        except ExtractionError as exc:  # a broken header: the document's own text still counts
            log.info("%s: %s not read: %s", path, part, exc)
        for text in found:
            if text not in seen:
                seen.add(text)
                out.append(text)
        if budget[0] < 0:
            break
    return out

