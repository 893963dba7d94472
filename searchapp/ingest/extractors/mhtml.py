"""MHTML (.mht, .mhtml): a web page saved as one file (a browser's "Save as single file" or "Web Archive").

The file is a MIME message, a multipart/related whose root part is the page's HTML and whose other parts are
the images, style sheets and frames it shows. Only the page is read: the root part (the one the start=
parameter names, else the first text/html part), its transfer encoding (quoted-printable, base64) undone,
in the charset its header declares, else its own <meta>, then read as an .html file is (html.html_document,
title from its <title>). Other parts are never decoded and nothing is fetched. The MIME is parsed with
mail's caps (mail_parse.py: at most MAX_PARTS parts, counted before parsing; the file within the size cap).
"""

from __future__ import annotations

from dataclasses import replace
from email.message import Message
from pathlib import Path
from typing import Optional

from ...base.errors import ExtractionError
from ...base.progress import CancelToken
from ...base.types import Document
from .encoding import read_capped
from .html import html_document, html_text
from .mail_parse import parse, parts, parts_note

__all__ = ["SUFFIXES", "extract_mhtml", "mhtml_text"]

SUFFIXES = frozenset({".mht", ".mhtml"})


def _content_id(value: object) -> str:
    return str(value or "").strip().strip("<>").strip()


def _root(msg: Message) -> Optional[Message]:
    """The page's HTML part: the one the root's start= names (RFC 2557) when it is HTML, else the first HTML part."""
    start = _content_id(msg.get_param("start")) if msg.get_content_maintype() == "multipart" else ""
    first: Optional[Message] = None
    for part in parts(msg):
        if part.get_content_type() not in ("text/html", "application/xhtml+xml"):
            continue
        if not start or _content_id(part.get("Content-ID")) == start:
            return part
        first = first or part
    return first


def _charset(part: Message) -> Optional[str]:
    try:
        return part.get_content_charset()
    except Exception:  # a malformed parameter (RFC 2231 with a bad charset name): the page's <meta> decides
        return None


def extract_mhtml(path: Path, max_bytes: int, max_chars: Optional[int] = None,
                  cancel: Optional[CancelToken] = None, data: Optional[bytes] = None) -> Document:
    if data is None:
        data = read_capped(path, max_bytes)
    parsed = parse(data)
    page, charset = _page(parsed.msg, data)
    doc = html_document(page, declared=charset, cancel=cancel)
    note = parts_note(parsed.parts_left_out)
    return replace(doc, kind="mhtml", notes=doc.notes + ((note,) if note else ()))


def _page(msg: Message, data: bytes) -> tuple[bytes, Optional[str]]:
    """(the page's HTML bytes, the charset its part declares) of a parsed MHTML file of bytes `data`."""
    if msg.get("Content-Type") is None:  # no MIME at all: a plain HTML page under an .mht name
        return data, None
    root = _root(msg)
    if root is None:
        raise ExtractionError("no web page in the MHTML file (no HTML part)")
    payload = root.get_payload(decode=True)  # quoted-printable or base64 undone, leniently
    return payload if isinstance(payload, bytes) else b"", _charset(root)


def mhtml_text(data: bytes, cancel: Optional[CancelToken] = None) -> str:
    """The visible text of an MHTML file's page, without its <title>: a part a Word file imports whole (docx.py's
    altChunk, as an imported HTML part is read)."""
    page, charset = _page(parse(data).msg, data)
    return html_text(page, declared=charset, cancel=cancel)
