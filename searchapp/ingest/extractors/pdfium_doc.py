"""pdfium (pypdfium2, in the `ocr` extra): a PDF opened from bytes, one lock for every call into it.

Decisions:
- PDFium is not thread-safe, not even across documents: two threads in it at once corrupt the process. The
  sync, the OCR step and the window's preview run in different threads, so every call (open, a page's
  text, a render, close) holds LOCK; objects are closed explicitly under it, never left to the collector.
- Used for the pages whose pypdf text is glyph codes (`extractors.pdf`) and to render pages for OCR
  (`ocr.pdf_pages`); without the extra, `available()` is False and those pages go to OCR or stay empty.
- The document is read from bytes the caller has opened with `open_regular` and size-capped.
- pypdfium2 has no type information (Any to mypy): what its calls return is cast to what its documentation
  says they return.
"""

from __future__ import annotations

import functools
import importlib.util
import threading
from typing import TYPE_CHECKING, Optional, cast

from ...base.errors import ExtractionError

if TYPE_CHECKING:
    from PIL.Image import Image as PilImage

__all__ = ["LOCK", "available", "PdfiumDoc", "PasswordNeeded"]

LOCK = threading.RLock()
_ERR_PASSWORD = 4  # FPDF_ERR_PASSWORD (fpdfview.h): the file is encrypted and the password given does not open it


class PasswordNeeded(ExtractionError):
    """pdfium cannot open the file without a password."""


@functools.lru_cache(maxsize=None)
def available() -> bool:
    return importlib.util.find_spec("pypdfium2") is not None


class PdfiumDoc:
    """A PDF in pdfium; `close()` (or `with`) frees it. Raises ExtractionError when pdfium cannot open it,
    PasswordNeeded when that is for want of a password."""

    def __init__(self, data: bytes, password: Optional[str] = None) -> None:
        import pypdfium2 as pdfium

        with LOCK:
            try:
                self.pdf = pdfium.PdfDocument(data, password=password)
            except pdfium.PdfiumError as exc:
                error = PasswordNeeded if getattr(exc, "err_code", None) == _ERR_PASSWORD else ExtractionError
                raise error(f"PDF cannot be read by pdfium: {exc}"[:300]) from None

    def __enter__(self) -> "PdfiumDoc":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __len__(self) -> int:
        with LOCK:
            return len(self.pdf)

    def page_text(self, index: int) -> Optional[str]:
        """The text of page `index` (0-based) as pdfium reads it, or None when that page cannot be read."""
        import pypdfium2 as pdfium

        with LOCK:
            if not 0 <= index < len(self.pdf):
                return None
            page = textpage = None
            try:
                page = self.pdf[index]
                textpage = page.get_textpage()
                return cast(str, textpage.get_text_range())
            except pdfium.PdfiumError:
                return None
            finally:
                if textpage is not None:
                    textpage.close()
                if page is not None:
                    page.close()

    def render(self, index: int, scale: float) -> PilImage:
        """Page `index` (0-based) as a grayscale PIL image at `scale` (pixels per point), scale chosen by
        the caller from `page_size`."""
        import pypdfium2 as pdfium

        with LOCK:
            page = self.pdf[index]
            try:
                bitmap = page.render(scale=scale, grayscale=True)
                try:
                    return cast("PilImage", bitmap.to_pil().copy())  # to_pil shares the bitmap's buffer, freed by close()
                finally:
                    bitmap.close()
            except pdfium.PdfiumError as exc:
                raise ExtractionError(f"page {index + 1} cannot be rendered: {exc}"[:300]) from None
            finally:
                page.close()

    def page_size(self, index: int) -> tuple[float, float]:
        with LOCK:
            page = self.pdf[index]
            try:
                return cast(tuple[float, float], page.get_size())
            finally:
                page.close()

    def close(self) -> None:
        with LOCK:
            self.pdf.close()
