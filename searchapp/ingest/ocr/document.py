"""`ocr_document`: the text of an image file, or of a PDF's pages without a text layer, by OCR.

Made for the sync's background OCR phase: one call per file, cancellable between pages, every failure an
ExtractionError with a short reason, the result a plain Document (page numbers kept, a note saying the text
came from OCR) that `merge_ocr` can lay over the PDF's own text. Caching by file hash belongs to the caller.
"""

from __future__ import annotations

import logging
import os
import re
from pathlib import Path
from typing import TYPE_CHECKING, Iterable, Optional, Sequence

from ...base.errors import Cancelled, ExtractionError
from ...base.progress import CancelToken
from ...base.types import Document
from ..extractors.encoding import clean_text
from ..extractors.paged import join_layers
from ..valid_text import valid_document
from . import images, pdf_pages
from .engine import OcrEngine, available_engine, ocr_unavailable_reason

if TYPE_CHECKING:
    from PIL.Image import Image as PilImage

__all__ = ["ocr_document", "merge_ocr", "recognised_pages", "ocr_suffixes", "OcrFailed", "repeats", "resource_failure", "OCR_NOTE", "MAX_PAGES",
           "MAX_BYTES", "MAX_FILE_PIXELS"]

OCR_NOTE = "text recognised by OCR"
MAX_PAGES = 200  # per file: a longer scan is OCR'd in part, with a note
MAX_BYTES = 200 * 2**20  # a 200-page scan at 300 dpi is ~50-150 MB
MAX_FILE_PIXELS = 2_000_000_000  # decoded pixels per file, before any page is scaled down

log = logging.getLogger(__name__)
_WORD_START = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")


class OcrFailed(ExtractionError):
    """The engine or an image decoder raised on this file an error known to repeat on the same bytes
    (`repeats`): not a timeout, a cap, a cancel, a file that cannot be read or a resource that ran out, which
    another try may not meet."""


# Errors known to come back on the same bytes (matched by name: the engines' packages are imported only when
# one is built): rapidocr's ResizeImgError() on a page too small to scale (poppler-85140-0.pdf, every sync),
# Pillow's on an image it cannot decode or will not decode whole. Any other error is not remembered.
REPEATING_ERRORS = frozenset({"ResizeImgError", "UnidentifiedImageError", "DecompressionBombError"})
# Errors of a resource that may be there on the next try (memory, a GPU, an onnxruntime execution provider):
# never remembered, whatever their type says, and they stop the file (the pages after would meet them too).
_RESOURCE_ERRORS = frozenset({"MemoryError", "EPFail", "OutOfMemoryError"})
_RESOURCE_WORDS = re.compile(r"alloc|memory|cuda|device", re.IGNORECASE)
_QUOTED = re.compile(r"<[^<>]*>|'[^']*'|\"[^\"]*\"")


def repeats(exc: BaseException) -> bool:
    """Whether `exc` would be raised again on the same bytes by the same engine (REPEATING_ERRORS), as far as is
    known; an error that names memory, an allocation, CUDA or a device never is."""
    names = {t.__name__ for t in type(exc).__mro__}
    return bool(names & REPEATING_ERRORS) and not resource_failure(exc)


def resource_failure(exc: BaseException) -> bool:
    """An error of memory, an allocation, a GPU or an execution provider: onnxruntime's RuntimeException("Failed
    to allocate memory ...") and EPFail, cv2.error's Insufficient memory, a lost CUDA device."""
    names = {t.__name__ for t in type(exc).__mro__}
    # Quoted names and object reprs are left out of the words: Pillow's message names the file ("<_io.BufferedReader
    # name='/home/ana/Memory cards/x.png'>"), and a folder called "Memory cards" is no lack of memory.
    said = _QUOTED.sub(" ", str(exc))
    return bool(names & _RESOURCE_ERRORS) or bool(_RESOURCE_WORDS.search(f"{type(exc).__name__} {said}"))


def _failure(exc: Exception) -> str:
    """"OCR failed: ValueError: what it said", or the exception's name in words when it said nothing (rapidocr's
    ResizeImgError() on a page too small to scale: "OCR failed: resize img error", not "ResizeImgError:")."""
    if type(exc).__name__ == "UnidentifiedImageError":  # Pillow's message is the file object's repr
        return "OCR failed: not a readable image"
    said = " ".join(str(exc).split())
    if said:
        return f"OCR failed: {type(exc).__name__}: {said}"[:300]
    return "OCR failed: " + _WORD_START.sub(" ", type(exc).__name__).lower()


def ocr_suffixes() -> frozenset[str]:
    """Suffixes `ocr_document` reads: images, and PDFs (their pages without text)."""
    return images.image_suffixes() | {".pdf"}


