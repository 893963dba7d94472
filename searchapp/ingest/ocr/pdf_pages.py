"""Which pages of a PDF need OCR, and those pages as images (pypdfium2).

Decisions:
- A page "has a usable text layer" when the PDF extractor finds at least MIN_LETTERS letters on it: a scan
  often carries a page number, a Bates stamp or a scanner's name as text, and that is not the page's text.
  A garbled text layer (glyph codes that neither pypdf nor pdfium can map) is emptied by the extractor,
  so its page is OCR'd too.
  Pages with fewer letters are OCR'd (a short real page, a title alone, costs one OCR and loses nothing).
  Only the page's own text counts: a sticky note or a form value written over a scanned page
  (`PageSpan.layer_end`) says nothing of what the scan holds, and neither does a metadata title given to a PDF
  with no text at all; the scan is OCR'd, and they are kept beside its text (`merge_ocr`).
- The text per page is what `extractors.pdf` already read, so the sync can pass its Document
  (`pages_needing_ocr`) and no PDF is parsed twice.
- Pages are rendered at RENDER_DPI, scaled down so no page exceeds MAX_PAGE_PIXELS, in grayscale
  (a third of the memory of RGB; the engines read grayscale text as well).
- pdfium (Chrome's PDF renderer) reads the file from memory; the file is opened with `open_regular`
  (no FIFO or device) and its size is capped by the caller. Every pdfium call goes through
  `extractors.pdfium_doc` (one lock: pdfium is not thread-safe).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING, Iterable, Iterator, Optional

from ...base.errors import ExtractionError
from ...base.progress import CancelToken
from ...base.safe_open import open_regular
from ...base.types import Document
from ..extractors.pdfium_doc import PdfiumDoc
from .engine import MAX_PAGE_PIXELS

if TYPE_CHECKING:
    from PIL.Image import Image as PilImage

__all__ = ["MIN_LETTERS", "RENDER_DPI", "pages_needing_ocr", "textless_pages", "render_pages"]

MIN_LETTERS = 25
RENDER_DPI = 300


def _letters(text: str) -> int:
    return sum(1 for c in text if c.isalpha())


def pages_needing_ocr(doc: Document, page_count: int) -> list[int]:
    """1-based numbers of the pages of a PDF (read by `extractors.pdf`) with fewer than MIN_LETTERS
    letters in their text layer. Pages after the last one read (the extractor's caps) are not included."""
    seen = {p.page: doc.text[p.start:p.own_end] for p in doc.pages}  # not the notes written over it
    return [n for n in range(1, page_count + 1) if n in seen and _letters(seen[n]) < MIN_LETTERS]


def textless_pages(path: Path, cancel: Optional[CancelToken] = None) -> list[int]:
    """`pages_needing_ocr` for a PDF not read yet (reads its text layer with the PDF extractor)."""
    from ..extractors.pdf import extract_pdf

    doc = extract_pdf(path, max_bytes=0, cancel=cancel)
    return pages_needing_ocr(doc, len(doc.pages))


def _scale(width_pt: float, height_pt: float) -> float:
    scale = RENDER_DPI / 72
    area = max(width_pt * height_pt, 1.0)
    return min(scale, math.sqrt(MAX_PAGE_PIXELS / area))


def render_pages(path: Path, pages: Iterable[int], cancel: Optional[CancelToken] = None) -> Iterator[tuple[int, PilImage]]:
    """(page number, grayscale PIL image) for each 1-based page number that exists in the PDF."""
    with open_regular(path) as fh:
        data = fh.read()
    try:
        pdf = PdfiumDoc(data)
    except ExtractionError as exc:
        raise ExtractionError(str(exc).replace("cannot be read by pdfium", "cannot be rendered")) from None
    with pdf:
        total = len(pdf)
        for number in pages:
            if cancel is not None:
                cancel.check()
            if not 1 <= number <= total:
                continue
            yield number, pdf.render(number - 1, _scale(*pdf.page_size(number - 1)))
