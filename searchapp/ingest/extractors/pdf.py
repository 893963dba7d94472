"""PDF text, page by page, with pypdf.

Decisions:
- Pages are joined with a blank line; `Document.pages` maps each page's characters.
- Encrypted files are opened with the empty password (common for "no printing" PDFs);
  otherwise ExtractionError("encrypted PDF").
- Only the first MAX_PAGES pages are read: beyond that a file is almost surely generated data, and
  reading it would stall a sync. The cut is logged as a warning, never done silently.
- A page whose text cannot be extracted counts as empty (one bad content stream must not
  make a long document unsearchable); if every page fails the file fails.
"""

from __future__ import annotations

import logging
from pathlib import Path

from ...base.errors import ExtractionError
from ...base.types import Document, PageSpan
from .encoding import clean_text

__all__ = ["SUFFIXES", "MAX_PAGES", "extract_pdf"]

SUFFIXES = frozenset({".pdf"})
MAX_PAGES = 5000
PAGE_SEPARATOR = "\n\n"

log = logging.getLogger(__name__)


def _open(path: Path):
    from pypdf import PdfReader
    from pypdf.errors import PyPdfError

    try:
        reader = PdfReader(path, strict=False)
    except PyPdfError as exc:
        raise ExtractionError(f"corrupt PDF: {exc}") from None
    if reader.is_encrypted:
        try:
            ok = reader.decrypt("")
        except Exception:  # e.g. AES without the optional crypto dependency
            ok = 0
        if not ok:
            raise ExtractionError("encrypted PDF")
    return reader


def extract_pdf(path: Path, max_bytes: int) -> Document:
    reader = _open(path)
    try:
        pages = reader.pages
        total = len(pages)
    except Exception as exc:
        raise ExtractionError(f"corrupt PDF: {exc}") from None
    if total > MAX_PAGES:
        log.warning("%s: %d pages, only the first %d are indexed", path, total, MAX_PAGES)
    texts: list[str] = []
    failures = 0
    for i in range(min(total, MAX_PAGES)):
        try:
            raw = pages[i].extract_text() or ""
        except (MemoryError, RecursionError):
            raise
        except Exception as exc:
            log.info("%s: page %d: %s", path, i + 1, exc)
            failures += 1
            raw = ""
        texts.append(clean_text(raw).strip())
    if texts and failures == len(texts):
        raise ExtractionError("corrupt PDF: no page could be read")
    parts: list[str] = []
    spans: list[PageSpan] = []
    pos = 0
    for number, text in enumerate(texts, start=1):
        if parts:
            parts.append(PAGE_SEPARATOR)
            pos += len(PAGE_SEPARATOR)
        spans.append(PageSpan(number, pos, pos + len(text)))
        parts.append(text)
        pos += len(text)
    return Document("".join(parts), tuple(spans), kind="pdf")
