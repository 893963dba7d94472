"""Which pages of a PDF need OCR, and those pages as images (pypdfium2).

Decisions:
- A page "has a usable text layer" when pypdf finds at least MIN_LETTERS letters on it: a scan often
  carries a page number, a Bates stamp or a scanner's name as text, and that is not the page's text.
  Pages with fewer letters are OCR'd (a short real page, a title alone, costs one OCR and loses nothing).
- The text per page is what `extractors.pdf` already read, so the sync can pass its Document
  (`pages_needing_ocr`) and no PDF is parsed twice.
- Pages are rendered at RENDER_DPI, scaled down so no page exceeds MAX_PAGE_PIXELS, in grayscale
  (a third of the memory of RGB; the engines read grayscale text as well).
- pdfium (Chrome's PDF renderer) reads the file from memory; the file is opened with `open_regular`
  (no FIFO or device) and its size is capped by the caller.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Iterable, Iterator, Optional

from ...base.errors import ExtractionError
from ...base.progress import CancelToken
from ...base.safe_open import open_regular
from ...base.types import Document
from .engine import MAX_PAGE_PIXELS

__all__ = ["MIN_LETTERS", "RENDER_DPI", "pages_needing_ocr", "textless_pages", "render_pages"]

MIN_LETTERS = 25
RENDER_DPI = 300


def _letters(text: str) -> int:
    return sum(1 for c in text if c.isalpha())


def pages_needing_ocr(doc: Document, page_count: int) -> list[int]:
    """1-based numbers of the pages of a PDF (read by `extractors.pdf`) with fewer than MIN_LETTERS
    letters in their text layer. Pages after the last one read (the extractor's caps) are not included."""
    seen = {p.page: doc.text[p.start:p.end] for p in doc.pages}
    return [n for n in range(1, page_count + 1) if n in seen and _letters(seen[n]) < MIN_LETTERS]


def textless_pages(path: Path, cancel: Optional[CancelToken] = None) -> list[int]:
    """`pages_needing_ocr` for a PDF not read yet (reads its text layer with the PDF extractor)."""
    from ..extractors.pdf import extract_pdf

    doc = extract_pdf(path, max_bytes=0, cancel=cancel)
    return pages_needing_ocr(doc, len(doc.pages))


def _open(path: Path):
    import pypdfium2 as pdfium

    with open_regular(path) as fh:
        data = fh.read()
    try:
        return pdfium.PdfDocument(data)
    except pdfium.PdfiumError as exc:
        raise ExtractionError(f"PDF cannot be rendered: {exc}"[:300]) from None


def _scale(width_pt: float, height_pt: float) -> float:
    scale = RENDER_DPI / 72
    area = max(width_pt * height_pt, 1.0)
    return min(scale, math.sqrt(MAX_PAGE_PIXELS / area))


def render_pages(path: Path, pages: Iterable[int], cancel: Optional[CancelToken] = None) -> Iterator[tuple[int, object]]:
    """(page number, grayscale PIL image) for each 1-based page number that exists in the PDF."""
    import pypdfium2 as pdfium

    pdf = _open(path)
    try:
        total = len(pdf)
        for number in pages:
            if cancel is not None:
                cancel.check()
            if not 1 <= number <= total:
                continue
            page = pdf[number - 1]
            try:
                w, h = page.get_size()
                bitmap = page.render(scale=_scale(w, h), grayscale=True)
                image = bitmap.to_pil().copy()  # to_pil shares the bitmap's buffer, freed by close()
                bitmap.close()
            except pdfium.PdfiumError as exc:
                raise ExtractionError(f"page {number} cannot be rendered: {exc}"[:300]) from None
            finally:
                page.close()
            yield number, image
    finally:
        pdf.close()
