"""Text made valid Unicode where it enters the pipeline (extract(), the OCR text, a container's listing).

A reader can hand back lone surrogates (U+D800-U+DFFF): a PDF's ToUnicode map pointing at half of a UTF-16 pair
(docling's skipped_1page.pdf, Tika's testPDFVarious.pdf), a tar member name decoded with surrogateescape.
Python keeps them in a str, but nothing after can write them: the tokenizer's UTF-32 view, SQLite's UTF-8. Each
one becomes U+FFFD, one character for one, so page spans and passage offsets stay where they were.
"""

from __future__ import annotations

import re
from dataclasses import replace

from ..base.types import Document

__all__ = ["valid_unicode", "valid_document"]

_SURROGATE = re.compile("[\ud800-\udfff]")


def valid_unicode(text: str) -> str:
    """`text` with every surrogate code point replaced by U+FFFD (the same length)."""
    if text.isascii():
        return text
    try:
        text.encode("utf-8")  # C speed; only a text that holds a surrogate fails
    except UnicodeEncodeError:
        return _SURROGATE.sub("\ufffd", text)
    return text


def valid_document(doc: Document) -> Document:
    """`doc` with its text, title and notes valid Unicode (itself when they already are)."""
    text, title = valid_unicode(doc.text), valid_unicode(doc.title)
    notes = tuple(valid_unicode(n) for n in doc.notes)
    if text is doc.text and title is doc.title and all(a is b for a, b in zip(notes, doc.notes, strict=True)):
        return doc
    return replace(doc, text=text, title=title, notes=notes)
