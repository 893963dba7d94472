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
- A page's text is what a viewer shows (`shown_text`): a word that lies wholly outside the page's CropBox (printers'
  marks, a slug line, the rest of a larger sheet) is left out; a word partly inside is kept whole. A CropBox
  within SLACK of the MediaBox, or none, costs nothing more; one that shows nothing of it (a broken box) is
  ignored, so a page's text is never lost to it. Only a cropped page's characters are looked at one by one.
"""

from __future__ import annotations

import functools
import importlib.util
import math
import re
import threading
from typing import TYPE_CHECKING, Any, Optional, Sequence, cast

from ...base.errors import ExtractionError

if TYPE_CHECKING:
    from PIL.Image import Image as PilImage

__all__ = ["LOCK", "available", "PdfiumDoc", "PasswordNeeded", "shown_box", "SLACK"]

LOCK = threading.RLock()
_ERR_PASSWORD = 4  # FPDF_ERR_PASSWORD (fpdfview.h): the file is encrypted and the password given does not open it
# Points (1/72 in): a CropBox this close to the MediaBox shows all of it (files write one a point or so off, from
# rounding), and a glyph this close to the CropBox counts as inside it.
SLACK = 2.0
Box = tuple[float, float, float, float]  # left, bottom, right, top, in the page's PDF coordinates
_WORD = re.compile(r"\S+")


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
        """The text of page `index` (0-based) as pdfium reads it, less what its CropBox hides (`shown_text`), or
        None when that page cannot be read."""
        shown = self.shown_text(index)
        return shown[0] if shown is not None else None

    def shown_text(self, index: int) -> Optional[tuple[str, bool]]:
        """(the text of page `index` a viewer shows: without the words wholly outside its CropBox, whether it left
        any out); None when that page cannot be read."""
        import pypdfium2 as pdfium

        with LOCK:
            if not 0 <= index < len(self.pdf):
                return None
            page = textpage = None
            try:
                page = self.pdf[index]
                textpage = page.get_textpage()
                box = shown_box(page.get_mediabox(), page.get_cropbox())
                if box is None:  # most pages: no character is looked at
                    return cast(str, textpage.get_text_range()), False
                return _words_within(textpage, box)
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


def shown_box(media: Sequence[float], crop: Sequence[float]) -> Optional[Box]:
    """The part of a page a viewer shows, its CropBox clipped to its MediaBox (the PDF standard's rule); None when
    that is all of the MediaBox (within SLACK) or hardly anything of it (a broken box: the page is read whole)."""
    try:
        (ml, mb, mr, mt), (cl, cb, cr, ct) = _normal(media), _normal(crop)
    except (TypeError, ValueError):
        return None
    box = (max(ml, cl), max(mb, cb), min(mr, cr), min(mt, ct))
    if box[2] - box[0] < SLACK or box[3] - box[1] < SLACK:
        return None
    if all(abs(a - b) <= SLACK for a, b in zip(box, (ml, mb, mr, mt), strict=True)):
        return None
    return box


def _normal(values: Sequence[float]) -> Box:
    """A rectangle as (left, bottom, right, top), whatever corners the file gives; ValueError when it is not one."""
    left, bottom, right, top = (float(v) for v in values)
    if not all(math.isfinite(v) for v in (left, bottom, right, top)):
        raise ValueError("not a rectangle")
    return min(left, right), min(bottom, top), max(left, right), max(bottom, top)


def _words_within(textpage: Any, box: Box) -> tuple[str, bool]:
    """(the page's text without the words whose every character lies outside `box` (widened by SLACK), whether any
    did). The spaces around left-out words become one: a line break when they held one."""
    import pypdfium2 as pdfium

    chars, boxed = _chars(textpage)
    left, bottom, right, top = box[0] - SLACK, box[1] - SLACK, box[2] + SLACK, box[3] + SLACK

    def inside(i: int) -> bool:
        try:
            x0, y0, x1, y1 = textpage.get_charbox(boxed[i])
        except pdfium.PdfiumError:  # no box: kept, as every character was before CropBoxes were looked at
            return True
        return bool(x0 <= right and x1 >= left and y0 <= top and y1 >= bottom)

    out: list[str] = []
    gap, skipped, hidden, pos = "", False, False, 0
    for word in _WORD.finditer(chars):
        gap, pos = gap + chars[pos:word.start()], word.end()
        if any(inside(i) for i in range(word.start(), word.end())):
            if skipped and out:
                gap = "\n" if "\n" in gap else " "
            out += [gap, word.group()]
            gap, skipped = "", False
        else:
            hidden = skipped = True
    text = "".join(out) if hidden else chars
    if not text.isascii():  # a surrogate pair of `_chars`' units, made one character
        text = text.encode("utf-16", "surrogatepass").decode("utf-16", "surrogatepass")
    return text, hidden


def _chars(textpage: Any) -> tuple[str, Sequence[int]]:
    """(the page's text as get_text_range gives it, the index of each of its characters' box). Where that text is
    not one character a box (a character beyond U+FFFF is two UTF-16 units in pdfium's list but one in Python;
    control characters of a font with no Unicode map are left out of it), it is made of each character that
    get_text_range keeps, one UTF-16 unit each (`_words_within` makes a surrogate pair one character again)."""
    import pypdfium2.raw as pdfium_c

    count = textpage.count_chars()
    text = cast(str, textpage.get_text_range())
    if len(text) == count:
        return text, range(count)
    boxed = [i for i in range(count) if pdfium_c.FPDFText_GetTextIndexFromCharIndex(textpage.raw, i) >= 0]
    units = "".join(chr(c) if 0 <= c <= 0x10FFFF else "\ufffd"
                    for c in (pdfium_c.FPDFText_GetUnicode(textpage.raw, i) for i in boxed))
    # FPDFText_GetUnicode gives 0x02 for a hyphen pdfium takes for a line break, get_text_range U+FFFE (line_breaks)
    return units.replace("\x02", "\ufffe"), boxed
