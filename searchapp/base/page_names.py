"""What a numbered part of a file is called where a person reads it. A file's text is kept as numbered pages
(ingest/extractors/paged.py) whatever the format: a presentation's are its slides, a workbook's its sheets, a
mailbox's its messages. "page 34" of a deck sent a newcomer looking for a page; "slide 34" is what PowerPoint
shows. The suffixes are those the readers take (ingest/extractors/registry.py; a test holds the two together)."""

from __future__ import annotations

import os
from typing import Iterable

__all__ = ["PAGE_WORDS", "page_word", "page_label", "pages_label"]

# suffix -> the word for one of its numbered parts; any other file's parts are pages
PAGE_WORDS = {
    **dict.fromkeys((".pptx", ".pptm", ".ppsx", ".odp", ".otp"), "slide"),
    **dict.fromkeys((".xlsx", ".xlsm", ".ods", ".ots", ".xls", ".xlt"), "sheet"),
    ".mbox": "message",
}


def page_word(path: str) -> str:
    """"slide", "sheet", "message" or "page" for `path` (a file, or a member's key: the member's own suffix)."""
    return PAGE_WORDS.get(os.path.splitext(path)[1].lower(), "page")


def page_label(path: str, page: int) -> str:
    """"slide 34", "page 2"."""
    return f"{page_word(path)} {page}"


def pages_label(path: str, pages: Iterable[int]) -> str:
    """"slides 3, 5", "page 2"."""
    numbers = list(pages)
    return f"{page_word(path)}{'s' if len(numbers) > 1 else ''} {', '.join(map(str, numbers))}"
