"""EPUB: the spine's XHTML chapters in reading order, each through html_to_text (without its <title>).

Only members of the zip itself are read: hrefs are resolved against the OPF's folder, and
remote ("scheme:") or escaping ("../" past the root) references are ignored.
"""

from __future__ import annotations

import posixpath
from pathlib import Path
from typing import Optional
from urllib.parse import unquote, urlsplit
from xml.etree.ElementTree import Element

from ...base.errors import ExtractionError, UnsupportedFileError
from ...base.progress import CancelToken
from ...base.types import Document
from .encoding import decode_text
from .html import html_to_text
from .title import dc_title
from .ziputil import SafeZip, local_name

__all__ = ["SUFFIXES", "extract_epub"]

SUFFIXES = frozenset({".epub"})

_CONTAINER = "META-INF/container.xml"
_HTML_TYPES = frozenset({"application/xhtml+xml", "text/html", "application/x-dtbook+xml"})


def _rootfile(z: SafeZip) -> str:
    if z.find(_CONTAINER):
        for el in z.xml(_CONTAINER).iter():
            if local_name(el.tag) == "rootfile" and el.get("full-path"):
                return el.get("full-path", "")
    # A missing container is a common defect: fall back to the only OPF there is.
    opfs = [n for n in z.names if n.lower().endswith(".opf")]
    if len(opfs) == 1:
        return opfs[0]
    raise ExtractionError("not an EPUB: no package document (OPF) found")


def resolve_href(base_dir: str, href: str) -> Optional[str]:
    """Zip member name for `href` relative to `base_dir`, or None when it points outside the zip."""
    parts = urlsplit(href)
    if parts.scheme or parts.netloc or not parts.path:
        return None
    path = unquote(parts.path)
    if path.startswith("/"):
        return None
    joined = posixpath.normpath(posixpath.join(base_dir, path))
    if joined == ".." or joined.startswith("../") or joined.startswith("/"):
        return None
    return joined


def _title(opf: Element) -> str:
    """The OPF metadata's dc:title (not a chapter's <title>: those are "Chapter 1" stubs)."""
    for el in opf.iter():
        if local_name(el.tag) == "metadata":
            return dc_title(el)
    return ""


def _spine(opf: Element, opf_path: str) -> list[str]:
    base = posixpath.dirname(opf_path)
    manifest: dict[str, tuple[str, str]] = {}
    order: list[str] = []
    for el in opf.iter():
        name = local_name(el.tag)
        # The EPUB 3 navigation document is the book's table of contents, not its words: left out even where
        # the spine lists it (the EPUB 3 spec's own book opens with it).
        if name == "item" and el.get("id") and el.get("href") and "nav" not in el.get("properties", "").split():
            manifest[el.get("id", "")] = (el.get("href", ""), el.get("media-type", ""))
        elif name == "itemref" and el.get("idref"):
            order.append(el.get("idref", ""))
    chapters: dict[str, None] = {}  # ordered and O(1) to test: a spine may list tens of thousands of items
    for idref in order:
        if idref not in manifest:
            continue
        href, media_type = manifest[idref]
        member = resolve_href(base, href)
        if member is not None and (media_type in _HTML_TYPES or not media_type) and member not in chapters:
            chapters[member] = None
    return list(chapters)


def extract_epub(path: Path, max_bytes: int, max_chars: Optional[int] = None,
                 cancel: Optional[CancelToken] = None) -> Document:
    texts: list[str] = []
    chars = 0
    with SafeZip(path) as z:
        opf_path = _rootfile(z)
        opf = z.xml(opf_path)
        for member in _spine(opf, opf_path):
            if cancel is not None:
                cancel.check()
            if max_chars is not None and chars > max_chars:
                break  # the registry cuts at the cap and reports it
            if z.find(member) is None:  # a dangling spine entry; the rest of the book is still readable
                continue
            try:
                # Chapter <title>s are mostly the book title again, or "Chapter 1" stubs: noise in every passage.
                text = html_to_text(decode_text(z.read(member)), title=False, cancel=cancel)
            except UnsupportedFileError:  # a binary item in the spine
                continue
            if text:
                texts.append(text)
                chars += len(text) + 2
    return Document("\n\n".join(texts), kind="epub", title=_title(opf))
