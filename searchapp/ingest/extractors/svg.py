"""An SVG drawing read as the words it shows or says of itself (decision 0178): its <title> and <desc>, and the
text of its <text> elements (their <tspan>s and <textPath>s with them) and Inkscape's flowed text. Never its path
data, styles or scripts: an icon of nothing but shapes has no text, as an image without words has none.

Parsed as a stream with DTDs, entities and outside references forbidden (ziputil.iterparse_xml). A plain document
type line naming the SVG 1.x DTD (Illustrator and old Inkscape write one) declares nothing and is dropped before
parsing; one that declares entities is still refused.
"""

from __future__ import annotations

import io
import re
from pathlib import Path
from typing import Optional

from ...base.progress import CancelToken
from ...base.types import Document
from .encoding import read_capped
from .xmlstream import XmlStream
from .ziputil import iterparse_xml, local_name

__all__ = ["SUFFIXES", "KIND", "extract_svg"]

SUFFIXES = frozenset({".svg"})
# Its Documents' kind: a drawing, an image. One without text (an icon) is told as an image OCR found no text in is
# (library/sync/words_pass.py, library/report/not_indexed.py), not as a document whose reader missed its words.
KIND = "svg"
_SAID = frozenset({"title", "desc", "text", "flowRoot"})  # read whole, their children's text with them
_PLAIN_DOCTYPE = re.compile(rb"<!DOCTYPE[^\[<>]*>", re.IGNORECASE)  # no internal subset: declares nothing
_HEAD = 4096  # bytes where a document type line can be (after the XML declaration and comments)


def extract_svg(path: Path, max_bytes: int, data: Optional[bytes] = None, cancel: Optional[CancelToken] = None,
                **_caps: object) -> Document:
    raw = data if data is not None else read_capped(path, max_bytes)
    doctype = _PLAIN_DOCTYPE.search(raw, 0, _HEAD)
    if doctype is not None:
        raw = raw[:doctype.start()] + raw[doctype.end():]
    events = iterparse_xml(io.BytesIO(raw), path.name)
    lines: list[str] = []
    title = ""
    for _, name, el, ancestors in XmlStream.of_events(events, path.name, holds=_SAID, cancel=cancel):
        if name not in _SAID or any(local_name(a.tag) in _SAID for a in ancestors):
            continue  # a <title> inside a <text> is read with it
        said = " ".join("".join(el.itertext()).split())
        if not said:
            continue
        if name == "title" and len(ancestors) == 1 and not title:  # the drawing's own, not a shape's tooltip
            title = said
        lines.append(said)
    return Document("\n".join(lines), kind=KIND, title=title)