def ocr_document(path: Path | str, *, pages: Optional[Sequence[int]] = None, cancel: Optional[CancelToken] = None,
                 max_pages: int = MAX_PAGES, engine: Optional[OcrEngine] = None) -> Document:
    """OCR text of an image file (every frame) or a PDF (`pages`, 1-based; None: the pages whose text
    layer has too few letters). Raises ExtractionError (no engine, unreadable file, a cap) or Cancelled."""
    path = Path(path)
    engine = engine or available_engine()
    if engine is None:
        raise ExtractionError(ocr_unavailable_reason() or "OCR is not available")
    try:
        size = os.stat(path).st_size
        if size > MAX_BYTES:
            raise ExtractionError(f"file too large for OCR ({size / 2**20:.1f} MB > {MAX_BYTES / 2**20:g} MB)")
        notes: list[str] = [OCR_NOTE]
        if path.suffix.lower() == ".pdf":
            wanted = list(pages) if pages is not None else pdf_pages.textless_pages(path, cancel)
            if len(wanted) > max_pages:
                notes.append(f"only {max_pages} of {len(wanted)} pages were OCR'd")
                wanted = wanted[:max_pages]
            source: Iterable[tuple[int, PilImage]] = pdf_pages.render_pages(path, wanted, cancel)
        elif path.suffix.lower() in images.image_suffixes():
            source = images.iter_image_pages(path, max_pages, cancel)
        else:
            raise ExtractionError(f'OCR does not read "{path.suffix.lower()}" files')
        texts = _recognize(engine, source, cancel, notes)
        if path.suffix.lower() != ".pdf" and len(texts) == max_pages:
            if images.frame_count(path, max_pages + 1) > max_pages:  # counted only as far as the cap
                notes.append(f"only the first {max_pages} pages were OCR'd")
        return _document(texts, tuple(notes))
    except images.UnreadableImage as exc:  # known to repeat on these bytes: the caller may remember it
        raise OcrFailed(str(exc)) from None
    except (ExtractionError, Cancelled):
        raise
    except MemoryError:
        raise ExtractionError("out of memory during OCR") from None
    except OSError as exc:
        raise ExtractionError(f"cannot read file: {exc.strerror or exc}") from None
    except Exception as exc:  # an engine or decoder bug on hostile input: this file fails, the sync goes on
        raise _file_failure(exc) from None


def _file_failure(exc: Exception) -> ExtractionError:
    """OcrFailed (the caller may remember it for these bytes) for an error known to repeat, else an
    ExtractionError: a failure the next try may not meet."""
    return OcrFailed(_failure(exc)) if repeats(exc) else ExtractionError(_failure(exc))


def _recognize(engine: OcrEngine, source: Iterable[tuple[int, PilImage]], cancel: Optional[CancelToken], notes: list[str]) -> list[tuple[int, str]]:
    """(page, text) of every page; a page the engine fails on (a timeout, an error known to repeat) keeps an
    empty text and a note, the other pages are kept. Raises when every page failed (OcrFailed only when every
    failure is known to repeat), and at once on any other error (memory, a device: the pages after would meet
    it too)."""
    texts: list[tuple[int, str]] = []
    pixels = 0
    failures: list[ExtractionError] = []
    for number, image in source:
        pixels += image.width * image.height
        if pixels > MAX_FILE_PIXELS:
            notes.append(f"OCR stopped at page {number}: more than {MAX_FILE_PIXELS:,} pixels in the file")
            break
        if cancel is not None:
            cancel.check()
        try:
            texts.append((number, engine.recognize(image, cancel=cancel).strip()))
        except Exception as exc:  # sorted by _page_failure: what it does not know is raised again
            failed = _page_failure(exc)
            log.info("page %d: %s", number, failed)
            failures.append(failed)
            notes.append(f"page {number} not OCR'd: {failed}")
            texts.append((number, ""))
    if failures and len(failures) == len(texts):
        raise next((f for f in failures if not isinstance(f, OcrFailed)), failures[0])
    return texts


def _page_failure(exc: Exception) -> ExtractionError:
    """The failure of one page, which leaves the other pages worth having: a timeout (the engine's own
    ExtractionError) or an error known to repeat (rapidocr's ResizeImgError on a page too small to scale).
    Anything else (a cancel, memory, a device, an error not known) is raised again."""
    if isinstance(exc, ExtractionError) and not isinstance(exc, OcrFailed):
        return exc
    if repeats(exc):
        return OcrFailed(_failure(exc))
    raise exc


def _document(texts: list[tuple[int, str]], notes: tuple[str, ...], over: Optional[dict[int, str]] = None) -> Document:
    """The OCR Document of (page, text) pages, each cleaned as every extractor cleans its text (`clean_text`: an
    engine's "ﬁ" ligature, soft hyphen or NUL would otherwise split a word for search) before its span is counted.
    Here, not in the engines, so OCR text cached before cleaning is cleaned when `merge_ocr` lays it over a PDF; the
    PDF's own pages, cleaned by its extractor, pass through unchanged. `over`: page -> what is written over it (a
    PDF's notes and form values), kept after its text."""
    over = over or {}
    text, spans = join_layers((number, clean_text(page).strip(), over.get(number, "")) for number, page in texts)
    return valid_document(Document(text, spans, kind="ocr", notes=notes))  # as extract() gives text


def recognised_pages(ocr: Document) -> tuple[int, ...]:
    """The pages `merge_ocr` takes from `ocr`: those where OCR found text (a blank page keeps its text layer)."""
    return tuple(p.page for p in ocr.pages if ocr.text[p.start:p.end].strip())


def merge_ocr(doc: Document, ocr: Document) -> Document:
    """A PDF's Document with each OCR'd page's text in place of that page's (too short) text layer; what was
    written over a page (`PageSpan.layer_end`: its notes, its form values) stays after it. Pages keep their
    order and numbers, and the OCR note is added."""
    by_page = {p.page: ocr.text[p.start:p.end] for p in ocr.pages}
    numbers = {p.page for p in doc.pages} | set(by_page)
    old = {p.page: doc.text[p.start:p.own_end].strip() for p in doc.pages}
    over = {p.page: doc.text[p.own_end:p.end].strip() for p in doc.pages if p.layer_end is not None}
    texts = [(n, by_page[n] if by_page.get(n) else old.get(n, "")) for n in sorted(numbers)]
    # "text recognised by OCR" only where OCR gave text: a PDF whose one text was its sticky note said so (a newcomer)
    read = any(t.strip() for t in by_page.values())
    notes = tuple(n for n in ocr.notes if n not in doc.notes and (read or n != OCR_NOTE))
    merged = _document(texts, tuple(doc.notes) + notes, over)
    return Document(merged.text, merged.pages, kind=doc.kind, notes=merged.notes, title=doc.title)
