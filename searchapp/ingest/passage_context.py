"""What the bi-encoder reads for a passage: optionally its file's title in front of the passage text.

A passage cut from the middle of a document often never names its subject ("the results in Table 3 show
that it halves the error"); the file's title does. With `chunking.title_context` on, each passage is embedded
as "<title>\\n<passage>", while the stored text, its spans, the snippet and the lexical index stay exactly the
passage (the title is context for the vector only). The title is the file's own (`Document.title`: HTML
<title>, first Markdown/RST heading, PDF/DOCX/ODT/EPUB metadata); a file without one is embedded as before.
Whether it helps was measured (docs/benchmarks.md, "Figures"); the default follows that table.
"""

from __future__ import annotations

from ..base.types import Document

__all__ = ["MAX_TITLE_TOKENS", "file_title", "model_input"]

MAX_TITLE_TOKENS = 32  # word pieces of title at most: the rest of the window stays the passage's
_MAX_TITLE_CHARS = 200


def file_title(doc: Document) -> str:
    """The document's own title ("" when it has none). The file name is deliberately not used (docs/design-notes.md, "Passage
    context"): it made copies of a file embed differently, cost a re-embedding on rename, and on a collection
    whose names are ids it moved rankings by amounts no context can explain."""
    return doc.title.strip()[:_MAX_TITLE_CHARS]


def model_input(title: str, text: str) -> str:
    """The text the bi-encoder embeds for one passage; unchanged when there is no title or the passage already
    opens with it (a document's first passage usually does: the title would count twice)."""
    if not title or title.casefold() in text[: len(title) + 16].casefold():
        return text
    return f"{title}\n{text}"
