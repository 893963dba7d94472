"""Text made of numbered pages (sheets, slides, messages): the joined text and its PageSpans, built within
a character budget so a reader can stop early."""

from __future__ import annotations

from typing import Iterable, Optional

from ...base.types import Document, PageSpan
from .encoding import clean_text

__all__ = ["PagedText", "PAGE_SEPARATOR", "join_pages", "join_layers"]

PAGE_SEPARATOR = "\n\n"


def join_pages(pages: Iterable[tuple[int, str]]) -> tuple[str, tuple[PageSpan, ...]]:
    """(text, spans) of `(number, text)` pages joined by PAGE_SEPARATOR, every page kept (an empty one too:
    a PDF page or a scan with no text still has its number). PagedText is the capped, cleaning variant."""
    return join_layers((number, text, "") for number, text in pages)


def join_layers(pages: Iterable[tuple[int, str, str]]) -> tuple[str, tuple[PageSpan, ...]]:
    """`join_pages` of `(number, the page's own text, what was written over it)` pages: a page's written part
    follows its own text after a blank line, and its span's `layer_end` says where its own text ends."""
    parts: list[str] = []
    spans: list[PageSpan] = []
    pos = 0
    for number, text, over in pages:
        if parts:
            parts.append(PAGE_SEPARATOR)
            pos += len(PAGE_SEPARATOR)
        layer_end = None
        if over:
            layer_end = pos + len(text)
            text = f"{text}{PAGE_SEPARATOR}{over}" if text else over
        spans.append(PageSpan(number, pos, pos + len(text), layer_end))
        parts.append(text)
        pos += len(text)
    return "".join(parts), tuple(spans)


class PagedText:
    def __init__(self, max_chars: Optional[int] = None) -> None:
        self.parts: list[str] = []
        self.spans: list[PageSpan] = []
        self.pos = 0
        self.budget = max_chars if max_chars is not None else 1 << 62
        self.notes: list[str] = []

    @property
    def full(self) -> bool:
        """Past the character cap: the registry cuts the text there and says so; reading on is wasted."""
        return self.pos > self.budget

    def add(self, number: int, text: str) -> None:
        """Page `number`'s text (cleaned here; an empty page gets no span)."""
        text = clean_text(text).strip()
        if not text:
            return
        if self.parts:
            self.parts.append(PAGE_SEPARATOR)
            self.pos += len(PAGE_SEPARATOR)
        self.spans.append(PageSpan(number, self.pos, self.pos + len(text)))
        self.parts.append(text)
        self.pos += len(text)

    def note(self, text: str) -> None:
        if text not in self.notes:
            self.notes.append(text)

    def document(self, kind: str, title: str = "") -> Document:
        return Document("".join(self.parts), tuple(self.spans), kind=kind, notes=tuple(self.notes), title=title)
